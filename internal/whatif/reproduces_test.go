package whatif

import (
	"testing"

	"github.com/kseg/kseg/producer"
)

// Reproduces: within max(1 batch, 5%) of the log, or the log inside the
// median's 95% interval over the runs; otherwise not.
func TestReproduces(t *testing.T) {
	runs := func(totals ...int64) *producer.ReplayResult {
		rr := &producer.ReplayResult{Partitions: 1}
		for _, n := range totals {
			rr.Runs = append(rr.Runs, producer.RunLayout{Batches: []int64{n}, Records: []int64{n}, Bytes: []int64{n}})
		}
		return rr
	}
	spread := make([]int64, 0, 40) // a wide replay: 10..49, median 29.5
	for n := int64(10); n < 50; n++ {
		spread = append(spread, n)
	}
	for _, tc := range []struct {
		name string
		log  int64
		rr   *producer.ReplayResult
		want bool
	}{
		{"exact", 100, runs(98, 100, 102), true},
		{"within 5%", 100, runs(104, 105, 106), true},
		{"one batch on a small log", 10, runs(11, 11, 11), true},
		{"6% off, tight runs", 100, runs(106, 106, 106, 106, 106), false},
		{"8% off, inside a wide median's noise", 32, runs(spread...), true},
		{"far outside a wide median's noise", 45, runs(spread...), false},
	} {
		r := &Result{LogBatches: []int64{tc.log}, Replay: tc.rr}
		if got := r.Reproduces(); got != tc.want {
			t.Errorf("%s: Reproduces() = %v, want %v", tc.name, got, tc.want)
		}
	}
}
