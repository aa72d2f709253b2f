package calibrate

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"

	"github.com/kseg/kseg/producer"
)

// Totals sums the Results of several cases.
type Totals struct {
	Cases, Checks, RealRuns    int
	OutsideRuns, Off           int
	OffWide, InsideP90         int
	MedianErr, Shape, Progress float64
	Misses                     []string // cases with a run outside the range or a median more than 5% off
}

// Sum adds up rs.
func Sum(rs []Result) Totals {
	var t Totals
	for _, r := range rs {
		t.Cases++
		t.Checks += r.Checks
		t.RealRuns += r.RealRuns
		t.OutsideRuns += r.OutsideRuns
		t.Off += len(r.Off)
		t.OffWide += r.OffWide
		t.InsideP90 += r.InsideP90
		t.MedianErr += r.MedianErr
		t.Shape += r.Shape
		t.Progress += r.ProgressErr
		if len(r.Outside)+len(r.Off) > 0 {
			t.Misses = append(t.Misses, r.Case)
		}
	}
	return t
}

// Add is t and u together (the folds of a k-fold, say).
func (t Totals) Add(u Totals) Totals {
	t.Cases += u.Cases
	t.Checks += u.Checks
	t.RealRuns += u.RealRuns
	t.OutsideRuns += u.OutsideRuns
	t.Off += u.Off
	t.OffWide += u.OffWide
	t.InsideP90 += u.InsideP90
	t.MedianErr += u.MedianErr
	t.Shape += u.Shape
	t.Progress += u.Progress
	t.Misses = append(slices.Clip(t.Misses), u.Misses...)
	return t
}

// Score is the figure a fit lowers: 10 per real partition run outside the
// model's min–max, 10 per check whose model median is more than 5% off the
// real one, and 100 times the sum of those median errors beyond 5%. 0
// meets the range and median criteria on every case.
func (t Totals) Score() float64 {
	return float64(10*t.OutsideRuns+10*t.Off) + 100*t.MedianErr
}

// Line is the one-line summary the calibration tool prints:
//
//	FIT score=S outside=O medianoff=M offwide=W p90=P shape=D progress=G misses=...
//
// O real partition runs outside the min–max, M checks more than 5% off,
// W checks off by more than max(1 batch, 5%, the real median's bootstrap
// half-width), P the share of real runs inside the model's p5–p95.
func (t Totals) Line() string {
	p90 := 0.0
	if t.RealRuns > 0 {
		p90 = float64(t.InsideP90) / float64(t.RealRuns)
	}
	return fmt.Sprintf("FIT score=%.1f outside=%d/%d medianoff=%d/%d offwide=%d/%d p90=%.2f shape=%.2f progress=%.3f misses=%s",
		t.Score(), t.OutsideRuns, t.RealRuns, t.Off, t.Checks, t.OffWide, t.Checks, p90, t.Shape, t.Progress, strings.Join(t.Misses, ","))
}

// BootMedian gives, for each check of case c, how often the 5% median
// criterion holds when the "real" runs are drawn from the model's own
// runs (4000 draws, with replacement, of as many runs as the case has):
// how fragile the criterion is where the model were exactly right.
func BootMedian(c *Case, cfg producer.Config, runs int) ([]string, error) {
	env, err := producer.Simulate(cfg, runs)
	if err != nil {
		return nil, err
	}
	rng := rand.New(rand.NewPCG(1, 2))
	const draws = 4000
	var out []string
	for _, ck := range Checks(c, cfg, env, runs) {
		med := float64(LowerMedian(ck.Model))
		pooled := len(ck.Model) / runs // partitions per run in the check
		ok := 0
		for range draws {
			var s []int
			for range len(c.Runs) {
				r := rng.IntN(runs)
				for q := range pooled {
					s = append(s, ck.Model[q*runs+r])
				}
			}
			if m := MedianOf(s); math.Abs(med-m) <= 0.05*m {
				ok++
			}
		}
		out = append(out, fmt.Sprintf("BOOT %s %s met=%.2f model-p50=%v real=%v", c.Case, ck.Name, float64(ok)/draws, med, ck.Real))
	}
	return out, nil
}
