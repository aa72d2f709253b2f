package whatif

import (
	"path/filepath"
	"slices"
	"sort"
	"testing"

	"github.com/kseg/kseg/internal/whatifdata"
	"github.com/kseg/kseg/producer"
	"github.com/kseg/kseg/segment"
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

// TestWhatifValidationData replays run 0 of each group's first setting
// (calm and loaded) under each of the group's other settings and scores the
// predictions against the real runs at those settings (the issue's
// criteria, whatifdata.Score), group by group. The model's constants were
// set before this data existed, so every group is held out. The floors are
// the figures measured when the test was written, less a margin for the
// runs' randomness (--runs 50 here, 200 in docs/calibration.md's table).
func TestWhatifValidationData(t *testing.T) {
	if testing.Short() {
		t.Skip("replays 24 logs")
	}
	d, err := whatifdata.LoadDir(filepath.Join("..", "..", "testdata", "whatif"))
	if err != nil {
		t.Skipf("no what-if data: %v", err)
	}
	var preds []whatifdata.Prediction
	for _, g := range d.Groups {
		from := g.Settings[0]
		for _, cond := range []string{whatifdata.Calm, whatifdata.Loaded} {
			runs := d.RunsAt(g.Name, from.Name, cond)
			if len(runs) == 0 || runs[0].Logs == "" {
				continue
			}
			dirs, err := d.Extract(runs[0], t.TempDir())
			if err != nil {
				t.Fatal(err)
			}
			parts, err := segment.Partitions(dirs)
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
	for _, cond := range []string{whatifdata.Calm, whatifdata.Loaded} {
		tl := sc.Tally(func(it whatifdata.Item) bool { return it.Condition == cond })
		t.Logf("%s: median %d/%d, inside p5-p95 %d/%d, replay self-check %d/%d", cond, tl.MedianOK, tl.Items, tl.Inside, tl.Runs, tl.ReplayOK, tl.Items)
		if f := floors[cond]; tl.MedianShare() < f.median || tl.InsideShare() < f.inside || tl.ReplayShare() < f.replay {
			t.Errorf("%s: median %.2f (floor %.2f), inside %.2f (floor %.2f), self-check %.2f (floor %.2f)",
				cond, tl.MedianShare(), f.median, tl.InsideShare(), f.inside, tl.ReplayShare(), f.replay)
		}
	}
}

// floors of TestWhatifValidationData, per condition.
var floors = map[string]struct{ median, inside, replay float64 }{
	// measured at --runs 50, seed 1: calm 21/22, 116/176, 16/22;
	// loaded 21/22, 130/176, 20/22
	whatifdata.Calm:   {0.85, 0.55, 0.65},
	whatifdata.Loaded: {0.85, 0.65, 0.80},
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
