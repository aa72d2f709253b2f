package whatifdata

import (
	"math"
	"testing"
)

func TestIntervalScore(t *testing.T) {
	item := func(p5, p95 float64, real ...int) Item {
		it := Item{Prediction: Prediction{Predicted: Dist{P5: p5, P95: p95}}, Real: real}
		vals := make([]float64, len(real))
		for i, v := range real {
			vals[i] = float64(v)
		}
		if len(real) > 0 {
			it.RealMedian = Median(vals)
		}
		return it
	}
	tests := []struct {
		name string
		it   Item
		want float64
	}{
		{"every run inside: the width over the median", item(90, 110, 95, 100, 105), 20.0 / 100},
		{"a run 10 below p5 costs 20 times 10", item(90, 110, 80, 100, 100), (20 + (20 + 200) + 20) / 3.0 / 100},
		{"a run above p95 alike", item(90, 110, 100, 100, 120), (20 + 20 + (20 + 200)) / 3.0 / 100},
		{"a point band on the runs scores 0", item(100, 100, 100, 100), 0},
		{"a median under 1 counts as 1", item(0, 2, 0, 0, 1), 2},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := tc.it.IntervalScore(); math.Abs(got-tc.want) > 1e-12 {
				t.Errorf("IntervalScore = %v, want %v", got, tc.want)
			}
		})
	}
	if got := (Item{}).IntervalScore(); !math.IsNaN(got) {
		t.Errorf("no real runs: %v, want NaN", got)
	}
	// a narrower band that still holds every run scores better; one beside the runs worse
	wide, narrow, missing := item(50, 150, 95, 100, 105), item(94, 106, 95, 100, 105), item(110, 112, 95, 100, 105)
	if !(narrow.IntervalScore() < wide.IntervalScore() && wide.IntervalScore() < missing.IntervalScore()) {
		t.Errorf("narrow %v, wide %v, missing %v: want narrow < wide < missing",
			narrow.IntervalScore(), wide.IntervalScore(), missing.IntervalScore())
	}
}

func TestMerit(t *testing.T) {
	tests := []struct {
		it   Item
		want float64
	}{
		{Item{MedianOK: true, ReplayOK: true, Inside: 8, Real: make([]int, 8)}, 3},
		{Item{MedianOK: true, Inside: 4, Real: make([]int, 8)}, 1.5},
		{Item{ReplayOK: true, Inside: 0, Real: make([]int, 8)}, 1},
		{Item{}, 0},
	}
	for i, tc := range tests {
		if got := tc.it.Merit(); got != tc.want {
			t.Errorf("case %d: Merit = %v, want %v", i, got, tc.want)
		}
	}
}

func TestLeaveOneGroupOut(t *testing.T) {
	// items of one group in one set, each with the given merit (MedianOK and Inside of 1 run)
	items := func(group string, merits ...int) []Item {
		var out []Item
		for _, m := range merits {
			it := Item{Prediction: Prediction{Group: group}, Real: []int{1}}
			it.MedianOK = m >= 1
			it.Inside = min(1, max(0, m-1))
			out = append(out, it)
		}
		return out
	}
	// Variant B is better on groups a and b, worse on c by much more: the fold that leaves c
	// out picks B, the others pick A. Sets x and y both hold a group named "a".
	a := Variant{Name: "A", Items: map[string][]Item{
		"x": append(append(items("a", 0, 0), items("b", 0, 0)...), items("c", 2, 2, 2, 2)...),
		"y": items("a", 1),
	}}
	b := Variant{Name: "B", Items: map[string][]Item{
		"x": append(append(items("a", 1, 1), items("b", 1, 1)...), items("c", 0, 0, 0, 0)...),
		"y": items("a", 1),
	}}
	got := LeaveOneGroupOut([]Variant{a, b}, Item.Merit, true)
	want := map[GroupKey]int{{"x", "a"}: 0, {"x", "b"}: 0, {"x", "c"}: 1, {"y", "a"}: 0}
	if len(got) != len(want) {
		t.Fatalf("folds %v, want %v", got, want)
	}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("fold %v picks %d, want %d (all %v)", k, got[k], v, got)
		}
	}
	// the same variant twice: a tie goes to the first
	for k, v := range LeaveOneGroupOut([]Variant{b, b}, Item.Merit, true) {
		if v != 0 {
			t.Errorf("tie at %v went to %d", k, v)
		}
	}
	// lower is better: the interval-score direction picks the other way round
	low := LeaveOneGroupOut([]Variant{a, b}, Item.Merit, false)
	if low[GroupKey{"x", "c"}] != 0 || low[GroupKey{"x", "a"}] != 1 {
		t.Errorf("lower-is-better folds %v", low)
	}
	if LeaveOneGroupOut(nil, Item.Merit, true) != nil {
		t.Error("no variants: want nil")
	}
}
