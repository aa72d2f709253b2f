package report

import "testing"

func TestHistogramBins(t *testing.T) {
	few := map[int]int{8: 25, 4: 1}
	if b := histogramBins(few); len(b) != 2 || b[0] != (bin{4, 4, 1}) || b[1] != (bin{8, 8, 25}) {
		t.Errorf("bins %v", b)
	}
	many := map[int]int{}
	total := 0
	for k := 1; k <= 500; k++ {
		many[k] = k % 7
		total += k % 7
	}
	b := histogramBins(many)
	if len(b) > maxBars {
		t.Errorf("%d bars, max %d", len(b), maxBars)
	}
	sum := 0
	for _, x := range b {
		sum += x.batches
	}
	if sum != total {
		t.Errorf("binned batches %d, want %d", sum, total)
	}
}
