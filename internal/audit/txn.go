package audit

import (
	"context"
	"fmt"
	"slices"
	"time"
)

// TxnView is what a cluster says about the producers of one audited
// partition: its leader's producer state and, by producer id, the
// transaction coordinators' view of their transactions.
type TxnView struct {
	Topic     string
	Partition int32
	Leader    map[int64]LeaderProducer
	Coord     map[int64]CoordinatorTxn
	Now       time.Time // the zero time: time.Now()
}

// LeaderProducer is the partition leader's state of a producer.
type LeaderProducer struct {
	LastTimestamp int64 // milliseconds since the epoch of its last write, -1 unknown
}

// CoordinatorTxn is a transaction coordinator's state of a producer's
// transactional id.
type CoordinatorTxn struct {
	TxnID          string
	State          string // Ongoing, PrepareCommit, PrepareAbort, CompleteCommit, ...
	ProducerEpoch  int16
	TimeoutMillis  int64
	StartTimestamp int64
	// Partitions are the partitions in the transaction, by topic.
	Partitions map[string][]int32
}

// Coordinators tells what the cluster an audited partition was read from
// says about its producers.
type Coordinators interface {
	// Transactions asks about producerIDs of the partition audited from
	// dir (Summary.Dir); ok is false when that partition was not read
	// from a cluster.
	Transactions(ctx context.Context, dir string, producerIDs []int64) (v TxnView, ok bool, err error)
}

var openStates = map[string]bool{"Ongoing": true, "PrepareCommit": true, "PrepareAbort": true}

// CheckTransactions asks coord about the transactions r's log shows open
// (see JudgeTransactions). A result of a partition coord does not know
// (files), or without open transactions, is left as it is; so is any
// result when coord is nil.
func CheckTransactions(ctx context.Context, r *Result, coord Coordinators) error {
	if coord == nil {
		return nil
	}
	var pids []int64
	var name string
	look := func(f *Finding) error {
		if f.Code == UnterminatedTransaction {
			pids = append(pids, f.ProducerID)
			name = f.File
		}
		return nil
	}
	if r.Summary.Findings[UnterminatedTransaction] == 0 {
		// Only findings added after the audit can be: do not read back a
		// streamed result's findings for nothing.
		for i := range r.Findings {
			look(&r.Findings[i])
		}
	} else if err := r.Each(look); err != nil {
		return err
	}
	if len(pids) == 0 {
		return nil
	}
	v, ok, err := coord.Transactions(ctx, r.Summary.Dir, pids)
	if err != nil {
		return fmt.Errorf("%s: %w", name, err)
	}
	if ok {
		JudgeTransactions(r, v)
	}
	return nil
}

// JudgeTransactions adds to r, for each transaction the log shows open
// (its unterminated-transaction findings), a txn-unknown-to-coordinator
// finding when the coordinator does not have that transaction open on
// this partition, and a txn-past-timeout finding when it has been open
// longer than its timeout.
func JudgeTransactions(r *Result, v TxnView) {
	now := v.Now
	if now.IsZero() {
		now = time.Now()
	}
	var add []Finding
	r.Each(func(fp *Finding) error {
		f := *fp
		if f.Code != UnterminatedTransaction {
			return nil
		}
		base := f
		base.Batches = nil
		tx, known := v.Coord[f.ProducerID]
		var why string
		switch {
		case !known:
			why = "no coordinator lists a transaction for this producer id"
		case tx.ProducerEpoch != f.ProducerEpoch:
			why = fmt.Sprintf("its coordinator has transactional id %q at epoch %d, state %s", tx.TxnID, tx.ProducerEpoch, tx.State)
		case !openStates[tx.State]:
			why = fmt.Sprintf("its coordinator has transactional id %q in state %s", tx.TxnID, tx.State)
		case !slices.Contains(tx.Partitions[v.Topic], v.Partition):
			why = fmt.Sprintf("its coordinator's transaction %q (%s) does not include %s-%d", tx.TxnID, tx.State, v.Topic, v.Partition)
		}
		if why != "" {
			u := base
			u.Code, u.Severity = TxnUnknownToCoordinator, Error
			u.Message = fmt.Sprintf("producer %d's transaction from offset %d is open in the log but not at its coordinator: %s (a hanging transaction: it holds back the last stable offset)", f.ProducerID, f.FirstOffset, why)
			add = append(add, u)
		}
		// How long it has been open: the coordinator's start time, else
		// the leader's last write of the producer.
		start, timeout := int64(-1), int64(-1)
		if known && tx.ProducerEpoch == f.ProducerEpoch {
			start, timeout = tx.StartTimestamp, tx.TimeoutMillis
		} else if lp, ok := v.Leader[f.ProducerID]; ok {
			start = lp.LastTimestamp
		}
		if timeout < 0 {
			timeout = 15 * 60 * 1000 // transaction.max.timeout.ms's default: no timeout can be longer
		}
		if start > 0 {
			if open := now.UnixMilli() - start; open > timeout {
				p := base
				p.Code, p.Severity = TxnPastTimeout, Warning
				p.Message = fmt.Sprintf("producer %d's transaction from offset %d has been open %s, past its timeout of %s", f.ProducerID, f.FirstOffset,
					time.Duration(open)*time.Millisecond, time.Duration(timeout)*time.Millisecond)
				add = append(add, p)
			}
		}
		return nil
	})
	r.Findings = append(r.Findings, add...)
}
