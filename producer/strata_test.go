package producer

import (
	"math"
	"slices"
	"testing"
	"time"
)

func TestStratumZ(t *testing.T) {
	for _, n := range []int{1, 2, 7, 25, 200} {
		prev := math.Inf(-1)
		for i := range n {
			z := stratumZ(i, n)
			if math.IsNaN(z) || math.IsInf(z, 0) || z <= prev {
				t.Fatalf("n %d: stratum %d z %v after %v", n, i, z, prev)
			}
			if m := stratumZ(n-1-i, n); math.Abs(z+m) > 1e-9 {
				t.Errorf("n %d: strata %d and %d not symmetric: %v %v", n, i, n-1-i, z, m)
			}
			prev = z
		}
		if n%2 == 1 && stratumZ(n/2, n) != 0 {
			t.Errorf("n %d: the middle stratum is at %v, not the median", n, stratumZ(n/2, n))
		}
	}
	for _, n := range []int{7, 200} {
		for i := range n {
			if p := 0.5 * (1 + math.Erf(stratumZ(i, n)/math.Sqrt2)); math.Abs(p-(float64(i)+0.5)/float64(n)) > 1e-9 {
				t.Fatalf("stratum %d of %d at probability %v", i, n, p)
			}
		}
	}
}

// TestRunStrata: each sender's simulations of a window take every
// stratum once, in a window's own order.
func TestRunStrata(t *testing.T) {
	for _, tc := range []struct{ wins, runs, k int }{{1, 25, 1}, {3, 200, 4}, {2, 7, 3}, {5, 4, 4}, {1, 3, 4}} {
		st := runStrata(tc.wins, tc.runs, tc.k, 1)
		for w := range tc.wins {
			total := 0
			for i := range tc.k {
				s := slices.Clone(st[w][i])
				total += len(s)
				slices.Sort(s)
				for j, v := range s {
					if v != j {
						t.Fatalf("%+v window %d sender %d: strata %v are not a permutation", tc, w, i, st[w][i])
					}
				}
			}
			if total != tc.runs {
				t.Errorf("%+v window %d: %d strata for %d runs", tc, w, total, tc.runs)
			}
		}
		if tc.wins > 1 && tc.runs/tc.k > 3 && slices.Equal(st[0][0], st[1][0]) {
			t.Errorf("%+v: windows 0 and 1 share their order", tc)
		}
	}
}

// TestReplayRunSpeedsStratified: with the trace sender's run-to-run
// spread, the median of a few runs of a log whose batch count turns on
// the sender's speed (linger.ms=0) hardly depends on the seed: the runs
// cover the speed's distribution evenly instead of drawing from it. A
// fit scores each sender by such a median.
func TestReplayRunSpeedsStratified(t *testing.T) {
	cfg := DefaultConfig()
	cfg.Records, cfg.LingerMs, cfg.SendInterval = 4000, 0, 300*time.Microsecond
	cfg.Timing = Timing{}
	dir, _ := runTo(t, cfg)
	tr := traceFromDir(t, dir, cfg.Partitions)
	s := Sender{Lag: 300 * time.Microsecond, Close: 50 * time.Microsecond, RTT: 2 * time.Millisecond, Jitter: senderJitter, RunJitter: senderRunJitter, RTTJitter: senderRTTJitter}
	var p50s []int
	for seed := range uint64(6) {
		rr, err := Replay([]*Trace{tr}, cfg, s, ReplayOptions{Runs: 9, Seed: seed + 1})
		if err != nil {
			t.Fatal(err)
		}
		q := rr.TotalBatches()
		p50s = append(p50s, q.P50)
		if seed == 0 && q.P95-q.P5 < q.P50/4 {
			t.Fatalf("runs p5-p95 %d-%d around %d: the case does not turn on the sender's speed", q.P5, q.P95, q.P50)
		}
	}
	lo, hi := slices.Min(p50s), slices.Max(p50s)
	if float64(hi-lo) > 0.05*float64(hi) {
		t.Errorf("medians of 9 runs over 6 seeds: %v (%d-%d)", p50s, lo, hi)
	}
	t.Logf("medians of 9 runs over 6 seeds: %v", p50s)
}
