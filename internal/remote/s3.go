package remote

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/url"
	"os"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/config"
	"github.com/aws/aws-sdk-go-v2/service/s3"

	"github.com/kseg/kseg/located"
	"github.com/kseg/kseg/segment"
)

// aivenKey is an object key of Aiven's tiered-storage-for-apache-kafka:
// <prefix><topic>-<topicId>/<partition>/<startOffset, 20 digits>-<segmentId>.<suffix>
// with suffix log, indexes or rsm-manifest (ObjectKeyFactory.mainPath in
// Aiven-Open/tiered-storage-for-apache-kafka core/src/main/java/io/aiven/
// kafka/tieredstorage/ObjectKeyFactory.java).
var aivenKey = regexp.MustCompile(`^(.*?)([^/]+)-([A-Za-z0-9_-]{22})/(\d+)/(\d+)-([A-Za-z0-9_-]{22})\.(log|indexes|rsm-manifest)$`)

var topicPartitionName = regexp.MustCompile(`^(.+)-(\d+)$`)

// newS3Client builds a client from the AWS default chain and the options.
func newS3Client(ctx context.Context, q url.Values) (*s3.Client, error) {
	var opts []func(*config.LoadOptions) error
	if r := q.Get("region"); r != "" {
		opts = append(opts, config.WithRegion(r))
	}
	cfg, err := config.LoadDefaultConfig(ctx, opts...)
	if err != nil {
		return nil, err
	}
	if cfg.Region == "" {
		cfg.Region = "us-east-1"
	}
	pathStyle := q.Get("path-style")
	return s3.NewFromConfig(cfg, func(o *s3.Options) {
		// A ranged GET carries no checksum of its bytes; the SDK would log
		// "DEBUG Response has no supported checksum" on stderr for each.
		// Checksums the store does send are still validated.
		o.DisableLogOutputChecksumValidationSkipped = true
		if ep := q.Get("endpoint"); ep != "" {
			o.BaseEndpoint = aws.String(ep)
		}
		if pathStyle != "" && pathStyle != "0" && pathStyle != "false" {
			o.UsePathStyle = true
		}
	}), nil
}

type aivenSegment struct {
	topic     string
	partition int32
	base      int64
	segmentID string
	log       string // object keys
	manifest  string
	logSize   int64
	main      string // the key without its suffix
}

// ErrMissingObject is a segment the plugin's layout lists with one of the
// two objects kseg reads (.log, .rsm-manifest) absent from the store.
var ErrMissingObject = errors.New("missing object")

// missing is the error of a segment that lacks one of its objects, nil
// when both are there.
func (s aivenSegment) missing(bucket string) error {
	var gone []string
	for _, o := range []struct{ key, suffix string }{{s.log, "log"}, {s.manifest, "rsm-manifest"}} {
		if o.key == "" {
			gone = append(gone, "s3://"+bucket+"/"+s.main+"."+o.suffix)
		}
	}
	if len(gone) == 0 {
		return nil
	}
	return located.At("s3://"+bucket+"/"+s.main+".log", -1, fmt.Errorf("%w: segment %d (id %s) of %s-%d has no %s: the plugin writes a segment's .log and .rsm-manifest, and this one cannot be read (an upload that did not finish, or an object deleted)",
		ErrMissingObject, s.base, s.segmentID, s.topic, s.partition, strings.Join(gone, " and no ")))
}

// resolveS3 reads s3://BUCKET/PREFIX[/TOPIC-PARTITION][?options]: the
// segments the Aiven plugin wrote under PREFIX, one partition per
// <topic>-<topicId>/<partition>, or only TOPIC-PARTITION's.
func resolveS3(arg string, defaults url.Values) ([]segment.Partition, error) {
	rest, q, err := splitArg(arg, "s3", defaults)
	if err != nil {
		return nil, err
	}
	bucket, prefix, _ := strings.Cut(rest, "/")
	if bucket == "" {
		return nil, fmt.Errorf("%s: want s3://BUCKET/PREFIX[/TOPIC-PARTITION]", arg)
	}
	ctx := context.Background()
	cl, err := newS3Client(ctx, q)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", arg, err)
	}
	bk := &s3Bucket{cl: cl, name: bucket, endpoint: q.Get("endpoint"), timeout: DefaultTimeout}
	if bk.endpoint == "" {
		bk.endpoint = "the S3 endpoint of region " + cl.Options().Region
	}
	if t := q.Get("timeout"); t != "" {
		if bk.timeout, err = time.ParseDuration(t); err != nil || bk.timeout <= 0 {
			return nil, fmt.Errorf("%s: timeout=%s: want a positive duration (10s, 1m)", arg, t)
		}
	}
	var key []byte
	if f := q.Get("rsa-key"); f != "" {
		if key, err = os.ReadFile(f); err != nil {
			return nil, err
		}
	}
	// PREFIX/TOPIC-PARTITION: list the parent prefix and keep that partition.
	wantTopic, wantPart := "", int64(-1)
	listPrefix := prefix
	if i := strings.LastIndexByte("/"+prefix, '/'); i >= 0 {
		if m := topicPartitionName.FindStringSubmatch(prefix[i:]); m != nil {
			wantTopic = m[1]
			wantPart, _ = strconv.ParseInt(m[2], 10, 32)
			listPrefix = prefix[:i]
		}
	}
	segs, err := listAiven(ctx, bk, listPrefix)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", arg, err)
	}
	if wantTopic != "" {
		var keep []aivenSegment
		for _, s := range segs {
			if s.topic == wantTopic && int64(s.partition) == wantPart {
				keep = append(keep, s)
			}
		}
		if len(keep) == 0 { // not a partition name after all: the whole prefix
			if keep, err = listAiven(ctx, bk, prefix); err != nil {
				return nil, fmt.Errorf("%s: %w", arg, err)
			}
		}
		segs = keep
	}
	if len(segs) == 0 {
		return nil, fmt.Errorf("%s: no segments laid out as the Aiven tiered-storage plugin writes them (<prefix><topic>-<topicId>/<partition>/<offset>-<segmentId>.log and .rsm-manifest)", arg)
	}
	byTP := map[string][]segment.Segment{}
	ids := map[string]string{}
	var names []string
	for _, s := range segs {
		name := s.topic + "-" + strconv.Itoa(int(s.partition))
		if _, ok := byTP[name]; !ok {
			names = append(names, name)
		}
		s := s
		path := "s3://" + bucket + "/" + s.main + ".log"
		ids[path] = s.segmentID
		byTP[name] = append(byTP[name], segment.Segment{
			Path:       path,
			BaseOffset: s.base,
			Size:       s.logSize,
			Open: func() (segment.Source, io.Closer, error) {
				if err := s.missing(bucket); err != nil {
					return segment.Source{}, nil, err
				}
				return openAiven(bk, s, key)
			},
		})
	}
	sort.Strings(names)
	var out []segment.Partition
	for _, name := range names {
		m := topicPartitionName.FindStringSubmatch(name)
		part, _ := strconv.ParseInt(m[2], 10, 32)
		p, err := assemble(segment.NewRemotePartition(m[1], int32(part), "s3://"+bucket+"/"+listPrefix+name, byTP[name]), ids, q)
		if err != nil {
			return nil, err
		}
		out = append(out, p)
	}
	return out, nil
}

func listAiven(ctx context.Context, bk *s3Bucket, prefix string) ([]aivenSegment, error) {
	type pair struct {
		seg aivenSegment
	}
	found := map[string]*pair{}
	var order []string
	pg := s3.NewListObjectsV2Paginator(bk.cl, &s3.ListObjectsV2Input{Bucket: aws.String(bk.name), Prefix: aws.String(prefix)})
	for pg.HasMorePages() {
		rctx, cancel := bk.request(ctx)
		page, err := pg.NextPage(rctx)
		cancel()
		if err != nil {
			return nil, bk.timedOut(err)
		}
		for _, o := range page.Contents {
			k := aws.ToString(o.Key)
			m := aivenKey.FindStringSubmatch(k)
			if m == nil || !strings.HasPrefix(k, prefix) {
				continue
			}
			main := strings.TrimSuffix(k, "."+m[7])
			p := found[main]
			if p == nil {
				part, err1 := strconv.ParseInt(m[4], 10, 32)
				base, err2 := strconv.ParseInt(m[5], 10, 64)
				if err1 != nil || err2 != nil {
					continue
				}
				p = &pair{seg: aivenSegment{topic: m[2], partition: int32(part), base: base, segmentID: m[6], main: main}}
				found[main] = p
				order = append(order, main)
			}
			switch m[7] {
			case "log":
				p.seg.log = k
				p.seg.logSize = aws.ToInt64(o.Size)
			case "rsm-manifest":
				p.seg.manifest = k
			}
		}
	}
	// A segment with an object missing is kept: reading it is an error
	// (aivenSegment.missing), never a segment silently left out.
	var out []aivenSegment
	for _, main := range order {
		out = append(out, found[main].seg)
	}
	return out, nil
}

// DefaultTimeout is how long one S3 request (its retries and its body
// included) may take when no timeout option is given.
const DefaultTimeout = 10 * time.Second

// s3Bucket is a bucket and how it is reached.
type s3Bucket struct {
	cl       *s3.Client
	name     string
	endpoint string        // as errors name it
	timeout  time.Duration // of each request
}

// request is ctx with the deadline of one request.
func (b *s3Bucket) request(ctx context.Context) (context.Context, context.CancelFunc) {
	return context.WithTimeout(ctx, b.timeout)
}

// ErrTimeout is a request that got no complete answer within the timeout.
var ErrTimeout = errors.New("no answer")

// timedOut names the endpoint that did not answer when err is a request's
// deadline; the SDK's long text (its retries, the deadline) is dropped.
func (b *s3Bucket) timedOut(err error) error {
	if errors.Is(err, context.DeadlineExceeded) {
		return fmt.Errorf("%w from %s within %s (--timeout)", ErrTimeout, b.endpoint, b.timeout)
	}
	return err
}

// s3Object reads one object with ranged GETs.
type s3Object struct {
	b   *s3Bucket
	key string
}

// readRange reads [off, off+len(p)) of the object.
func (o *s3Object) readRange(p []byte, off int64) error {
	if len(p) == 0 {
		return nil
	}
	ctx, cancel := o.b.request(context.Background())
	defer cancel()
	out, err := o.b.cl.GetObject(ctx, &s3.GetObjectInput{
		Bucket: aws.String(o.b.name),
		Key:    aws.String(o.key),
		Range:  aws.String(fmt.Sprintf("bytes=%d-%d", off, off+int64(len(p))-1)),
	})
	if err == nil {
		defer out.Body.Close()
		_, err = io.ReadFull(out.Body, p)
	}
	if err != nil {
		return fmt.Errorf("s3://%s/%s: GET bytes %d-%d: %w", o.b.name, o.key, off, off+int64(len(p))-1, o.b.timedOut(err))
	}
	return nil
}

func (o *s3Object) getAll(limit int64) ([]byte, error) {
	ctx, cancel := o.b.request(context.Background())
	defer cancel()
	out, err := o.b.cl.GetObject(ctx, &s3.GetObjectInput{Bucket: aws.String(o.b.name), Key: aws.String(o.key)})
	if err != nil {
		return nil, fmt.Errorf("s3://%s/%s: %w", o.b.name, o.key, o.b.timedOut(err))
	}
	defer out.Body.Close()
	b, err := io.ReadAll(io.LimitReader(out.Body, limit+1))
	if err != nil {
		return nil, fmt.Errorf("s3://%s/%s: %w", o.b.name, o.key, o.b.timedOut(err))
	}
	if int64(len(b)) > limit {
		return nil, fmt.Errorf("s3://%s/%s: larger than %d bytes", o.b.name, o.key, limit)
	}
	return b, nil
}

// chunkCache is a small LRU of decoded chunks: the memory a reader holds
// is at most max chunks, whatever the object's size.
type chunkCache struct {
	mu    sync.Mutex
	max   int
	items []cachedChunk // most recent last
}

type cachedChunk struct {
	i int
	b []byte
}

func (c *chunkCache) get(i int) []byte {
	c.mu.Lock()
	defer c.mu.Unlock()
	for j, it := range c.items {
		if it.i == i {
			copy(c.items[j:], c.items[j+1:])
			c.items[len(c.items)-1] = it
			return it.b
		}
	}
	return nil
}

func (c *chunkCache) put(i int, b []byte) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.items) >= c.max {
		c.items = c.items[1:]
	}
	c.items = append(c.items, cachedChunk{i, b})
}

var errClosed = errors.New("remote: reader closed")
