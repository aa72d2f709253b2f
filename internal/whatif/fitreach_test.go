package whatif

import (
	"testing"

	"github.com/kseg/kseg/internal/whatifdata"
)

// TestFitReachesStalledSender: real logs whose sender stalled for far
// longer than linger.ms (a loaded machine: 7 batches a partition where
// linger.ms=50 alone would cut about 15). From the fit's prior up to ten
// times it the lag changes no batch count, so a search that only looks
// near the prior stays there and replays twice the log's batches; the
// replay under the log's own settings must reproduce it within
// max(1 batch, 5%).
func TestFitReachesStalledSender(t *testing.T) {
	for _, tc := range []struct{ group, setting, to string }{
		{"poisson-1ms-p3-keyed", "linger50", "base"},
		{"fixed-2ms-p2", "base", "linger100"},
	} {
		t.Run(tc.group+"/"+tc.setting, func(t *testing.T) {
			c := loadRealCase(t, "whatif-busy", tc.group, tc.setting, tc.to, whatifdata.Loaded, 0)
			r := c.predict(t)
			var logB int64
			for _, b := range r.LogBatches {
				logB += b
			}
			got := int64(r.Replay.TotalBatches().P50)
			if d := got - logB; d > max(1, logB/20) || -d > max(1, logB/20) {
				t.Errorf("fitted %+v: replay p50 %d batches, the log %d", r.Fit.Sender, got, logB)
			}
			t.Logf("log %d, replay p50 %d, fitted %+v", logB, got, r.Fit.Sender)
		})
	}
}
