package report

import (
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/kseg/kseg/segment"
)

// ticks are the x tick labels of an SVG chart (below the plot), in order.
func ticks(svg string) []string {
	re := regexp.MustCompile(`<text class="tick" x="[0-9.]+" y="` + strconv.Itoa(padT+plotH+14) + `" text-anchor="middle">([^<]*)</text>`)
	var out []string
	for _, m := range re.FindAllStringSubmatch(svg, -1) {
		out = append(out, m[1])
	}
	return out
}

// The time axis counts in a unit that fits its span: two hours read in
// minutes, not "2M 4M 6M" ms.
func TestTimeAxisUnits(t *testing.T) {
	for _, tc := range []struct {
		spanMs int64
		label  string
		ticks  string
	}{
		{1500, "ms after first batch", "0 500 1000 1500"},
		{45_000, "s after first batch", "0 10 20 30 40"},
		{2 * 3600_000, "min after first batch", "0 20 40 60 80 100 120"},
		{30 * 3600_000, "h after first batch", "0 5 10 15 20 25 30"},
	} {
		pd := &PartitionData{Name: "t-0", Stats: &segment.Stats{MinTimestamp: 1_700_000_000_000, MaxTimestamp: 1_700_000_000_000 + tc.spanMs},
			Points: []BatchPoint{{Records: 5, MaxTimestamp: 1_700_000_000_000}, {Records: 3, MaxTimestamp: 1_700_000_000_000 + tc.spanMs}}}
		svg := timeSVG(pd)
		if !strings.Contains(svg, ">"+tc.label+" (max timestamp)<") {
			t.Errorf("span %d ms: axis title not %q", tc.spanMs, tc.label)
		}
		if got := strings.Join(ticks(svg), " "); got != tc.ticks {
			t.Errorf("span %d ms: ticks %q, want %q", tc.spanMs, got, tc.ticks)
		}
	}
}

// A histogram dominated by one count is drawn on a log scale so the other
// bars show; labels that would overlap are thinned.
func TestHistogramScaleAndLabels(t *testing.T) {
	pd := &PartitionData{Name: "t-0", Stats: &segment.Stats{RecordsPerBatch: map[int]int{1: 3, 2: 1, 500: 100000}}}
	svg := histogramSVG(pd)
	if !strings.Contains(svg, ">batches (log scale)<") {
		t.Fatalf("no log scale:\n%s", svg)
	}
	re := regexp.MustCompile(`data-records="(\d+)" data-batches="\d+" x="[0-9.]+" y="[0-9.]+" width="[0-9.]+" height="([0-9.]+)"`)
	for _, m := range re.FindAllStringSubmatch(svg, -1) {
		if h, _ := strconv.ParseFloat(m[2], 64); h < 5 {
			t.Errorf("bar %s records is %s high: hidden", m[1], m[2])
		}
	}
	// An even histogram stays linear.
	if svg := histogramSVG(&PartitionData{Stats: &segment.Stats{RecordsPerBatch: map[int]int{8: 25, 4: 1}}}); strings.Contains(svg, "log scale") {
		t.Error("an even histogram on a log scale")
	}
	// 60 bins of ranges ("1000-1016"): labels at least their width apart.
	many := map[int]int{}
	for k := 1000; k < 2000; k++ {
		many[k] = 1 + k%5
	}
	svg = histogramSVG(&PartitionData{Stats: &segment.Stats{RecordsPerBatch: many}})
	re = regexp.MustCompile(`<text class="tick" x="([0-9.]+)" y="` + strconv.Itoa(padT+plotH+14) + `" text-anchor="middle">([^<]*)</text>`)
	last := -1e9
	for _, m := range re.FindAllStringSubmatch(svg, -1) {
		x, _ := strconv.ParseFloat(m[1], 64)
		if w := float64(len(m[2])) * tickCharW; x-last < w {
			t.Errorf("label %q at %.1f overlaps the one at %.1f", m[2], x, last)
		}
		last = x
	}
}
