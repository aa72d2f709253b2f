package wire

import (
	"context"
	"fmt"
	"sort"
)

// Producers is what a cluster says about the producers of one partition:
// its leader's producer state (DescribeProducers) and, by producer id,
// the coordinators' transactions (ListTransactions, DescribeTransactions).
type Producers struct {
	Leader map[int64]LeaderProducer
	Txns   map[int64]Transaction
}

// LeaderProducer is a partition leader's state of one producer.
type LeaderProducer struct {
	ProducerID    int64
	ProducerEpoch int16
	LastSequence  int32
	LastTimestamp int64 // milliseconds, -1 when unknown
}

// Transaction is a transaction coordinator's state of one transactional
// id.
type Transaction struct {
	TxnID          string
	State          string // Ongoing, PrepareCommit, CompleteAbort, ...
	ProducerID     int64
	ProducerEpoch  int16
	TimeoutMillis  int32
	StartTimestamp int64
	// Partitions are the partitions in the transaction, by topic, sorted.
	Partitions map[string][]int32
}

// Producers asks the cluster about the producers of topic-partition:
// the leader's state of all of them, and the coordinators' transactions
// of producerIDs.
func (cc *Cluster) Producers(ctx context.Context, topic string, partition int32, producerIDs []int64) (Producers, error) {
	ctx, cancel := context.WithTimeout(ctx, 2*cc.cfg.Timeout)
	defer cancel()
	v := Producers{Leader: map[int64]LeaderProducer{}, Txns: map[int64]Transaction{}}
	dp, err := cc.adm.DescribeProducers(ctx, map[string]map[int32]struct{}{topic: {partition: struct{}{}}})
	if err != nil {
		return v, fmt.Errorf("DescribeProducers: %w", classify(err))
	}
	for _, p := range dp.SortedProducers() {
		v.Leader[p.ProducerID] = LeaderProducer{ProducerID: p.ProducerID, ProducerEpoch: p.ProducerEpoch,
			LastSequence: p.LastSequence, LastTimestamp: p.LastTimestamp}
	}
	lt, err := cc.adm.ListTransactions(ctx, producerIDs, nil)
	if err != nil {
		return v, fmt.Errorf("ListTransactions: %w", classify(err))
	}
	if ids := lt.TransactionalIDs(); len(ids) > 0 {
		dt, err := cc.adm.DescribeTransactions(ctx, ids...)
		if err != nil {
			return v, fmt.Errorf("DescribeTransactions: %w", classify(err))
		}
		for _, t := range dt {
			if t.Err != nil {
				continue
			}
			tx := Transaction{TxnID: t.TxnID, State: t.State, ProducerID: t.ProducerID, ProducerEpoch: t.ProducerEpoch,
				TimeoutMillis: t.TimeoutMillis, StartTimestamp: t.StartTimestamp, Partitions: map[string][]int32{}}
			for topic, ps := range t.Topics {
				for p := range ps {
					tx.Partitions[topic] = append(tx.Partitions[topic], p)
				}
				sort.Slice(tx.Partitions[topic], func(i, j int) bool { return tx.Partitions[topic][i] < tx.Partitions[topic][j] })
			}
			v.Txns[t.ProducerID] = tx
		}
	}
	return v, nil
}
