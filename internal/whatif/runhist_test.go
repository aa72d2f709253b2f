package whatif

import (
	"math"
	"testing"

	"github.com/kseg/kseg/internal/whatifdata"
	"github.com/kseg/kseg/producer"
)

// TestRunHistOnLoadedLog: a log of a send every 100 µs to one partition at
// linger.ms=20, on the loaded machine, its batches cut by batch.size. The
// real runs at linger.ms=0 have a median of 122 batches. Fitted against
// all runs' records-per-batch distribution pooled, the fit chose a sender
// fast enough to predict 334 (319 with each batch's close by its size): a
// mixture of fast runs' many small batches and slow runs' few large ones
// that no run lays out; against the middle fifth of the runs
// (FitOptions.RunHist), 136. Both fits here search from the prior alone
// (FitOptions.GridStart off), as they were measured: with every fit
// searched from the best of a grid of senders (a variant not kept), the
// pooled fit too found a sender that predicts 110.
func TestRunHistOnLoadedLog(t *testing.T) {
	c := loadRealCase(t, "whatif", "fixed-100us-p1", "linger20", "linger0", whatifdata.Loaded, 0)
	median, real := c.realAtTo(t)
	r := c.predict(t)
	predict := func(runHist bool) int {
		return predictRefitted(t, r, func(fo *producer.FitOptions) { fo.GridStart, fo.RunHist = false, runHist })
	}
	middle, pooled := predict(true), predict(false)
	off := func(n int) float64 { return math.Abs(float64(n)-median) / median }
	if off(middle) > 0.25 || off(middle) >= off(pooled) {
		t.Errorf("at linger.ms=0: %d batches fitted to the middle runs, %d to all runs pooled; the real median %.1f (runs %v)", middle, pooled, median, real)
	}
	t.Logf("middle runs %d, pooled %d, real median %.1f", middle, pooled, median)
}
