package report

import "testing"

func TestCountLine(t *testing.T) {
	got := CountLine("u05-small-0", 25, 200, map[int]int{8: 25})
	if want := "u05-small-0: 25 batches, 200 records, records per batch: 8x25"; got != want {
		t.Errorf("got %q want %q", got, want)
	}
}
