// Package source builds the sources a command reads, as one value from
// the command's flags: files, partition directories and log directories,
// kafka://HOST:PORT[,HOST:PORT...]/TOPIC[/PARTITION] (a live cluster, see
// package wire), lts:// and s3:// (tiered storage, see package remote).
//
//	var flags source.Flags
//	flags.Add(cmd.Flags())
//	...
//	opts, err := flags.Options()
//	src := source.New(opts)
//	defer src.Close()
//	parts, err := src.Partitions(args)
//
// Nothing here or in the packages it uses keeps connections, endpoints or
// credentials outside the Set a command builds.
package source

import (
	"context"
	"net/url"
	"os"
	"runtime/debug"
	"strings"
	"sync"
	"time"

	"github.com/kseg/kseg/internal/audit"
	"github.com/kseg/kseg/internal/remote"
	"github.com/kseg/kseg/internal/wire"
	"github.com/kseg/kseg/segment"
)

// Options say how a command's sources are reached.
type Options struct {
	// Wire is how kafka:// sources are reached and what range of each is
	// read.
	Wire wire.Config
	// Remote are the lts:// and s3:// options (rsa-key, endpoint, region,
	// path-style) that apply to every argument that does not set them in
	// its query string.
	Remote url.Values
	// Secrets are cut from any text the command prints (Redact): the SASL
	// password.
	Secrets []string
	// Query is the range and filter every partition is read with
	// (segment.Query.Apply); its bounds are Wire's too.
	Query segment.Query
}

// Redact replaces every secret of o in s.
func (o Options) Redact(s string) string {
	for _, x := range o.Secrets {
		if x != "" {
			s = strings.ReplaceAll(s, x, "[redacted]")
		}
	}
	return s
}

// Set is the sources of one command: it resolves arguments into
// partitions and holds the clients that read them until Close.
type Set struct {
	opts Options

	mu       sync.Mutex
	clusters map[string]*wire.Cluster // by broker list
	onKafka  map[string]kafkaPart     // by partition Dir
	gc       func()                   // restores the GC settings wireGC changed
}

// Fetched responses are garbage once framed: the client allocates each
// (up to 4 MiB) afresh, so at the default GOGC of 100 the collector ran
// every two or three responses, and count over the wire spent about as
// much CPU in it as in everything else. While a cluster is open the set
// lets the heap grow to five times what is live (wireGCPercent), within a
// soft limit (wireMemLimit) that keeps a command holding much more alive
// collecting as before; GOGC and GOMEMLIMIT in the environment win.
const (
	wireGCPercent = 400
	wireMemLimit  = 256 << 20
)

// wireGC applies the settings above and returns what restores the old.
func wireGC() func() {
	var undo []func()
	if os.Getenv("GOGC") == "" {
		old := debug.SetGCPercent(wireGCPercent)
		undo = append(undo, func() { debug.SetGCPercent(old) })
	}
	if os.Getenv("GOMEMLIMIT") == "" {
		old := debug.SetMemoryLimit(wireMemLimit)
		undo = append(undo, func() { debug.SetMemoryLimit(old) })
	}
	return func() {
		for _, u := range undo {
			u()
		}
	}
}

// kafkaPart is where a partition resolved from kafka:// lives.
type kafkaPart struct {
	cc        *wire.Cluster
	topic     string
	partition int32
}

// New is the sources reached as o says. Nothing is connected until an
// argument needs it.
func New(o Options) *Set {
	return &Set{opts: o, clusters: map[string]*wire.Cluster{}, onKafka: map[string]kafkaPart{}}
}

// Options are the options the set was made with.
func (s *Set) Options() Options { return s.opts }

// Redact replaces the set's secrets in text.
func (s *Set) Redact(text string) string { return s.opts.Redact(text) }

// Partitions turns arguments (segment files, partition directories, log
// directories, kafka://, lts:// and s3:// sources) into partitions as
// segment.Partitions does for paths: merged when reached twice, sorted by
// topic, partition and directory.
//
// With an active query (--from, --to, filters) every partition comes with
// its window: the segments outside it are left out, and the others seek
// to it when opened.
func (s *Set) Partitions(args []string) ([]segment.Partition, error) {
	parts, err := segment.PartitionsVia(args, s.resolve)
	if err != nil {
		return nil, err
	}
	return s.opts.Query.Apply(parts)
}

// resolve is the segment.Resolver of the URL arguments.
func (s *Set) resolve(arg string) ([]segment.Partition, bool, error) {
	if strings.HasPrefix(arg, "kafka://") {
		parts, err := s.resolveKafka(arg)
		return parts, true, err
	}
	return remote.Resolve(arg, s.opts.Remote)
}

func (s *Set) resolveKafka(arg string) ([]segment.Partition, error) {
	u, err := wire.ParseURL(arg)
	if err != nil {
		return nil, err
	}
	cc, err := s.cluster(u.Brokers)
	if err != nil {
		return nil, err
	}
	parts, err := cc.Partitions(arg, u)
	if err != nil {
		return nil, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, p := range parts {
		s.onKafka[p.Dir] = kafkaPart{cc: cc, topic: p.Topic, partition: p.Partition}
	}
	return parts, nil
}

// cluster is the client of the cluster at brokers, made on first use.
func (s *Set) cluster(brokers []string) (*wire.Cluster, error) {
	key := strings.Join(brokers, ",")
	s.mu.Lock()
	defer s.mu.Unlock()
	if cc, ok := s.clusters[key]; ok {
		return cc, nil
	}
	cc, err := wire.Connect(brokers, s.opts.Wire)
	if err != nil {
		return nil, err
	}
	s.clusters[key] = cc
	if s.gc == nil {
		s.gc = wireGC()
	}
	return cc, nil
}

// Close closes the clients the set opened. The partitions it resolved
// cannot be read after it.
func (s *Set) Close() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	for k, cc := range s.clusters {
		cc.Close()
		delete(s.clusters, k)
	}
	clear(s.onKafka)
	if s.gc != nil {
		s.gc()
		s.gc = nil
	}
	return nil
}

// Transactions is the audit's view of the cluster a partition was read
// from (audit.Coordinators): ok is false for a partition not resolved from
// kafka:// by this set.
func (s *Set) Transactions(ctx context.Context, dir string, producerIDs []int64) (audit.TxnView, bool, error) {
	s.mu.Lock()
	kp, ok := s.onKafka[dir]
	s.mu.Unlock()
	if !ok {
		return audit.TxnView{}, false, nil
	}
	now := time.Now()
	ps, err := kp.cc.Producers(ctx, kp.topic, kp.partition, producerIDs)
	if err != nil {
		return audit.TxnView{}, true, err
	}
	return txnView(kp.topic, kp.partition, ps, now), true, nil
}

// txnView is the cluster's answer in the audit's terms.
func txnView(topic string, partition int32, ps wire.Producers, now time.Time) audit.TxnView {
	v := audit.TxnView{Topic: topic, Partition: partition, Now: now,
		Leader: map[int64]audit.LeaderProducer{}, Coord: map[int64]audit.CoordinatorTxn{}}
	for id, p := range ps.Leader {
		v.Leader[id] = audit.LeaderProducer{LastTimestamp: p.LastTimestamp}
	}
	for id, t := range ps.Txns {
		v.Coord[id] = audit.CoordinatorTxn{TxnID: t.TxnID, State: t.State, ProducerEpoch: t.ProducerEpoch,
			TimeoutMillis: int64(t.TimeoutMillis), StartTimestamp: t.StartTimestamp, Partitions: t.Partitions}
	}
	return v
}

var _ audit.Coordinators = (*Set)(nil)

// Replicas resolves a kafka:// argument into every replica of each
// partition it names, each read from its own broker (kseg replicas).
func (s *Set) Replicas(arg string) (*wire.Cluster, []wire.ReplicaSet, error) {
	u, err := wire.ParseURL(arg)
	if err != nil {
		return nil, nil, err
	}
	cc, err := s.cluster(u.Brokers)
	if err != nil {
		return nil, nil, err
	}
	rs, err := cc.Replicas(arg, u)
	return cc, rs, err
}
