package wire

import (
	"context"
	"fmt"
	"io"
	"sort"
	"strings"
	"sync"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/kseg/kseg/segment"
)

// Every replica of a partition, each read from its own broker (kseg
// replicas). What Kafka 4.4 serves, and so what this reads:
//   - ListOffsets with the debugging replica id (-2) is answered by any
//     replica, leader or follower, from its own log: its log start and its
//     log end offset (not the high watermark).
//   - Fetch from a consumer (replica id -1) at version 11 or later is
//     served by a follower too (KIP-392), up to that replica's own high
//     watermark; batches above it are not readable over the wire.
//   - OffsetForLeaderEpoch is answered by the leader only, from its epoch
//     cache (the leader-epoch-checkpoint); followers' epochs come from
//     their batches.

// DebuggingReplicaID is the replica id of ReplicaVerificationTool and
// kafka-dump-log's debugging consumer: ListOffsets answers it from any
// replica.
const DebuggingReplicaID = -2

// ReplicaSet is one partition's replicas as the cluster describes them.
type ReplicaSet struct {
	Topic       string
	Partition   int32
	Leader      int32
	LeaderEpoch int32
	Replicas    []Replica
}

// Replica is one replica of a partition.
type Replica struct {
	Broker int32
	Leader bool
	InSync bool
	// LogStart and LogEnd are the replica's own (ListOffsets with the
	// debugging replica id, sent to its broker).
	LogStart, LogEnd int64
	// Part has one segment whose bytes are fetched from this broker only,
	// from LogStart up to the replica's high watermark.
	Part segment.Partition
	// HighWatermark is the replica's high watermark as its last Fetch
	// response gave it (-1 before the segment was read).
	HighWatermark func() int64
}

// Replicas describes every replica of the partitions arg (parsed as u)
// names and asks each replica's broker for its log start and end.
func (cc *Cluster) Replicas(arg string, u URL) ([]ReplicaSet, error) {
	ctx := context.Background()
	topics, err := cc.topics(ctx, u)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", redact(arg), cc.timedOut(err))
	}
	var out []ReplicaSet
	for _, td := range topics {
		if u.Partition >= 0 {
			if _, ok := td.Partitions[u.Partition]; !ok {
				return nil, fmt.Errorf("%s: topic %s has no partition %d (it has %d): %w", redact(arg), td.Topic, u.Partition, len(td.Partitions), ErrUnknownTopic)
			}
		}
		for _, pd := range td.Partitions.Sorted() {
			if u.Partition >= 0 && pd.Partition != u.Partition {
				continue
			}
			rs := ReplicaSet{Topic: td.Topic, Partition: pd.Partition, Leader: pd.Leader, LeaderEpoch: pd.LeaderEpoch}
			isr := map[int32]bool{}
			for _, b := range pd.ISR {
				isr[b] = true
			}
			reps := append([]int32(nil), pd.Replicas...)
			sort.Slice(reps, func(i, j int) bool { return reps[i] < reps[j] })
			for _, b := range reps {
				start, end, err := cc.replicaOffsets(ctx, td.Topic, pd.Partition, b)
				if err != nil {
					return nil, fmt.Errorf("%s: %s-%d: replica on broker %d: %w", redact(arg), td.Topic, pd.Partition, b, cc.timedOut(err))
				}
				rs.Replicas = append(rs.Replicas, cc.replica(td, pd.Partition, b, b == pd.Leader, isr[b], start, end, u))
			}
			out = append(out, rs)
		}
	}
	return out, nil
}

func (cc *Cluster) replica(td kadm.TopicDetail, partition, broker int32, leader, inSync bool, start, end int64, u URL) Replica {
	var mu sync.Mutex
	hw := int64(-1)
	name := fmt.Sprintf("kafka://%s/%s-%d@broker-%d/%020d.log", strings.Join(u.Brokers, ","), td.Topic, partition, broker, start)
	pr := partReader{cc: cc, name: name, topic: td.Topic, id: td.ID, partition: partition, leader: broker, from: start, to: end}
	open := func() (segment.Source, io.Closer, error) {
		f := &fetcher{p: pr, cfg: cc.cfg, size: cc.cfg.FetchBytes,
			refresh: func(context.Context) error { return nil }, // this broker, not whoever leads
			seen: func(p *kmsg.FetchResponseTopicPartition) {
				mu.Lock()
				hw = p.HighWatermark
				mu.Unlock()
			}}
		r := startReader(f)
		return segment.Source{Name: name, R: r, Size: -1}, r, nil
	}
	seg := segment.Segment{Path: name, BaseOffset: start, Open: open}
	return Replica{Broker: broker, Leader: leader, InSync: inSync, LogStart: start, LogEnd: end,
		Part: segment.NewRemotePartition(td.Topic, partition, name[:strings.LastIndex(name, "/")], []segment.Segment{seg}),
		HighWatermark: func() int64 {
			mu.Lock()
			defer mu.Unlock()
			return hw
		}}
}

// replicaOffsets asks broker for its own log start and log end offset of
// the partition (ListOffsets, debugging replica id).
func (cc *Cluster) replicaOffsets(ctx context.Context, topic string, partition, broker int32) (start, end int64, err error) {
	ask := func(ts int64) (int64, error) {
		req := kmsg.NewPtrListOffsetsRequest()
		req.ReplicaID = DebuggingReplicaID
		t := kmsg.NewListOffsetsRequestTopic()
		t.Topic = topic
		p := kmsg.NewListOffsetsRequestTopicPartition()
		p.Partition = partition
		p.CurrentLeaderEpoch = -1
		p.Timestamp = ts
		t.Partitions = append(t.Partitions, p)
		req.Topics = append(req.Topics, t)
		rctx, cancel := cc.request(ctx)
		defer cancel()
		resp, err := req.RequestWith(rctx, cc.cl.Broker(int(broker)))
		if err != nil {
			return 0, classify(err)
		}
		for _, rt := range resp.Topics {
			for _, rp := range rt.Partitions {
				if rt.Topic == topic && rp.Partition == partition {
					if err := kerr.ErrorForCode(rp.ErrorCode); err != nil {
						return 0, classify(err)
					}
					return rp.Offset, nil
				}
			}
		}
		return 0, fmt.Errorf("no answer for %s-%d: %w", topic, partition, kerr.UnknownTopicOrPartition)
	}
	if start, err = ask(-2); err != nil {
		return 0, 0, err
	}
	if end, err = ask(-1); err != nil {
		return 0, 0, err
	}
	return start, end, nil
}

// EpochEnd is an OffsetForLeaderEpoch answer: the largest epoch at or below
// the one asked that the broker's log holds, and where it ends.
type EpochEnd struct {
	Epoch     int32
	EndOffset int64
}

// EpochEnds asks broker (the partition's leader: followers answer
// NOT_LEADER_OR_FOLLOWER) for the end offset of each epoch
// (OffsetForLeaderEpoch, as a consumer).
func (cc *Cluster) EpochEnds(ctx context.Context, topic string, partition, broker int32, epochs []int32) ([]EpochEnd, error) {
	req := kmsg.NewPtrOffsetForLeaderEpochRequest()
	req.ReplicaID = -1
	t := kmsg.NewOffsetForLeaderEpochRequestTopic()
	t.Topic = topic
	for _, e := range epochs {
		p := kmsg.NewOffsetForLeaderEpochRequestTopicPartition()
		p.Partition = partition
		p.CurrentLeaderEpoch = -1
		p.LeaderEpoch = e
		t.Partitions = append(t.Partitions, p)
	}
	var out []EpochEnd
	// One partition may appear once per request: ask epoch by epoch.
	for _, p := range t.Partitions {
		one := *req
		tt := t
		tt.Partitions = []kmsg.OffsetForLeaderEpochRequestTopicPartition{p}
		one.Topics = []kmsg.OffsetForLeaderEpochRequestTopic{tt}
		rctx, cancel := cc.request(ctx)
		resp, err := one.RequestWith(rctx, cc.cl.Broker(int(broker)))
		cancel()
		if err != nil {
			return nil, classify(err)
		}
		for _, rt := range resp.Topics {
			for _, rp := range rt.Partitions {
				if rp.Partition != partition {
					continue
				}
				if err := kerr.ErrorForCode(rp.ErrorCode); err != nil {
					return nil, err
				}
				out = append(out, EpochEnd{Epoch: rp.LeaderEpoch, EndOffset: rp.EndOffset})
			}
		}
	}
	return out, nil
}
