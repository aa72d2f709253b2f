package whatif

import (
	"testing"

	"github.com/kseg/kseg/internal/whatifdata"
)

// TestSwitchBatchesLeaveAlone: unkeyed lz4 records over 6 partitions at
// batch.size 65536 and linger.ms 20 (every batch cut by linger.ms; the
// sticky partitioner switches when a drained batch empties its deque).
// The real runs make 225-241 batches and almost never send a new sticky
// partition's first records with the old partition's last batch. A
// sender that spends its whole per-batch work inside the drain loop (as
// against only the codec's close, as Java does) leaves the application
// time to open the new partition's batch before the loop reaches it, and
// predicts 256 batches from a fast sender's linger.ms=1 log; the
// prediction must be within max(1 batch, 5%) of the real median.
func TestSwitchBatchesLeaveAlone(t *testing.T) {
	const group = "ho-poisson-250us-p6"
	c := loadRealCase(t, "whatif-heldout", group, "linger1", "batch64k", whatifdata.Calm, -1)
	median, real := c.realAtTo(t)
	r := c.predict(t)
	got := r.Predicted.TotalBatches().P50
	if diff := float64(got) - median; diff > max(1, 0.05*median) || -diff > max(1, 0.05*median) {
		t.Errorf("predicted %d batches at batch.size=65536, the real median %.1f (runs %v); fitted %+v", got, median, real, r.Fit.Sender)
	}
	t.Logf("predicted %d, real median %.1f", got, median)
}
