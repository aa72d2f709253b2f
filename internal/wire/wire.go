// Package wire makes a Kafka cluster a source of batches like a log
// directory: kafka://HOST[:PORT][,HOST[:PORT]...]/TOPIC[/PARTITION] resolves to
// one segment.Partition per partition, whose one segment serves the
// partition's stored record batches, fetched from its leader with raw Fetch
// requests at read_uncommitted (aborted data and control batches included)
// and framed by kseg's own stream, never by a client's record parser.
//
// The network is franz-go's (kgo for connections, versions, TLS and SASL;
// kadm for metadata and ListOffsets; kmsg for the Fetch request itself).
package wire

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"net"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/sasl"

	"github.com/kseg/kseg/segment"
)

// Errors a command maps to exit codes and hints.
var (
	ErrUnknownTopic = errors.New("no such topic")
	ErrBadURL       = errors.New("not a kafka:// source (kafka://HOST[:PORT][,HOST[:PORT]...]/TOPIC[/PARTITION])")
	ErrUnreachable  = errors.New("cannot reach the cluster")
	ErrAuth         = errors.New("authentication failed")
	ErrTLS          = errors.New("TLS handshake failed")
	ErrPartition    = errors.New("partition could not be read")
)

// Bound is one end of the offset range read (segment.Bound): the log
// start, the high watermark, an offset, or the first offset at or after a
// time (ListOffsets by timestamp).
type Bound = segment.Bound

// BoundKind says how a Bound is resolved.
type BoundKind = segment.BoundKind

// The kinds of Bound.
const (
	BoundDefault  = segment.BoundDefault
	BoundEarliest = segment.BoundEarliest
	BoundLatest   = segment.BoundLatest
	BoundOffset   = segment.BoundOffset
	BoundTime     = segment.BoundTime
)

// ParseBound is segment.ParseBound.
func ParseBound(s string) (Bound, error) { return segment.ParseBound(s) }

// Config is how sources are reached and what range of each is read.
type Config struct {
	TLS  *tls.Config    // nil: plaintext
	SASL sasl.Mechanism // nil: none
	From Bound
	To   Bound
	// FetchBytes is the partition and response size asked for in each
	// Fetch (DefaultFetchBytes when 0). A batch larger than it is fetched
	// again with a larger size.
	FetchBytes int32
	// Prefetch is how many fetched responses may wait ahead of the reader
	// of one partition (DefaultPrefetch when 0).
	Prefetch int
	// Timeout bounds connecting and each request (DefaultTimeout when
	// 0), and how long a partition whose leader moved or whose broker is
	// down is retried; Retries bounds the attempts within it.
	Timeout time.Duration
	Retries int
	// Dial, when set, replaces the network dialer (tests).
	Dial func(ctx context.Context, network, host string) (net.Conn, error)
}

// Defaults.
const (
	DefaultFetchBytes = 1 << 20
	DefaultPrefetch   = 2
	MaxFetchBytes     = 1 << 30 // the largest size a single batch is re-fetched with
	// DefaultTimeout is Config.Timeout's default: a broker that accepts
	// connections and never answers fails in this time.
	DefaultTimeout = 10 * time.Second
)

// withDefaults fills the zero fields of c with the defaults.
func (c Config) withDefaults() Config {
	if c.FetchBytes <= 0 {
		c.FetchBytes = DefaultFetchBytes
	}
	if c.Prefetch <= 0 {
		c.Prefetch = DefaultPrefetch
	}
	if c.Timeout <= 0 {
		c.Timeout = DefaultTimeout
	}
	if c.Retries <= 0 {
		c.Retries = 12
	}
	return c
}

// URL is a parsed kafka:// source.
type URL struct {
	Brokers   []string
	Topic     string // a name, or a pattern when it has characters no name has
	Partition int32  // -1: all
}

var topicName = regexp.MustCompile(`^[a-zA-Z0-9._-]+$`)

// DefaultPort is the broker port of a kafka:// host given without one.
const DefaultPort = "9092"

// ParseURL reads kafka://HOST[:PORT][,HOST[:PORT]...]/TOPIC[/PARTITION]; a
// host without a port is on DefaultPort.
func ParseURL(s string) (URL, error) {
	rest, ok := strings.CutPrefix(s, "kafka://")
	if !ok {
		return URL{}, fmt.Errorf("%s: %w", s, ErrBadURL)
	}
	hosts, path, _ := strings.Cut(rest, "/")
	if strings.Contains(hosts, "@") {
		return URL{}, fmt.Errorf("%s: credentials in the URL are not read (use --command-config or --sasl-user with $KSEG_SASL_PASSWORD): %w", redact(s), ErrBadURL)
	}
	u := URL{Partition: -1}
	for _, h := range strings.Split(hosts, ",") {
		if _, _, err := net.SplitHostPort(h); err != nil && h != "" && !strings.HasSuffix(h, ":") {
			// no port: HOST, or [IPv6] (a bare IPv6 address is ambiguous)
			if host, ok := strings.CutPrefix(h, "["); ok && strings.HasSuffix(host, "]") {
				h = net.JoinHostPort(strings.TrimSuffix(host, "]"), DefaultPort)
			} else if !strings.Contains(h, ":") {
				h = net.JoinHostPort(h, DefaultPort)
			}
		}
		if host, port, err := net.SplitHostPort(h); err != nil || port == "" || host == "" {
			return URL{}, fmt.Errorf("%s: broker %q: want HOST[:PORT]: %w", s, h, ErrBadURL)
		}
		u.Brokers = append(u.Brokers, h)
	}
	path = strings.TrimSuffix(path, "/")
	if path == "" {
		return URL{}, fmt.Errorf("%s: no topic: %w", s, ErrBadURL)
	}
	if i := strings.LastIndex(path, "/"); i >= 0 {
		n, err := strconv.ParseInt(path[i+1:], 10, 32)
		if err != nil || n < 0 {
			return URL{}, fmt.Errorf("%s: partition %q: want a number: %w", s, path[i+1:], ErrBadURL)
		}
		u.Topic, u.Partition = path[:i], int32(n)
	} else {
		u.Topic = path
	}
	if !topicName.MatchString(u.Topic) {
		if _, err := regexp.Compile("^(?:" + u.Topic + ")$"); err != nil {
			return URL{}, fmt.Errorf("%s: topic pattern: %v: %w", s, err, ErrBadURL)
		}
	}
	return u, nil
}

// Cluster is a client of one cluster (one broker list), shared by the
// sources on it. Close it when the command is over.
type Cluster struct {
	cl      *kgo.Client
	adm     *kadm.Client
	cfg     Config
	brokers []string
}

// Connect makes the client of the cluster at brokers (no request is sent
// yet).
func Connect(brokers []string, c Config) (*Cluster, error) {
	c = c.withDefaults()
	opts := []kgo.Opt{
		kgo.SeedBrokers(brokers...),
		kgo.ClientID("kseg"),
		kgo.RequestTimeoutOverhead(c.Timeout),
		kgo.RetryTimeout(c.Timeout),
		kgo.DialTimeout(min(5*time.Second, c.Timeout)),
		kgo.RequestRetries(2),
		kgo.MetadataMinAge(250 * time.Millisecond),
	}
	if c.TLS != nil {
		opts = append(opts, kgo.DialTLSConfig(c.TLS.Clone()))
	}
	if c.Dial != nil {
		opts = append(opts, kgo.Dialer(c.Dial))
	}
	if c.SASL != nil {
		opts = append(opts, kgo.SASL(c.SASL))
	}
	cl, err := kgo.NewClient(opts...)
	if err != nil {
		return nil, err
	}
	return &Cluster{cl: cl, adm: kadm.NewClient(cl), cfg: c, brokers: brokers}, nil
}

// Close closes the cluster's connections.
func (cc *Cluster) Close() { cc.cl.Close() }

// Partitions turns the kafka:// argument arg, parsed as u, into
// partitions. Each partition has one segment, named
// kafka://BROKERS/TOPIC-P/<20-digit from offset>.log, whose bytes are
// fetched when it is opened.
func (cc *Cluster) Partitions(arg string, u URL) ([]segment.Partition, error) {
	c := cc.cfg
	ctx := context.Background()
	topics, err := cc.topics(ctx, u)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", redact(arg), cc.timedOut(err))
	}
	var out []segment.Partition
	for _, td := range topics {
		ranges, err := cc.ranges(ctx, td, u.Partition, c.From, c.To)
		if err != nil {
			err = cc.timedOut(err)
		}
		if err != nil {
			return nil, fmt.Errorf("%s: %w", redact(arg), err)
		}
		for _, r := range ranges {
			pr := &partReader{cc: cc, topic: td.Topic, id: td.ID, partition: r.partition, leader: r.leader, from: r.from, to: r.to}
			name := fmt.Sprintf("kafka://%s/%s-%d/%020d.log", strings.Join(u.Brokers, ","), td.Topic, r.partition, r.from)
			pr.name = name
			seg := segment.Segment{Path: name, BaseOffset: r.from, Size: 0, Open: pr.open, Ranged: true}
			out = append(out, segment.NewRemotePartition(td.Topic, r.partition, name[:strings.LastIndex(name, "/")], []segment.Segment{seg}))
		}
	}
	return out, nil
}

// redact is the argument as printed: kafka:// URLs carry no credentials,
// but a userinfo part someone typed is cut.
func redact(s string) string {
	rest, ok := strings.CutPrefix(s, "kafka://")
	if !ok {
		return s
	}
	if at := strings.Index(rest, "@"); at >= 0 && at < strings.Index(rest+"/", "/") {
		return "kafka://" + rest[at+1:]
	}
	return s
}

// timedOut says which brokers did not answer in time when err is a
// request's deadline.
func (cc *Cluster) timedOut(err error) error {
	if errors.Is(err, context.DeadlineExceeded) {
		return fmt.Errorf("%w: no answer from %s within %s (--timeout)", ErrUnreachable, strings.Join(cc.brokers, ","), cc.cfg.Timeout)
	}
	return err
}

// request is ctx with the deadline of one request.
func (cc *Cluster) request(ctx context.Context) (context.Context, context.CancelFunc) {
	return context.WithTimeout(ctx, cc.cfg.Timeout)
}

func (cc *Cluster) topics(ctx context.Context, u URL) ([]kadm.TopicDetail, error) {
	ctx, cancel := cc.request(ctx)
	defer cancel()
	var md kadm.Metadata
	var err error
	pattern := !topicName.MatchString(u.Topic)
	if pattern {
		md, err = cc.adm.Metadata(ctx)
	} else {
		md, err = cc.adm.Metadata(ctx, u.Topic)
	}
	if err != nil {
		return nil, classify(err)
	}
	var out []kadm.TopicDetail
	if pattern {
		re := regexp.MustCompile("^(?:" + u.Topic + ")$")
		for name, td := range md.Topics {
			if re.MatchString(name) && td.Err == nil {
				out = append(out, td)
			}
		}
		if len(out) == 0 {
			return nil, fmt.Errorf("topic pattern %q matches no topic: %w", u.Topic, ErrUnknownTopic)
		}
	} else {
		td, ok := md.Topics[u.Topic]
		if !ok || td.Err != nil {
			if ok && !isUnknownTopic(td.Err) {
				return nil, fmt.Errorf("topic %s: %w", u.Topic, classify(td.Err))
			}
			return nil, fmt.Errorf("topic %s: %w", u.Topic, ErrUnknownTopic)
		}
		out = append(out, td)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Topic < out[j].Topic })
	return out, nil
}

type prange struct {
	partition int32
	leader    int32
	from, to  int64
}

// ranges resolves the offsets [from, to) of the partitions of td (only
// partition p when p >= 0).
func (cc *Cluster) ranges(ctx context.Context, td kadm.TopicDetail, p int32, from, to Bound) ([]prange, error) {
	if p >= 0 {
		if _, ok := td.Partitions[p]; !ok {
			return nil, fmt.Errorf("topic %s has no partition %d (it has %d): %w", td.Topic, p, len(td.Partitions), ErrUnknownTopic)
		}
	}
	rctx, cancel := cc.request(ctx)
	defer cancel()
	starts, err := cc.adm.ListStartOffsets(rctx, td.Topic)
	if err == nil {
		err = starts.Error()
	}
	if err != nil {
		return nil, fmt.Errorf("list start offsets: %w", classify(err))
	}
	rctx, cancel = cc.request(ctx)
	defer cancel()
	ends, err := cc.adm.ListEndOffsets(rctx, td.Topic)
	if err == nil {
		err = ends.Error()
	}
	if err != nil {
		return nil, fmt.Errorf("list end offsets: %w", classify(err))
	}
	byTime := map[int64]kadm.ListedOffsets{}
	for _, b := range []Bound{from, to} {
		if b.Kind == BoundTime {
			if _, ok := byTime[b.Millis]; ok {
				continue
			}
			rctx, cancel := cc.request(ctx)
			lo, err := cc.adm.ListOffsetsAfterMilli(rctx, b.Millis, td.Topic)
			cancel()
			if err == nil {
				err = lo.Error()
			}
			if err != nil {
				return nil, fmt.Errorf("list offsets by time: %w", classify(err))
			}
			byTime[b.Millis] = lo
		}
	}
	resolve := func(b Bound, part int32, def BoundKind) int64 {
		start, _ := starts.Lookup(td.Topic, part)
		end, _ := ends.Lookup(td.Topic, part)
		k := b.Kind
		if k == BoundDefault {
			k = def
		}
		switch k {
		case BoundEarliest:
			return start.Offset
		case BoundLatest:
			return end.Offset
		case BoundOffset:
			return min(max(b.Offset, start.Offset), end.Offset)
		default:
			o, ok := byTime[b.Millis].Lookup(td.Topic, part)
			if !ok || o.Offset < 0 {
				return end.Offset
			}
			return o.Offset
		}
	}
	var out []prange
	for _, pd := range td.Partitions.Sorted() {
		if p >= 0 && pd.Partition != p {
			continue
		}
		r := prange{partition: pd.Partition, leader: pd.Leader,
			from: resolve(from, pd.Partition, BoundEarliest), to: resolve(to, pd.Partition, BoundLatest)}
		if r.to < r.from {
			r.to = r.from
		}
		out = append(out, r)
	}
	return out, nil
}
