package wire

import (
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"

	"github.com/kseg/kseg/internal/audit"
)

func TestJudgeTransactions(t *testing.T) {
	now := time.UnixMilli(1_800_000_000_000)
	open := audit.Finding{Code: audit.UnterminatedTransaction, Severity: audit.Warning, Partition: "t-0",
		ProducerID: 7, ProducerEpoch: 2, FirstOffset: 40, File: "kafka://b:1/t-0/00000000000000000000.log"}
	inT0 := kadm.TopicsSet{"t": {0: {}}}
	coord := func(state string, epoch int16, start int64, topics kadm.TopicsSet) map[int64]kadm.DescribedTransaction {
		return map[int64]kadm.DescribedTransaction{7: {TxnID: "tx-a", State: state, ProducerID: 7, ProducerEpoch: epoch,
			TimeoutMillis: 60_000, StartTimestamp: start, Topics: topics}}
	}
	recent := now.UnixMilli() - 1_000
	for _, tc := range []struct {
		name string
		view TxnView
		want []audit.Code
	}{
		{"open at its coordinator, in time", TxnView{Coord: coord("Ongoing", 2, recent, inT0)}, nil},
		{"open past its timeout", TxnView{Coord: coord("Ongoing", 2, now.UnixMilli()-61_000, inT0)}, []audit.Code{audit.TxnPastTimeout}},
		{"no transactional id", TxnView{Leader: map[int64]kadm.DescribedProducer{7: {LastTimestamp: recent}}}, []audit.Code{audit.TxnUnknownToCoordinator}},
		{"unknown and old", TxnView{Leader: map[int64]kadm.DescribedProducer{7: {LastTimestamp: now.UnixMilli() - 16*60_000}}},
			[]audit.Code{audit.TxnUnknownToCoordinator, audit.TxnPastTimeout}},
		{"another epoch", TxnView{Coord: coord("Ongoing", 3, recent, inT0)}, []audit.Code{audit.TxnUnknownToCoordinator}},
		{"completed", TxnView{Coord: coord("CompleteCommit", 2, recent, inT0)}, []audit.Code{audit.TxnUnknownToCoordinator}},
		{"partition not in it", TxnView{Coord: coord("Ongoing", 2, recent, kadm.TopicsSet{"t": {1: {}}})}, []audit.Code{audit.TxnUnknownToCoordinator}},
	} {
		tc.view.Now = now
		r := &audit.Result{Findings: []audit.Finding{open}}
		JudgeTransactions(r, "t", 0, tc.view)
		var got []audit.Code
		for _, f := range r.Findings[1:] {
			got = append(got, f.Code)
			if f.ProducerID != 7 || f.FirstOffset != 40 || f.File != open.File || f.Message == "" {
				t.Errorf("%s: finding %+v", tc.name, f)
			}
		}
		if len(got) != len(tc.want) {
			t.Errorf("%s: %v, want %v", tc.name, got, tc.want)
			continue
		}
		for i := range got {
			if got[i] != tc.want[i] {
				t.Errorf("%s: %v, want %v", tc.name, got, tc.want)
			}
		}
	}
}
