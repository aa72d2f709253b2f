package whatifdata

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"sort"
	"strings"
)

// Dist is a predicted distribution of a batch count over the model's runs, as `kseg whatif
// --json` prints it ("min", "p5", "p50", "p95", "max").
type Dist struct {
	Min float64 `json:"min"`
	P5  float64 `json:"p5"`
	P50 float64 `json:"p50"`
	P95 float64 `json:"p95"`
	Max float64 `json:"max"`
}

// TopicTotal as a Prediction's Partition: the prediction is for the topic's total.
const TopicTotal = -1

// Prediction is one what-if answer to be scored: the log of run Run of Group at setting From
// (under Condition) replayed under setting To, for one partition or the topic's total.
type Prediction struct {
	Group, From, To, Condition string
	Run                        int // the run at From whose log was replayed
	Partition                  int // TopicTotal for a whatif_topic record
	LogBatches                 int // the replayed log's own batch count
	Replay                     Dist
	Predicted                  Dist
}

// whatifLine is the part of a `kseg whatif --json` record the scorer reads.
type whatifLine struct {
	Type      string `json:"type"`
	Partition int    `json:"partition"`
	Log       struct {
		Batches int `json:"batches"`
	} `json:"log"`
	Replay struct {
		Batches Dist `json:"batches"`
	} `json:"replay"`
	Predicted struct {
		Batches Dist `json:"batches"`
	} `json:"predicted"`
}

// ParseWhatif reads the NDJSON of one `kseg whatif --json` invocation (the log of run `run` of
// group at setting from, condition cond, replayed under setting to) and returns its "whatif"
// (per partition) and "whatif_topic" (topic total) records as predictions; other records
// ("calibration") are skipped.
func ParseWhatif(r io.Reader, group, cond, from, to string, run int) ([]Prediction, error) {
	var out []Prediction
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 4<<20)
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		if line == "" {
			continue
		}
		var w whatifLine
		if err := json.Unmarshal([]byte(line), &w); err != nil {
			return nil, fmt.Errorf("line %d: %w", n, err)
		}
		p := Prediction{Group: group, From: from, To: to, Condition: cond, Run: run,
			Partition: w.Partition, LogBatches: w.Log.Batches, Replay: w.Replay.Batches, Predicted: w.Predicted.Batches}
		switch w.Type {
		case "whatif":
		case "whatif_topic":
			p.Partition = TopicTotal
		default:
			continue
		}
		out = append(out, p)
	}
	return out, sc.Err()
}

// Options tune Score. Zero values take the defaults.
type Options struct {
	Resamples int    // bootstrap resamples for the real median's interval (default 2000)
	Seed      uint64 // bootstrap seed (default 1); every item uses the same seed
}

// Item is one scored prediction: the two criteria at B and the replay's self-check.
type Item struct {
	Prediction
	Real       []int   // the real runs' batch counts at To (same group, condition, partition or total)
	RealMedian float64 // their median
	CILow      float64 // the real median's 95% bootstrap interval
	CIHigh     float64
	Tolerance  float64 // max(1 batch, 5% of the real median, half the interval's width)
	MedianOK   bool    // |predicted p50 − real median| <= Tolerance
	Inside     int     // real runs with predicted p5 <= batches <= p95
	ReplayTol  float64 // max(1 batch, 5% of the log's own batch count)
	ReplayOK   bool    // |replay p50 − the log's batches| <= ReplayTol
	// SameState is what a model exact on the setting's effect would predict from this log if
	// the machine's state in the log's run carried over to B: the real runs at B at the
	// quantile the log holds among the real runs at From (same group, condition, partition or
	// total; mid-rank). SameStateOK is whether that prediction meets the median criterion:
	// the share of items where it does is the ceiling of the median criterion for a model that
	// follows the log (a log from a slow minute of the machine predicts a slow run). NaN and
	// false when the data has no runs at From.
	SameState   float64
	SameStateOK bool
}

// Tally adds up items.
type Tally struct {
	Group, Condition string // "" when the tally spans several
	Items            int    // scored (pair, partition) or (pair, topic total)
	MedianOK         int
	SameStateOK      int // items whose same-state prediction meets the median criterion (Item.SameStateOK)
	Runs             int // real runs compared with a p5–p95 band (an item counts its runs at B)
	Inside           int
	ReplayOK         int // items whose replay meets its self-check (one per item)
}

// MedianShare, InsideShare and ReplayShare are the criteria as fractions (NaN without items).
func (t Tally) MedianShare() float64 { return frac(t.MedianOK, t.Items) }
func (t Tally) InsideShare() float64 { return frac(t.Inside, t.Runs) }
func (t Tally) ReplayShare() float64 { return frac(t.ReplayOK, t.Items) }

// SameStateShare is the share of items whose same-state prediction meets the median criterion:
// the median criterion's ceiling for a model that follows the log (Item.SameState).
func (t Tally) SameStateShare() float64 { return frac(t.SameStateOK, t.Items) }

func frac(a, b int) float64 {
	if b == 0 {
		return math.NaN()
	}
	return float64(a) / float64(b)
}

func (t *Tally) add(it Item) {
	t.Items++
	if it.MedianOK {
		t.MedianOK++
	}
	if it.SameStateOK {
		t.SameStateOK++
	}
	t.Runs += len(it.Real)
	t.Inside += it.Inside
	if it.ReplayOK {
		t.ReplayOK++
	}
}

// Result is a scored set of predictions.
type Result struct {
	Items []Item
	// Skipped counts predictions not scored: a per-partition record of a group scored by its
	// topic total, or a topic total of a group scored per partition.
	Skipped int
}

// Score scores predictions against the real runs of d. A group whose topic is unkeyed over
// several partitions (Group.TopicTotal) is scored by its topic totals, any other per
// partition; the other kind of record is skipped. Real runs are those of the prediction's
// group, setting To and condition. A prediction naming an unknown group or setting, or one with
// no real run to compare with, is an error.
func Score(d *Data, preds []Prediction, opt Options) (Result, error) {
	if opt.Resamples <= 0 {
		opt.Resamples = 2000
	}
	if opt.Seed == 0 {
		opt.Seed = 1
	}
	var res Result
	for _, p := range preds {
		g, ok := d.Group(p.Group)
		if !ok {
			return res, fmt.Errorf("prediction for unknown group %q", p.Group)
		}
		for _, s := range []string{p.From, p.To} {
			if _, ok := g.Setting(s); !ok {
				return res, fmt.Errorf("group %s has no setting %q", p.Group, s)
			}
		}
		if (p.Partition == TopicTotal) != g.TopicTotal() {
			res.Skipped++
			continue
		}
		it := Item{Prediction: p}
		it.Real = d.batchesAt(p.Group, p.To, p.Condition, p.Partition)
		if len(it.Real) == 0 {
			return res, fmt.Errorf("no real runs for %s %s %s partition %d", p.Group, p.To, p.Condition, p.Partition)
		}
		vals := make([]float64, len(it.Real))
		for i, v := range it.Real {
			vals[i] = float64(v)
		}
		it.RealMedian = Median(vals)
		it.CILow, it.CIHigh = MedianCI(vals, 0.95, opt.Resamples, opt.Seed)
		it.Tolerance = max(1, 0.05*it.RealMedian, (it.CIHigh-it.CILow)/2)
		it.MedianOK = math.Abs(p.Predicted.P50-it.RealMedian) <= it.Tolerance
		it.SameState = sameState(p.LogBatches, d.batchesAt(p.Group, p.From, p.Condition, p.Partition), vals)
		it.SameStateOK = math.Abs(it.SameState-it.RealMedian) <= it.Tolerance
		for _, v := range vals {
			if v >= p.Predicted.P5 && v <= p.Predicted.P95 {
				it.Inside++
			}
		}
		it.ReplayTol = max(1, 0.05*float64(p.LogBatches))
		it.ReplayOK = math.Abs(p.Replay.P50-float64(p.LogBatches)) <= it.ReplayTol
		res.Items = append(res.Items, it)
	}
	return res, nil
}

// batchesAt is the batch counts of the runs of group at setting under cond, for one partition
// or the topic's total (TopicTotal).
func (d *Data) batchesAt(group, setting, cond string, partition int) []int {
	var out []int
	for _, r := range d.RunsAt(group, setting, cond) {
		if partition == TopicTotal {
			out = append(out, r.Batches)
			continue
		}
		for _, pc := range r.Partitions {
			if pc.Partition == partition {
				out = append(out, pc.Batches)
			}
		}
	}
	return out
}

// sameState is the value of to at the quantile (mid-rank) that log holds among from: NaN when
// from is empty.
func sameState(log int, from []int, to []float64) float64 {
	if len(from) == 0 || len(to) == 0 {
		return math.NaN()
	}
	var rank float64
	for _, v := range from {
		switch {
		case v < log:
			rank++
		case v == log:
			rank += 0.5
		}
	}
	s := append([]float64(nil), to...)
	sort.Float64s(s)
	return quantile(s, rank/float64(len(from)))
}

// Tally adds up the items that keep returns true for (all when keep is nil).
func (r Result) Tally(keep func(Item) bool) Tally {
	var t Tally
	for _, it := range r.Items {
		if keep == nil || keep(it) {
			t.add(it)
		}
	}
	return t
}

// ByGroup tallies the items per (group, condition), in the order the groups first appear, calm
// before loaded.
func (r Result) ByGroup() []Tally {
	idx := map[[2]string]int{}
	var out []Tally
	for _, it := range r.Items {
		k := [2]string{it.Group, it.Condition}
		i, ok := idx[k]
		if !ok {
			i = len(out)
			idx[k] = i
			out = append(out, Tally{Group: it.Group, Condition: it.Condition})
		}
		out[i].add(it)
	}
	first := map[string]int{}
	for i, t := range out {
		if _, ok := first[t.Group]; !ok {
			first[t.Group] = i
		}
	}
	sort.SliceStable(out, func(i, j int) bool {
		if out[i].Group != out[j].Group {
			return first[out[i].Group] < first[out[j].Group]
		}
		return out[i].Condition < out[j].Condition // "calm" < "loaded"
	})
	return out
}

// Table renders the tallies by group and condition and the totals per condition, one line each.
func (r Result) Table() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%-24s %-7s %6s %15s %19s %15s %15s\n", "group", "cond", "items", "median ok", "runs in p5-p95", "replay ok", "same-state")
	line := func(t Tally, g, c string) {
		fmt.Fprintf(&b, "%-24s %-7s %6d %4d/%-4d %4s %5d/%-5d %5s %4d/%-4d %4s %4d/%-4d %4s\n", g, c, t.Items,
			t.MedianOK, t.Items, pct(t.MedianShare()), t.Inside, t.Runs, pct(t.InsideShare()),
			t.ReplayOK, t.Items, pct(t.ReplayShare()), t.SameStateOK, t.Items, pct(t.SameStateShare()))
	}
	for _, t := range r.ByGroup() {
		line(t, t.Group, t.Condition)
	}
	for _, c := range []string{Calm, Loaded} {
		line(r.Tally(func(it Item) bool { return it.Condition == c }), "all", c)
	}
	line(r.Tally(nil), "all", "both")
	return b.String()
}

func pct(x float64) string {
	if math.IsNaN(x) {
		return "-"
	}
	return fmt.Sprintf("%.0f%%", 100*x)
}

// Median is the sample median (the mean of the two middle values for an even count).
func Median(v []float64) float64 {
	if len(v) == 0 {
		return math.NaN()
	}
	s := append([]float64(nil), v...)
	sort.Float64s(s)
	n := len(s)
	if n%2 == 1 {
		return s[n/2]
	}
	return (s[n/2-1] + s[n/2]) / 2
}

// quantile is the q-quantile of sorted s, linear between order statistics (type 7).
func quantile(s []float64, q float64) float64 {
	if len(s) == 1 {
		return s[0]
	}
	h := q * float64(len(s)-1)
	i := int(math.Floor(h))
	if i >= len(s)-1 {
		return s[len(s)-1]
	}
	return s[i] + (h-float64(i))*(s[i+1]-s[i])
}

// MedianCI is the percentile bootstrap interval of the median at the given level: resamples
// draws of len(v) values with replacement, from a PCG generator seeded with seed, the median of
// each, and the (1−level)/2 and (1+level)/2 quantiles of those medians.
func MedianCI(v []float64, level float64, resamples int, seed uint64) (lo, hi float64) {
	n := len(v)
	if n == 0 {
		return math.NaN(), math.NaN()
	}
	r := rand.New(rand.NewPCG(seed, 0x5eed))
	meds := make([]float64, resamples)
	draw := make([]float64, n)
	for i := range meds {
		for j := range draw {
			draw[j] = v[r.IntN(n)]
		}
		meds[i] = Median(draw)
	}
	sort.Float64s(meds)
	return quantile(meds, (1-level)/2), quantile(meds, (1+level)/2)
}
