package explain

import (
	"math/rand/v2"
	"testing"
)

// lowerEstimate is a floor: no state in [lo, hi] updates below it, and a
// rise by the deteriorate step alone reaches it.
func TestLowerEstimateIsAFloor(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for range 100000 {
		lo := 0.2 + 0.8*rng.Float32()
		hi := lo + 0.3*rng.Float32()
		obs := 0.1 + rng.Float32()
		floor := lowerEstimate(lo, hi, obs)
		for _, e := range []float32{lo, hi, lo + (hi-lo)*rng.Float32(), obs} {
			if e < lo || e > hi {
				continue
			}
			if got := updateEstimate(e, obs); got < floor {
				t.Fatalf("lowerEstimate(%v, %v, %v) = %v above updateEstimate(%v) = %v", lo, hi, obs, floor, e, got)
			}
		}
	}
	for _, c := range []struct{ lo, hi, obs, want float32 }{
		{0.826, 0.826, 0.881, 0.876}, // a rise: the step alone, not to the observed 0.881
		{0.80, 0.85, 0.30, 0.795},    // a fall
		{0.80, 0.90, 0.82, 0.82},     // either: the states above fall to obs
		{0.50, 0.90, 0.52, 0.52},
		{0.50, 0.90, 0.60, 0.55},
	} {
		if got := lowerEstimate(c.lo, c.hi, c.obs); got-c.want > 1e-6 || c.want-got > 1e-6 {
			t.Errorf("lowerEstimate(%v, %v, %v) = %v, want %v", c.lo, c.hi, c.obs, got, c.want)
		}
	}
}
