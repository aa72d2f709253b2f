package audit

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"
)

func TestJudgeTransactions(t *testing.T) {
	now := time.UnixMilli(1_800_000_000_000)
	open := Finding{Code: UnterminatedTransaction, Severity: Warning, Partition: "t-0",
		ProducerID: 7, ProducerEpoch: 2, FirstOffset: 40, File: "kafka://b:1/t-0/00000000000000000000.log"}
	inT0 := map[string][]int32{"t": {0}}
	coord := func(state string, epoch int16, start int64, parts map[string][]int32) map[int64]CoordinatorTxn {
		return map[int64]CoordinatorTxn{7: {TxnID: "tx-a", State: state, ProducerEpoch: epoch,
			TimeoutMillis: 60_000, StartTimestamp: start, Partitions: parts}}
	}
	recent := now.UnixMilli() - 1_000
	for _, tc := range []struct {
		name string
		view TxnView
		want []Code
	}{
		{"open at its coordinator, in time", TxnView{Coord: coord("Ongoing", 2, recent, inT0)}, nil},
		{"open past its timeout", TxnView{Coord: coord("Ongoing", 2, now.UnixMilli()-61_000, inT0)}, []Code{TxnPastTimeout}},
		{"no transactional id", TxnView{Leader: map[int64]LeaderProducer{7: {LastTimestamp: recent}}}, []Code{TxnUnknownToCoordinator}},
		{"unknown and old", TxnView{Leader: map[int64]LeaderProducer{7: {LastTimestamp: now.UnixMilli() - 16*60_000}}},
			[]Code{TxnUnknownToCoordinator, TxnPastTimeout}},
		{"another epoch", TxnView{Coord: coord("Ongoing", 3, recent, inT0)}, []Code{TxnUnknownToCoordinator}},
		{"completed", TxnView{Coord: coord("CompleteCommit", 2, recent, inT0)}, []Code{TxnUnknownToCoordinator}},
		{"partition not in it", TxnView{Coord: coord("Ongoing", 2, recent, map[string][]int32{"t": {1}})}, []Code{TxnUnknownToCoordinator}},
	} {
		tc.view.Now, tc.view.Topic, tc.view.Partition = now, "t", 0
		r := &Result{Findings: []Finding{open}}
		JudgeTransactions(r, tc.view)
		var got []Code
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

// fakeCoordinators knows the partitions under dirs; asked counts calls.
type fakeCoordinators struct {
	views map[string]TxnView
	err   error
	asked int
}

func (f *fakeCoordinators) Transactions(_ context.Context, dir string, pids []int64) (TxnView, bool, error) {
	f.asked++
	v, ok := f.views[dir]
	return v, ok, f.err
}

func TestCheckTransactions(t *testing.T) {
	open := Finding{Code: UnterminatedTransaction, Severity: Warning, Partition: "t-0",
		ProducerID: 7, ProducerEpoch: 2, FirstOffset: 40, File: "kafka://b:1/t-0/00000000000000000000.log"}
	result := func(dir string) *Result {
		return &Result{Summary: Summary{Dir: dir, Findings: map[Code]int{}}, Findings: []Finding{open}}
	}
	fake := &fakeCoordinators{views: map[string]TxnView{"kafka://b:1/t-0": {Topic: "t", Partition: 0}}}
	r := result("kafka://b:1/t-0")
	if err := CheckTransactions(context.Background(), r, fake); err != nil || len(r.Findings) != 2 || r.Findings[1].Code != TxnUnknownToCoordinator {
		t.Fatalf("on the cluster: %v, %+v", err, r.Findings)
	}
	r = result("/data/t-0")
	if err := CheckTransactions(context.Background(), r, fake); err != nil || len(r.Findings) != 1 {
		t.Fatalf("files: %v, %+v", err, r.Findings)
	}
	if err := CheckTransactions(context.Background(), r, nil); err != nil || len(r.Findings) != 1 {
		t.Fatalf("no coordinators: %v, %+v", err, r.Findings)
	}
	fake.err = errors.New("DescribeProducers: boom")
	err := CheckTransactions(context.Background(), result("kafka://b:1/t-0"), fake)
	if err == nil || !strings.HasPrefix(err.Error(), open.File+": DescribeProducers") {
		t.Fatalf("error: %v", err)
	}
	fake.asked = 0
	clean := &Result{Summary: Summary{Dir: "kafka://b:1/t-0", Findings: map[Code]int{}}}
	if err := CheckTransactions(context.Background(), clean, fake); err != nil || fake.asked != 0 {
		t.Fatalf("no open transaction: asked %d, %v", fake.asked, err)
	}
}
