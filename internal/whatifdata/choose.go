package whatifdata

import "math"

// IntervalScore is the item's interval score for its predicted p5–p95 (a central 90% interval,
// Gneiting and Raftery's proper score): for each real run x, the width p95 − p5 plus 20 times
// how far x falls below p5 or above p95; the mean over the real runs, over the real median (at
// least 1), so that items of different sizes add up. Lower is better: a band is rewarded for
// being narrow and punished for missing.
func (it Item) IntervalScore() float64 {
	if len(it.Real) == 0 {
		return math.NaN()
	}
	const alpha = 0.1
	lo, hi := it.Predicted.P5, it.Predicted.P95
	var sum float64
	for _, v := range it.Real {
		x := float64(v)
		sum += hi - lo + 2/alpha*(max(0, lo-x)+max(0, x-hi))
	}
	return sum / float64(len(it.Real)) / max(it.RealMedian, 1)
}

// Merit is the item's share of the three figures, each counted once: its median within
// tolerance, its replay's self-check, and the share of its real runs inside p5–p95 (0 to 3).
func (it Item) Merit() float64 {
	m := float64(it.Inside) / float64(max(1, len(it.Real)))
	if it.MedianOK {
		m++
	}
	if it.ReplayOK {
		m++
	}
	return m
}

// GroupKey names a group of one data set (two sets may hold groups of the same name).
type GroupKey struct{ Set, Group string }

// Variant is one model's scored items over one or more data sets.
type Variant struct {
	Name  string
	Items map[string][]Item // by data set
}

// LeaveOneGroupOut chooses, for each group of the variants' sets, the variant that does best on
// every other group: the highest sum of better(item) over their items when higher is true, the
// lowest when false. A tie goes to the variant listed first (the model as it is, by
// convention). Every variant must hold the same items; the groups come from the first.
func LeaveOneGroupOut(vs []Variant, better func(Item) float64, higher bool) map[GroupKey]int {
	if len(vs) == 0 {
		return nil
	}
	// each variant's total by group, then each fold's total is the variant's sum less the group
	byGroup := make([]map[GroupKey]float64, len(vs))
	total := make([]float64, len(vs))
	for i, v := range vs {
		byGroup[i] = map[GroupKey]float64{}
		for set, items := range v.Items {
			for _, it := range items {
				s := better(it)
				byGroup[i][GroupKey{set, it.Group}] += s
				total[i] += s
			}
		}
	}
	out := map[GroupKey]int{}
	for set, items := range vs[0].Items {
		for _, it := range items {
			g := GroupKey{set, it.Group}
			if _, done := out[g]; done {
				continue
			}
			best := 0
			for i := range vs {
				a, b := total[i]-byGroup[i][g], total[best]-byGroup[best][g]
				if (higher && a > b+1e-9) || (!higher && a < b-1e-9) {
					best = i
				}
			}
			out[g] = best
		}
	}
	return out
}
