package whatif

import (
	"path/filepath"
	"slices"
	"sort"
	"testing"

	"github.com/kseg/kseg/internal/whatifdata"
	"github.com/kseg/kseg/producer"
)

// props turns a setting of the validation data into producer properties.
func props(s whatifdata.Setting) []producer.Property {
	var out []producer.Property
	for k, v := range s.Props {
		out = append(out, producer.Property{Key: k, Value: v})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Key < out[j].Key })
	return out
}

// TestWhatifValidationData replays the first logged run of each group's
// first setting (calm and loaded) under each of the group's other settings
// and scores the predictions against the real runs at those settings (the
// issue's criteria, whatifdata.Score), group by group, on every data set
// (testdata/whatif, whatif-busy, whatif-long and the three held-out sets). The floors are
// the figures measured when the test was written, less a margin for the
// runs' randomness (--runs 50 here, 200 in docs/calibration.md's table).
func TestWhatifValidationData(t *testing.T) {
	if testing.Short() {
		t.Skip("replays 8 to 24 logs a data set")
	}
	for _, set := range []string{"whatif", "whatif-busy", "whatif-long", "whatif-heldout", "whatif-heldout2", "whatif-heldout3"} {
		t.Run(set, func(t *testing.T) { validate(t, set) })
	}
}

func validate(t *testing.T, set string) {
	d, err := whatifdata.LoadDir(filepath.Join("..", "..", "testdata", set))
	if err != nil {
		t.Skipf("no what-if data: %v", err)
	}
	var preds []whatifdata.Prediction
	for _, g := range d.Groups {
		from := g.Settings[0]
		for _, cond := range []string{whatifdata.Calm, whatifdata.Loaded} {
			var logged *whatifdata.Run // the first run with its logs (runs 0 and 1, or a newer set's middle runs)
			for _, r := range d.RunsAt(g.Name, from.Name, cond) {
				if r.Logs != "" {
					logged = &r
					break
				}
			}
			if logged == nil {
				continue
			}
			parts, err := d.ExtractPartitions(*logged, t.TempDir())
			if err != nil {
				t.Fatal(err)
			}
			for _, to := range g.Settings[1:] {
				res, _, err := Run(parts, Options{Was: props(from), Set: props(to), Runs: 50, Seed: 1})
				if err != nil {
					t.Fatalf("%s %s %s→%s: %v", g.Name, cond, from.Name, to.Name, err)
				}
				preds = append(preds, predictions(res[0], g.Name, cond, from.Name, to.Name)...)
			}
		}
	}
	if len(preds) == 0 {
		t.Skip("the what-if data holds no logs")
	}
	sc, err := whatifdata.Score(d, preds, whatifdata.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("\n%s", sc.Table())
	for _, it := range sc.Items {
		if !it.ReplayOK {
			t.Logf("self-check off: %s %s %s→%s partition %d: log %d, replay p50 %.0f", it.Group, it.Condition, it.From, it.To, it.Partition, it.LogBatches, it.Replay.P50)
		}
	}
	for _, cond := range []string{whatifdata.Calm, whatifdata.Loaded} {
		tl := sc.Tally(func(it whatifdata.Item) bool { return it.Condition == cond })
		t.Logf("%s: median %d/%d, inside p5-p95 %d/%d, replay self-check %d/%d", cond, tl.MedianOK, tl.Items, tl.Inside, tl.Runs, tl.ReplayOK, tl.Items)
		f, ok := floors[set+"/"+cond]
		if !ok {
			t.Fatalf("no floors for %s/%s: measure them and add them", set, cond)
		}
		if tl.MedianShare() < f.median || tl.InsideShare() < f.inside || tl.ReplayShare() < f.replay {
			t.Errorf("%s: median %.2f (floor %.2f), inside %.2f (floor %.2f), self-check %.2f (floor %.2f)",
				cond, tl.MedianShare(), f.median, tl.InsideShare(), f.inside, tl.ReplayShare(), f.replay)
		}
	}
}

// floors of TestWhatifValidationData, per data set and condition: the
// figures measured at --runs 50, seed 1, less a margin for the runs'
// randomness.
var floors = map[string]struct{ median, inside, replay float64 }{
	// measured (the idle set, since the fit searches in two orders):
	// calm 16/22, 174/176, 22/22; loaded 15/22, 161/176, 14/22 (the
	// 200-run score of every pair, docs/calibration.md, has 70% and 59%
	// of medians and 98% and 100% of self-checks within: this subset of
	// 22 items at one seed is noisier; six of its self-checks off are one
	// log's, two another's, 8.6% under at 50 runs)
	"whatif/" + whatifdata.Calm:   {0.45, 0.85, 0.55},
	"whatif/" + whatifdata.Loaded: {0.55, 0.80, 0.55},
	// measured: calm 20/22, 115/176, 14/22; loaded 21/22, 128/176, 18/22
	"whatif-busy/" + whatifdata.Calm:   {0.85, 0.60, 0.55},
	"whatif-busy/" + whatifdata.Loaded: {0.85, 0.70, 0.75},
	// measured: calm 8/10, 70/80, 10/10; loaded 9/10, 61/80, 10/10
	"whatif-long/" + whatifdata.Calm:   {0.65, 0.80, 0.85},
	"whatif-long/" + whatifdata.Loaded: {0.70, 0.65, 0.85},
	// measured (held out: made after the model was frozen; since the
	// fit replays a log cut as the prediction cuts it, searches in two
	// orders, and the sender does its work after the drain): calm 3/8,
	// 57/64, 4/8; loaded 3/8, 52/64, 8/8. The four calm self-checks off
	// are one log's two partitions in two items (ho-fixed-400us-p2-keyed
	// base, run 3): 5.7% under at 50 runs, seed 1; within 0.2% at 200
	// runs (and the 200-run score of every pair has all self-checks
	// within, docs/calibration.md). Before the drain split: calm 4/8,
	// 63/64, 8/8; loaded 2/8, 64/64, 4/8 (the same kind of miss on a
	// loaded log)
	"whatif-heldout/" + whatifdata.Calm:   {0.25, 0.75, 0.45},
	"whatif-heldout/" + whatifdata.Loaded: {0.15, 0.75, 0.45},
	// measured (the second held-out set, made after the two-order fit,
	// nothing chosen on it): calm 9/12, 75/96, 12/12; loaded 10/12, 84/96,
	// 12/12
	"whatif-heldout2/" + whatifdata.Calm:   {0.55, 0.70, 0.85},
	"whatif-heldout2/" + whatifdata.Loaded: {0.65, 0.78, 0.85},
	// measured (the third held-out set, made at main 8da0b64, nothing
	// chosen on it): calm 20/20, 159/160, 20/20; loaded 17/20, 160/160,
	// 20/20
	"whatif-heldout3/" + whatifdata.Calm:   {0.85, 0.90, 0.90},
	"whatif-heldout3/" + whatifdata.Loaded: {0.70, 0.90, 0.90},
}

// predictions turns one topic's what-if into the scorer's predictions: one
// per partition and one for the topic's total.
func predictions(r *Result, group, cond, from, to string) []whatifdata.Prediction {
	dist := func(q producer.Quantiles) whatifdata.Dist {
		return whatifdata.Dist{Min: float64(q.Min), P5: float64(q.P5), P50: float64(q.P50), P95: float64(q.P95), Max: float64(q.Max)}
	}
	var out []whatifdata.Prediction
	var logTotal int64
	for p := range r.LogBatches {
		logTotal += r.LogBatches[p]
		out = append(out, whatifdata.Prediction{Group: group, From: from, To: to, Condition: cond, Partition: p,
			LogBatches: int(r.LogBatches[p]), Replay: dist(r.Replay.Batches(p)), Predicted: dist(r.Predicted.Batches(p))})
	}
	out = append(out, whatifdata.Prediction{Group: group, From: from, To: to, Condition: cond, Partition: whatifdata.TopicTotal,
		LogBatches: int(logTotal), Replay: dist(r.Replay.TotalBatches()), Predicted: dist(r.Predicted.TotalBatches())})
	return slices.Clip(out)
}
