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

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/config"
	"github.com/aws/aws-sdk-go-v2/service/s3"

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
	segs, err := listAiven(ctx, cl, bucket, listPrefix)
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
			if keep, err = listAiven(ctx, cl, bucket, prefix); err != nil {
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
		ids["s3://"+bucket+"/"+s.log] = s.segmentID
		byTP[name] = append(byTP[name], segment.Segment{
			Path:       "s3://" + bucket + "/" + s.log,
			BaseOffset: s.base,
			Size:       s.logSize,
			Open: func() (segment.Source, io.Closer, error) {
				return openAiven(ctx, cl, bucket, s, key)
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

func listAiven(ctx context.Context, cl *s3.Client, bucket, prefix string) ([]aivenSegment, error) {
	type pair struct {
		seg         aivenSegment
		hasLog, man bool
	}
	found := map[string]*pair{}
	var order []string
	pg := s3.NewListObjectsV2Paginator(cl, &s3.ListObjectsV2Input{Bucket: aws.String(bucket), Prefix: aws.String(prefix)})
	for pg.HasMorePages() {
		page, err := pg.NextPage(ctx)
		if err != nil {
			return nil, err
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
				p = &pair{seg: aivenSegment{topic: m[2], partition: int32(part), base: base, segmentID: m[6]}}
				found[main] = p
				order = append(order, main)
			}
			switch m[7] {
			case "log":
				p.hasLog = true
				p.seg.log = k
				p.seg.logSize = aws.ToInt64(o.Size)
			case "rsm-manifest":
				p.man = true
				p.seg.manifest = k
			}
		}
	}
	var out []aivenSegment
	for _, main := range order {
		if p := found[main]; p.hasLog && p.man {
			out = append(out, p.seg)
		}
	}
	return out, nil
}

// s3Object reads one object with ranged GETs.
type s3Object struct {
	ctx         context.Context
	cl          *s3.Client
	bucket, key string
}

// readRange reads [off, off+len(p)) of the object.
func (o *s3Object) readRange(p []byte, off int64) error {
	if len(p) == 0 {
		return nil
	}
	out, err := o.cl.GetObject(o.ctx, &s3.GetObjectInput{
		Bucket: aws.String(o.bucket),
		Key:    aws.String(o.key),
		Range:  aws.String(fmt.Sprintf("bytes=%d-%d", off, off+int64(len(p))-1)),
	})
	if err != nil {
		return fmt.Errorf("s3://%s/%s: GET bytes %d-%d: %w", o.bucket, o.key, off, off+int64(len(p))-1, err)
	}
	defer out.Body.Close()
	if _, err := io.ReadFull(out.Body, p); err != nil {
		return fmt.Errorf("s3://%s/%s: GET bytes %d-%d: %w", o.bucket, o.key, off, off+int64(len(p))-1, err)
	}
	return nil
}

func (o *s3Object) getAll(limit int64) ([]byte, error) {
	out, err := o.cl.GetObject(o.ctx, &s3.GetObjectInput{Bucket: aws.String(o.bucket), Key: aws.String(o.key)})
	if err != nil {
		return nil, fmt.Errorf("s3://%s/%s: %w", o.bucket, o.key, err)
	}
	defer out.Body.Close()
	b, err := io.ReadAll(io.LimitReader(out.Body, limit+1))
	if err != nil {
		return nil, err
	}
	if int64(len(b)) > limit {
		return nil, fmt.Errorf("s3://%s/%s: larger than %d bytes", o.bucket, o.key, limit)
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
