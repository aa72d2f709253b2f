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
