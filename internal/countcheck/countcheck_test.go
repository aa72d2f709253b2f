package countcheck

import (
	"reflect"
	"strings"
	"testing"

	"github.com/kseg/kseg/segment"
)

func TestParseHistograms(t *testing.T) {
	tests := []struct {
		in   []string
		want []Histogram
		err  string
	}{
		{nil, nil, ""},
		{[]string{"8x25", "orders-0=4x1 8x2"}, []Histogram{{"", map[int]int{8: 25}}, {"orders-0", map[int]int{4: 1, 8: 2}}}, ""},
		{[]string{"=8x1"}, nil, `--expect-histogram "=8x1": empty partition name before '='`},
		{[]string{"t-0=8"}, nil, `--expect-histogram "t-0=8": `},
	}
	for _, tc := range tests {
		got, err := ParseHistograms(tc.in)
		if tc.err != "" {
			if err == nil || !strings.HasPrefix(err.Error(), tc.err) {
				t.Errorf("%q: error %v, want %q...", tc.in, err, tc.err)
			}
			continue
		}
		if err != nil || !reflect.DeepEqual(got, tc.want) {
			t.Errorf("%q: %v, %v; want %v", tc.in, got, err, tc.want)
		}
	}
}

func stats(topic string, part int32, batches, bytes int64, rpb map[int]int) segment.PartitionStats {
	s := segment.NewStats()
	s.Batches, s.Bytes, s.RecordsPerBatch = batches, bytes, rpb
	for k, n := range rpb {
		s.Records += int64(k * n)
	}
	return segment.PartitionStats{Partition: segment.Partition{Topic: topic, Partition: part}, Stats: s}
}

func TestRun(t *testing.T) {
	res := []segment.PartitionStats{
		stats("t", 0, 25, 25*500, map[int]int{8: 25}),
		stats("t", 1, 2, 2*1000, map[int]int{148: 1, 52: 1}),
		stats("t", 2, 0, 0, map[int]int{}),
	}
	tests := []struct {
		name string
		c    Checks
		want []string
	}{
		{"nothing", Checks{MaxBatches: -1}, nil},
		{"histogram for all", Checks{Histograms: []Histogram{{"", map[int]int{8: 25}}}, MaxBatches: -1}, []string{
			`t-1: records per batch: expected "8x25", got "148x1 52x1"`,
			`t-2: records per batch: expected "8x25", got ""`,
		}},
		{"histogram for one, and a missing partition", Checks{Histograms: []Histogram{{"t-1", map[int]int{148: 1, 52: 1}}, {"t-9", map[int]int{1: 1}}}, MaxBatches: -1}, []string{
			`t-9: records per batch: expected "1x1", got no such partition`,
		}},
		{"max batches, 0 included", Checks{MaxBatches: 0}, []string{
			"t-0: batches: expected at most 0, got 25",
			"t-1: batches: expected at most 0, got 2",
		}},
		{"min avg skips empty partitions", Checks{MinAvg: 9.5, MaxBatches: -1}, []string{
			"t-0: mean records per batch: expected at least 9.5, got 8.00",
		}},
		{"min fill", Checks{MinFill: 0.75, BatchSize: 1000, MaxBatches: -1}, []string{
			"t-0: fill (mean batch bytes / batch.size 1000): expected at least 0.75, got 0.500",
		}},
	}
	for _, tc := range tests {
		if got := tc.c.Run(res); !reflect.DeepEqual(got, tc.want) {
			t.Errorf("%s:\n got %q\nwant %q", tc.name, got, tc.want)
		}
	}
}
