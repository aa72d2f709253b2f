package whatifdata

import (
	"math"
	"sort"
	"strings"
	"testing"
)

// exactMedianDist enumerates every bootstrap resample of v (as counts per index, with their
// multinomial probabilities) and returns the distribution of the resample's median.
func exactMedianDist(v []float64) map[float64]float64 {
	n := len(v)
	s := append([]float64(nil), v...)
	sort.Float64s(s)
	out := map[float64]float64{}
	counts := make([]int, n)
	fact := func(k int) float64 {
		f := 1.0
		for i := 2; i <= k; i++ {
			f *= float64(i)
		}
		return f
	}
	var rec func(i, left int)
	rec = func(i, left int) {
		if i == n-1 {
			counts[i] = left
			p := fact(n) / math.Pow(float64(n), float64(n))
			var draw []float64
			for j, c := range counts {
				p /= fact(c)
				for range c {
					draw = append(draw, s[j])
				}
			}
			out[Median(draw)] += p
			return
		}
		for c := 0; c <= left; c++ {
			counts[i] = c
			rec(i+1, left-c)
		}
	}
	rec(0, n)
	return out
}

func exactQuantile(dist map[float64]float64, q float64) float64 {
	keys := make([]float64, 0, len(dist))
	for k := range dist {
		keys = append(keys, k)
	}
	sort.Float64s(keys)
	cum := 0.0
	for _, k := range keys {
		cum += dist[k]
		if cum >= q {
			return k
		}
	}
	return keys[len(keys)-1]
}

func TestMedianCI(t *testing.T) {
	cases := []struct {
		name string
		v    []float64
	}{
		{"distinct", []float64{97, 98, 100, 100, 101, 103, 104, 110}},
		{"spread", []float64{40, 41, 41, 42, 44, 47, 52, 60}},
		{"odd", []float64{10, 12, 13, 13, 14, 15, 19}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			lo, hi := MedianCI(c.v, 0.95, 20000, 7)
			lo2, hi2 := MedianCI(c.v, 0.95, 20000, 7)
			if lo != lo2 || hi != hi2 {
				t.Fatalf("same seed, different interval: [%v, %v] then [%v, %v]", lo, hi, lo2, hi2)
			}
			dist := exactMedianDist(c.v)
			elo, ehi := exactQuantile(dist, 0.025), exactQuantile(dist, 0.975)
			// With 20,000 resamples the sampled quantiles sit on or next to the exact ones.
			if math.Abs(lo-elo) > 0.5 || math.Abs(hi-ehi) > 0.5 {
				t.Errorf("interval [%v, %v], exact bootstrap quantiles [%v, %v]", lo, hi, elo, ehi)
			}
			med := Median(c.v)
			if !(lo <= med && med <= hi) {
				t.Errorf("interval [%v, %v] does not contain the median %v", lo, hi, med)
			}
		})
	}
	if lo, hi := MedianCI([]float64{5, 5, 5, 5, 5, 5, 5, 5}, 0.95, 500, 1); lo != 5 || hi != 5 {
		t.Errorf("constant sample: interval [%v, %v], want [5, 5]", lo, hi)
	}
}

func TestMedian(t *testing.T) {
	for _, c := range []struct {
		v    []float64
		want float64
	}{
		{[]float64{3}, 3},
		{[]float64{4, 1, 3}, 3},
		{[]float64{4, 1, 3, 2}, 2.5},
		{[]float64{100, 102, 98, 101, 99, 103, 97, 100}, 100},
	} {
		if got := Median(c.v); got != c.want {
			t.Errorf("Median(%v) = %v, want %v", c.v, got, c.want)
		}
	}
	if !math.IsNaN(Median(nil)) {
		t.Error("Median(nil) is not NaN")
	}
}

// testData: a keyed 2-partition group scored per partition and an unkeyed 3-partition group
// scored by its topic total, 8 real runs at each setting, calm only.
func testData() *Data {
	d := &Data{Groups: []Group{
		{Name: "k", Partitions: 2, Keyed: true, Keys: 8, Settings: []Setting{{Name: "a"}, {Name: "b"}}},
		{Name: "u", Partitions: 3, Settings: []Setting{{Name: "a"}, {Name: "b"}}},
	}}
	p0 := []int{100, 102, 98, 101, 99, 103, 97, 100} // median 100
	p1 := []int{10, 10, 11, 9, 10, 12, 10, 10}       // median 10
	tot := []int{60, 61, 62, 59, 60, 58, 60, 75}     // median 60
	for i := range 8 {
		d.Runs = append(d.Runs, Run{Group: "k", Setting: "b", Condition: Calm, Run: i,
			Partitions: []PartitionCount{{Partition: 0, Batches: p0[i]}, {Partition: 1, Batches: p1[i]}},
			Batches:    p0[i] + p1[i]})
		d.Runs = append(d.Runs, Run{Group: "u", Setting: "b", Condition: Calm, Run: i,
			Partitions: []PartitionCount{{Partition: 0, Batches: tot[i] / 3}, {Partition: 1, Batches: tot[i] / 3}, {Partition: 2, Batches: tot[i] - 2*(tot[i]/3)}},
			Batches:    tot[i]})
	}
	return d
}

func TestScore(t *testing.T) {
	d := testData()
	pred := func(g string, part int, log int, replay, p5, p50, p95 float64) Prediction {
		return Prediction{Group: g, From: "a", To: "b", Condition: Calm, Partition: part, LogBatches: log,
			Replay: Dist{P50: replay}, Predicted: Dist{Min: p5 - 1, P5: p5, P50: p50, P95: p95, Max: p95 + 1}}
	}
	cases := []struct {
		name               string
		p                  Prediction
		skipped            bool
		medianOK, replayOK bool
		inside             int
		tolerance          float64
	}{
		// 5% of 100 is the widest of the three bounds here; 104 is inside, 106 is not.
		{name: "p0 within 5%", p: pred("k", 0, 80, 80, 99, 104, 101), medianOK: true, replayOK: true, inside: 4, tolerance: 5},
		{name: "p0 beyond 5%", p: pred("k", 0, 80, 85, 90, 106, 110), medianOK: false, replayOK: false, inside: 8, tolerance: 5},
		// median 10: the 1-batch floor (5% is 0.5) unless the bootstrap interval is wider.
		{name: "p1 one batch", p: pred("k", 1, 10, 11, 9, 11, 12), medianOK: true, replayOK: true, inside: 8},
		{name: "p1 two off", p: pred("k", 1, 10, 12, 11, 12.5, 13), medianOK: false, replayOK: false, inside: 2},
		{name: "total", p: pred("u", TopicTotal, 40, 41.9, 58, 62, 62), medianOK: true, replayOK: true, inside: 7},
		{name: "unkeyed partition skipped", p: pred("u", 0, 20, 20, 1, 20, 30), skipped: true},
		{name: "keyed total skipped", p: pred("k", TopicTotal, 90, 90, 1, 110, 200), skipped: true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			res, err := Score(d, []Prediction{c.p}, Options{Seed: 3})
			if err != nil {
				t.Fatal(err)
			}
			if c.skipped {
				if res.Skipped != 1 || len(res.Items) != 0 {
					t.Fatalf("want skipped, got %d items, %d skipped", len(res.Items), res.Skipped)
				}
				return
			}
			if len(res.Items) != 1 {
				t.Fatalf("%d items", len(res.Items))
			}
			it := res.Items[0]
			if it.MedianOK != c.medianOK || it.ReplayOK != c.replayOK || it.Inside != c.inside || len(it.Real) != 8 {
				t.Errorf("median ok %v, replay ok %v, inside %d of %d; want %v, %v, %d of 8 (real median %v, tolerance %v, CI [%v, %v])",
					it.MedianOK, it.ReplayOK, it.Inside, len(it.Real), c.medianOK, c.replayOK, c.inside, it.RealMedian, it.Tolerance, it.CILow, it.CIHigh)
			}
			hw := (it.CIHigh - it.CILow) / 2
			if want := math.Max(math.Max(1, 0.05*it.RealMedian), hw); it.Tolerance != want {
				t.Errorf("tolerance %v, want max(1, 5%%, %v) = %v", it.Tolerance, hw, want)
			}
			if c.tolerance != 0 && it.Tolerance != c.tolerance {
				t.Errorf("tolerance %v, want %v (CI [%v, %v])", it.Tolerance, c.tolerance, it.CILow, it.CIHigh)
			}
		})
	}
}

// TestScoreBootstrapWidens: a real median whose runs spread widely is held to half its
// interval, wider than 5%.
func TestScoreBootstrapWidens(t *testing.T) {
	d := &Data{Groups: []Group{{Name: "k", Partitions: 1, Keyed: true, Settings: []Setting{{Name: "a"}, {Name: "b"}}}}}
	for i, b := range []int{40, 41, 41, 42, 44, 47, 52, 60} {
		d.Runs = append(d.Runs, Run{Group: "k", Setting: "b", Condition: Loaded, Run: i, Partitions: []PartitionCount{{Batches: b}}, Batches: b})
	}
	p := Prediction{Group: "k", From: "a", To: "b", Condition: Loaded, Predicted: Dist{P5: 40, P50: 46.5, P95: 60}}
	res, err := Score(d, []Prediction{p}, Options{Seed: 1, Resamples: 5000})
	if err != nil {
		t.Fatal(err)
	}
	it := res.Items[0]
	if it.RealMedian != 43 {
		t.Fatalf("real median %v, want 43", it.RealMedian)
	}
	if hw := (it.CIHigh - it.CILow) / 2; hw <= 0.05*43 || it.Tolerance != hw {
		t.Fatalf("tolerance %v, half-width %v: the interval should be wider than 5%%", it.Tolerance, hw)
	}
	if !it.MedianOK {
		t.Errorf("46.5 against a median of 43 with tolerance %v: want ok", it.Tolerance)
	}
	if it.Inside != 8 {
		t.Errorf("inside %d, want 8", it.Inside)
	}
}

func TestScoreErrors(t *testing.T) {
	d := testData()
	for _, p := range []Prediction{
		{Group: "nope", From: "a", To: "b", Condition: Calm},
		{Group: "k", From: "a", To: "zz", Condition: Calm},
		{Group: "k", From: "b", To: "a", Condition: Calm}, // no real runs at a
	} {
		if _, err := Score(d, []Prediction{p}, Options{}); err == nil {
			t.Errorf("%+v: no error", p)
		}
	}
}

func TestTallyAndTable(t *testing.T) {
	d := testData()
	preds := []Prediction{
		{Group: "k", From: "a", To: "b", Condition: Calm, Partition: 0, LogBatches: 50, Replay: Dist{P50: 50}, Predicted: Dist{P5: 97, P50: 100, P95: 103}},
		{Group: "k", From: "a", To: "b", Condition: Calm, Partition: 1, LogBatches: 50, Replay: Dist{P50: 60}, Predicted: Dist{P5: 20, P50: 20, P95: 20}},
		{Group: "u", From: "a", To: "b", Condition: Calm, Partition: TopicTotal, LogBatches: 50, Replay: Dist{P50: 51}, Predicted: Dist{P5: 58, P50: 60, P95: 62}},
	}
	res, err := Score(d, preds, Options{})
	if err != nil {
		t.Fatal(err)
	}
	all := res.Tally(nil)
	if all.Items != 3 || all.MedianOK != 2 || all.Runs != 24 || all.Inside != 8+0+7 || all.ReplayOK != 2 {
		t.Errorf("tally %+v", all)
	}
	by := res.ByGroup()
	if len(by) != 2 || by[0].Group != "k" || by[0].Items != 2 || by[1].Group != "u" || by[1].MedianOK != 1 {
		t.Errorf("by group %+v", by)
	}
	tab := res.Table()
	for _, want := range []string{"k ", "u ", "2/3", "15/24", "62%"} {
		if !strings.Contains(tab, want) {
			t.Errorf("table lacks %q:\n%s", want, tab)
		}
	}
}

// TestScoreSameState: the same-state prediction is the real runs at To at the log's quantile
// among the real runs at From, and meets the median criterion only where the log is near its
// own setting's median.
func TestScoreSameState(t *testing.T) {
	d := testData()
	for i, b := range []int{40, 44, 48, 50, 50, 52, 56, 60} { // the runs at a, partition 0
		d.Runs = append(d.Runs, Run{Group: "k", Setting: "a", Condition: Calm, Run: i,
			Partitions: []PartitionCount{{Partition: 0, Batches: b}}, Batches: b})
	}
	// the runs at b, partition 0, sorted: 97 98 99 100 100 101 102 103
	cases := []struct {
		log  int
		want float64
		ok   bool
	}{
		{log: 50, want: 100, ok: true},     // mid-rank 4 of 8: quantile 0.5
		{log: 40, want: 97.4375, ok: true}, // mid-rank 0.5 of 8: quantile 0.0625
		{log: 30, want: 97, ok: true},      // below every run: b's minimum
		{log: 70, want: 103, ok: true},     // above every run: b's maximum
	}
	for _, c := range cases {
		p := Prediction{Group: "k", From: "a", To: "b", Condition: Calm, Partition: 0, LogBatches: c.log,
			Replay: Dist{P50: float64(c.log)}, Predicted: Dist{P5: 1, P50: 1, P95: 1}}
		res, err := Score(d, []Prediction{p}, Options{Seed: 3})
		if err != nil {
			t.Fatal(err)
		}
		it := res.Items[0]
		if math.Abs(it.SameState-c.want) > 1e-9 || it.SameStateOK != c.ok || it.MedianOK {
			t.Errorf("log %d: same state %v (ok %v, median ok %v), want %v (ok %v)", c.log, it.SameState, it.SameStateOK, it.MedianOK, c.want, c.ok)
		}
		if tl := res.Tally(nil); tl.SameStateOK != 1 || tl.MedianOK != 0 {
			t.Errorf("log %d: tally %+v", c.log, tl)
		}
	}
	// a wide spread at b: the log's low quantile is far from b's median
	d = testData()
	for i := range 8 {
		d.Runs = append(d.Runs, Run{Group: "k", Setting: "a", Condition: Calm, Run: i,
			Partitions: []PartitionCount{{Partition: 1, Batches: 10 + i}}, Batches: 10 + i})
	}
	p := Prediction{Group: "k", From: "a", To: "b", Condition: Calm, Partition: 1, LogBatches: 10, Predicted: Dist{P50: 10}}
	res, err := Score(d, []Prediction{p}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	// the runs at b, partition 1, sorted: 9 10 10 10 10 10 11 12; quantile 0.0625: 9.4375
	if it := res.Items[0]; it.SameState != 9.4375 || !it.SameStateOK {
		t.Errorf("partition 1: same state %v ok %v", it.SameState, it.SameStateOK)
	}
	// the log at the top of a's runs: b's top, 1.56 batches over b's median (tolerance 1)
	p.LogBatches = 17
	if res, err = Score(d, []Prediction{p}, Options{}); err != nil {
		t.Fatal(err)
	}
	if it := res.Items[0]; it.SameState != 11.5625 || it.SameStateOK {
		t.Errorf("partition 1, log 17: same state %v ok %v (tolerance %v)", it.SameState, it.SameStateOK, it.Tolerance)
	}
	// no runs at From: NaN, not ok
	p = Prediction{Group: "u", From: "a", To: "b", Condition: Calm, Partition: TopicTotal, LogBatches: 60, Predicted: Dist{P50: 60}}
	if res, err = Score(testData(), []Prediction{p}, Options{}); err != nil || !math.IsNaN(res.Items[0].SameState) || res.Items[0].SameStateOK {
		t.Errorf("no runs at From: %+v, %v", res.Items, err)
	}
}

func TestParseWhatif(t *testing.T) {
	in := `{"type":"calibration","topic":"t","settings":{"linger.ms":"5"},"inferred":false,"sender":{},"replay_error":{"batches":0.01,"records_per_batch":0.02}}
{"type":"whatif","topic":"t","partition":2,"log":{"batches":40,"records":400,"records_per_batch":10},"replay":{"batches":{"min":38,"p5":39,"p50":40,"p95":42,"max":43}},"predicted":{"batches":{"min":18,"p5":19,"p50":20,"p95":22,"max":24},"records_per_batch":{"p5":18,"p50":20,"p95":21},"requests_p50":20}}
{"type":"whatif_topic","topic":"t","log":{"batches":120},"replay":{"batches":{"min":110,"p5":115,"p50":119,"p95":125,"max":130}},"predicted":{"batches":{"min":50,"p5":55,"p50":60,"p95":66,"max":70}}}
`
	ps, err := ParseWhatif(strings.NewReader(in), "g", Calm, "a", "b", 1)
	if err != nil {
		t.Fatal(err)
	}
	if len(ps) != 2 {
		t.Fatalf("%d predictions, want 2", len(ps))
	}
	if p := ps[0]; p.Partition != 2 || p.LogBatches != 40 || p.Replay.P50 != 40 || p.Predicted.P5 != 19 || p.Predicted.Max != 24 || p.Run != 1 || p.To != "b" {
		t.Errorf("partition record: %+v", p)
	}
	if p := ps[1]; p.Partition != TopicTotal || p.LogBatches != 120 || p.Predicted.P50 != 60 || p.Replay.P95 != 125 {
		t.Errorf("topic record: %+v", p)
	}
	if _, err := ParseWhatif(strings.NewReader("{not json\n"), "g", Calm, "a", "b", 0); err == nil {
		t.Error("bad JSON: no error")
	}
}
