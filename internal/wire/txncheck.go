package wire

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"

	"github.com/kseg/kseg/internal/audit"
)

// TxnView is what a cluster says about the producers of one partition:
// its leader's producer state (DescribeProducers) and, by producer id,
// the coordinators' transactions (ListTransactions, DescribeTransactions).
type TxnView struct {
	Leader map[int64]kadm.DescribedProducer
	Coord  map[int64]kadm.DescribedTransaction
	Now    time.Time
}

var openStates = map[string]bool{"Ongoing": true, "PrepareCommit": true, "PrepareAbort": true}

// JudgeTransactions adds to r, for each transaction the log shows open
// (its unterminated-transaction findings), a txn-unknown-to-coordinator
// finding when the coordinator does not have that transaction open on
// this partition, and a txn-past-timeout finding when it has been open
// longer than its timeout.
func JudgeTransactions(r *audit.Result, topic string, partition int32, v TxnView) {
	var add []audit.Finding
	r.Each(func(fp *audit.Finding) error {
		f := *fp
		if f.Code != audit.UnterminatedTransaction {
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
		case !hasPartition(tx.Topics, topic, partition):
			why = fmt.Sprintf("its coordinator's transaction %q (%s) does not include %s-%d", tx.TxnID, tx.State, topic, partition)
		}
		if why != "" {
			u := base
			u.Code, u.Severity = audit.TxnUnknownToCoordinator, audit.Error
			u.Message = fmt.Sprintf("producer %d's transaction from offset %d is open in the log but not at its coordinator: %s (a hanging transaction: it holds back the last stable offset)", f.ProducerID, f.FirstOffset, why)
			add = append(add, u)
		}
		// How long it has been open: the coordinator's start time, else
		// the leader's last write of the producer.
		start, timeout := int64(-1), int64(-1)
		if known && tx.ProducerEpoch == f.ProducerEpoch {
			start, timeout = tx.StartTimestamp, int64(tx.TimeoutMillis)
		} else if lp, ok := v.Leader[f.ProducerID]; ok {
			start = lp.LastTimestamp
		}
		if timeout < 0 {
			timeout = 15 * 60 * 1000 // transaction.max.timeout.ms's default: no timeout can be longer
		}
		if start > 0 {
			if open := v.Now.UnixMilli() - start; open > timeout {
				p := base
				p.Code, p.Severity = audit.TxnPastTimeout, audit.Warning
				p.Message = fmt.Sprintf("producer %d's transaction from offset %d has been open %s, past its timeout of %s", f.ProducerID, f.FirstOffset,
					time.Duration(open)*time.Millisecond, time.Duration(timeout)*time.Millisecond)
				add = append(add, p)
			}
		}
		return nil
	})
	r.Findings = append(r.Findings, add...)
}

func hasPartition(ts kadm.TopicsSet, topic string, partition int32) bool {
	ps, ok := ts[topic]
	if !ok {
		return false
	}
	_, ok = ps[partition]
	return ok
}

// CheckTransactions asks the cluster of a kafka:// partition's audit r
// about the transactions its log shows open (see JudgeTransactions). A
// result from files, or without open transactions, is left as it is.
func CheckTransactions(r *audit.Result) error {
	var pids []int64
	var name string
	look := func(f *audit.Finding) error {
		if f.Code == audit.UnterminatedTransaction && strings.HasPrefix(f.File, "kafka://") {
			pids = append(pids, f.ProducerID)
			name = f.File
		}
		return nil
	}
	if r.Summary.Findings[audit.UnterminatedTransaction] == 0 {
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
	segMu.Lock()
	pr, ok := segs[name]
	segMu.Unlock()
	if !ok {
		return nil
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*pr.cc.cfg.Timeout)
	defer cancel()
	v := TxnView{Leader: map[int64]kadm.DescribedProducer{}, Coord: map[int64]kadm.DescribedTransaction{}, Now: time.Now()}
	dp, err := pr.cc.adm.DescribeProducers(ctx, kadm.TopicsSet{pr.topic: {pr.partition: struct{}{}}})
	if err != nil {
		return fmt.Errorf("%s: DescribeProducers: %w", name, classify(err))
	}
	dp.EachProducer(func(p kadm.DescribedProducer) { v.Leader[p.ProducerID] = p })
	lt, err := pr.cc.adm.ListTransactions(ctx, pids, nil)
	if err != nil {
		return fmt.Errorf("%s: ListTransactions: %w", name, classify(err))
	}
	if ids := lt.TransactionalIDs(); len(ids) > 0 {
		dt, err := pr.cc.adm.DescribeTransactions(ctx, ids...)
		if err != nil {
			return fmt.Errorf("%s: DescribeTransactions: %w", name, classify(err))
		}
		for _, t := range dt {
			if t.Err == nil {
				v.Coord[t.ProducerID] = t
			}
		}
	}
	JudgeTransactions(r, pr.topic, pr.partition, v)
	return nil
}
