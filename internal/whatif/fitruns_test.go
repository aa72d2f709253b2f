package whatif

import (
	"math"
	"testing"

	"github.com/kseg/kseg/internal/whatifdata"
	"github.com/kseg/kseg/producer"
)

// TestFitRunsOnSpeedCutLog: a linger.ms=0 log (zstd, a send every 200 µs
// over 5 unkeyed partitions) is cut by the sender's speed, and with the
// what-if run-to-run spread its replays range over a factor of ten. Scored
// by the median of 16 runs (the count the fit took for a log this size
// before WhatifFitDraws) the search settled on a sender whose 200-run
// replay gave 8,731 batches for the log's 7,888 (+10.7%); by 25, within 1%.
func TestFitRunsOnSpeedCutLog(t *testing.T) {
	c := loadRealCase(t, "whatif-heldout2", "ho2-fixed-200us-p5", "linger0", "base", whatifdata.Calm, 3)
	// 200 runs, as kseg whatif runs by default: the replay of 50 runs
	// of a spread this wide has a median of its own noise (5%)
	res, _, err := Run(c.parts, Options{Was: props(c.from), Set: props(c.to), Runs: 200, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	r := res[0]
	var log int64
	for _, n := range r.LogBatches {
		log += n
	}
	replay := int64(r.Replay.TotalBatches().P50)
	if off := math.Abs(float64(replay-log)) / float64(log); off > 0.05 {
		t.Errorf("the replay under linger.ms=0: %d batches for the log's %d (%.1f%% off); the fit's median rests on %d draws", replay, log, 100*off, producer.WhatifFitDraws)
	}
	t.Logf("log %d, replay p50 %d, fit %+.3f", log, replay, r.Fit.BatchError)
}
