package whatif

import (
	"math"
	"testing"

	"github.com/kseg/kseg/internal/whatifdata"
	"github.com/kseg/kseg/producer"
)

// TestGridStartOnValleyLog: a log of Poisson arrivals every 1 ms over 3
// keyed partitions at linger.ms=50 on the loaded machine (69 batches). The
// replay reproduces it at a lag near 2-3 ms and makes 72 batches at lags of
// 0.5-1.5 ms. Searched from the prior (0.5 ms) the fit settled at the
// prior, 4% above the log, and predicted 298 batches at linger.ms=5, where
// the real runs' median is 251.5. That end does not reproduce the log
// within the fit's tolerance, so with FitOptions.GridStart the fit searches
// again from the best of a grid of lags and round trips, finds the valley
// and comes within 5%.
func TestGridStartOnValleyLog(t *testing.T) {
	c := loadRealCase(t, "whatif", "poisson-1ms-p3-keyed", "linger50", "base", whatifdata.Loaded, 0)
	median, real := c.realAtTo(t)
	r := c.predict(t)
	grid := r.Predicted.TotalBatches().P50
	prior := predictRefitted(t, r, func(fo *producer.FitOptions) { fo.GridStart = false })
	off := func(n int) float64 { return math.Abs(float64(n)-median) / median }
	if off(grid) > 0.05 || off(grid) >= off(prior) {
		t.Errorf("at linger.ms=5: %d batches searched from the grid's best, %d from the prior; the real median %.1f (runs %v)", grid, prior, median, real)
	}
	if e, _ := r.ReplayError(); math.Abs(e) > 0.02 {
		t.Errorf("the replay under linger.ms=50 is %+.1f%% off the log's batches", 100*e)
	}
	t.Logf("grid start %d, prior start %d, real median %.1f; fitted sender %+v", grid, prior, median, r.Fit.Sender)
}
