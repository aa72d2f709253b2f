package report

import (
	"strings"
	"testing"

	"github.com/kseg/kseg/producer"
)

// A one-setting sweep's caption names its rows only: there is no
// "columns: ." for the one column of layouts.
func TestSweepCaption(t *testing.T) {
	one := &producer.SweepPlan{Axes: []producer.Axis{{Flag: "linger-ms"}},
		Points: []producer.SweepPoint{{Name: "linger-ms=0", Values: []string{"0"}}, {Name: "linger-ms=5", Values: []string{"5"}}}}
	two := &producer.SweepPlan{Axes: []producer.Axis{{Flag: "linger-ms"}, {Flag: "batch-size"}},
		Points: []producer.SweepPoint{{Name: "a", Values: []string{"0", "1024"}}}}
	for _, tc := range []struct {
		plan *producer.SweepPlan
		want string
	}{
		{one, "<p class=\"meta\">Rows: linger-ms. Each cell:"},
		{two, "<p class=\"meta\">Rows: linger-ms; columns: batch-size. Each cell:"},
	} {
		var sb strings.Builder
		var runs []Run
		for _, p := range tc.plan.Points {
			runs = append(runs, Run{Name: p.Name, Sweep: tc.plan})
		}
		sweepMatrices(&sb, runs)
		if got := sb.String(); !strings.Contains(got, tc.want) || strings.Contains(got, "columns: .") {
			t.Errorf("caption:\n%s\nwant %q", got, tc.want)
		}
	}
}
