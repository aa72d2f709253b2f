package explain

import (
	"testing"

	"github.com/kseg/kseg/producer"
	"github.com/kseg/kseg/segment"
)

// On a log the model wrote, Like gives back a configuration under which the
// model writes as many batches, and the advice's change moves the count the
// way the dominant cut says.
func TestAdviceOnModelLogs(t *testing.T) {
	for _, tc := range []struct {
		batchSize int
		linger    int64
		interval  string
		dominant  string
	}{
		{1024, 1000, "0s", CutSize},
		{16384, 5, "1ms", CutLinger},
	} {
		c := producer.DefaultConfig()
		c.BatchSize, c.LingerMs, c.Records = tc.batchSize, tc.linger, 300
		if tc.interval == "1ms" {
			c.SendInterval = 1e6
		}
		dir := t.TempDir()
		res, err := producer.Write(c, dir)
		if err != nil {
			t.Fatal(err)
		}
		parts, err := segment.Partitions([]string{dir})
		if err != nil {
			t.Fatal(err)
		}
		ex, err := Run(parts)
		if err != nil {
			t.Fatal(err)
		}
		a, err := ex.Producers[0].Advise()
		if err != nil || a == nil {
			t.Fatalf("advice: %v %v", a, err)
		}
		if a.Dominant != tc.dominant {
			t.Errorf("%d/%d: dominant %s, want %s", tc.batchSize, tc.linger, a.Dominant, tc.dominant)
		}
		if want := int64(len(res.Batches)); a.LogBatches != want || want < a.BaseMin || want > a.BaseMax {
			t.Errorf("%d/%d: log %d batches (written %d), model at the inferred settings %d (%d–%d)", tc.batchSize, tc.linger, a.LogBatches, want, a.BaseCount, a.BaseMin, a.BaseMax)
		}
		if a.NewCount >= a.BaseCount {
			t.Errorf("%d/%d: with %s the model predicts %d batches, not fewer than %d", tc.batchSize, tc.linger, a.Change, a.NewCount, a.BaseCount)
		}
	}
}

// A log with more records than a model run replays: advice compares the
// model with the batches that hold the records it replayed, and says it
// was capped. Before the fix it compared a capped run with the whole log
// ("writes 1352 batches ... (the log has 67573)") without a word.
func TestAdviceCappedComparesLikeWithLike(t *testing.T) {
	old := maxLikeRecords
	maxLikeRecords = 1000
	defer func() { maxLikeRecords = old }()
	c := producer.DefaultConfig()
	c.BatchSize, c.LingerMs, c.Records = 1024, 1000, 3000
	dir := t.TempDir()
	res, err := producer.Write(c, dir)
	if err != nil {
		t.Fatal(err)
	}
	parts, err := segment.Partitions([]string{dir})
	if err != nil {
		t.Fatal(err)
	}
	ex, err := Run(parts)
	if err != nil {
		t.Fatal(err)
	}
	a, err := ex.Producers[0].Advise()
	if err != nil || a == nil {
		t.Fatalf("advice: %v %v", a, err)
	}
	if !a.Capped || a.LogRecords != 3000 || a.Base.Records > 1000 || a.Base.Records < 900 {
		t.Errorf("capped %v, log records %d, model records %d: want capped, 3000, about 1000", a.Capped, a.LogRecords, a.Base.Records)
	}
	if replayed, all := ex.Producers[0].LikeRecords(); replayed != a.Base.Records || all != 3000 {
		t.Errorf("LikeRecords %d of %d, want %d of 3000 (produce --like says so)", replayed, all, a.Base.Records)
	}
	if all := int64(len(res.Batches)); a.LogBatches >= all || a.LogBatches < a.BaseMin || a.LogBatches > a.BaseMax {
		t.Errorf("compared with %d batches (the log has %d); the model writes %d (%d–%d) for %d records",
			a.LogBatches, all, a.BaseCount, a.BaseMin, a.BaseMax, a.Base.Records)
	}
}
