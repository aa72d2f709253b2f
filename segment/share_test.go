package segment

import (
	"math"
	"path/filepath"
	"slices"
	"testing"
)

func TestFairShares(t *testing.T) {
	for _, tc := range []struct {
		sizes []int64
		bound int64
		want  []int64
	}{
		{[]int64{10, 20, 30}, 60, []int64{10, 20, 30}},
		{[]int64{10, 20, 30}, 100, []int64{10, 20, 30}},
		{[]int64{1500, 200, 200}, 1000, []int64{600, 200, 200}},
		{[]int64{30, 30, 30}, 60, []int64{20, 20, 20}},
		{[]int64{30, 30, 30}, 61, []int64{21, 20, 20}},
		{[]int64{5, 100, 100}, 50, []int64{5, 23, 22}},
		{[]int64{100, 5, 100}, 50, []int64{23, 5, 22}},
		{[]int64{7}, 3, []int64{3}},
		{[]int64{7, 7}, 0, []int64{0, 0}},
		{nil, 10, nil},
	} {
		got := FairShares(tc.sizes, tc.bound)
		if !slices.Equal(got, tc.want) {
			t.Errorf("FairShares(%v, %d) = %v, want %v", tc.sizes, tc.bound, got, tc.want)
		}
	}
}

func TestCountData(t *testing.T) {
	// 25 batches of 8 records, then nothing
	parts, err := Partitions([]string{filepath.Join("..", "testdata", "segments", "seed", "u05-small-0")})
	if err != nil {
		t.Fatal(err)
	}
	p := &parts[0]
	whole, err := CountData(p, -1, -1, nil)
	if err != nil {
		t.Fatal(err)
	}
	if whole.Batches != 25 || whole.Records != 200 || whole.More || whole.LastTs <= 0 {
		t.Fatalf("whole: %+v", whole)
	}
	for _, tc := range []struct {
		maxBatches, maxRecords int64
		batches                int64
	}{
		{10, -1, 10}, {-1, 84, 10}, {-1, 80, 10}, {10, 200, 10}, {25, 200, 25}, {-1, 7, 0}, {0, -1, 0},
	} {
		c, err := CountData(p, tc.maxBatches, tc.maxRecords, nil)
		if err != nil {
			t.Fatal(err)
		}
		if c.Batches != tc.batches || c.Records != 8*tc.batches || c.More != (tc.batches < 25) {
			t.Errorf("CountData(%d, %d) = %+v, want %d batches", tc.maxBatches, tc.maxRecords, c, tc.batches)
		}
		if c.Batches == 0 && (c.LastTs == math.MinInt64 || c.LastTs >= whole.LastTs) {
			t.Errorf("CountData(%d, %d): none counted, LastTs %d: want one before the first batch's", tc.maxBatches, tc.maxRecords, c.LastTs)
		}
	}
	if !p.Local() {
		t.Error("a directory's partition is not Local")
	}
	// a cost of its own: 10 a batch, 8 of them records
	c, err := CountData(p, -1, 35, func(BatchInfo) int64 { return 10 })
	if err != nil {
		t.Fatal(err)
	}
	if c.Batches != 3 || c.Records != 24 || c.Cost != 30 || !c.More {
		t.Errorf("CountData at a cost of 10 a batch within 35: %+v, want 3 batches of 24 records costing 30", c)
	}
}
