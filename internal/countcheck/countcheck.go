// Package countcheck holds kseg count's checks: expected records-per-batch
// histograms and bounds on the mean records per batch, the number of
// batches and the fill ratio, held against each partition's statistics.
package countcheck

import (
	"fmt"
	"maps"
	"strconv"
	"strings"

	"github.com/kseg/kseg/segment"
)

// Checks are the checks to run; zero values check nothing.
type Checks struct {
	Histograms []Histogram
	MinAvg     float64 // mean records per batch at least this
	MaxBatches int64   // at most this many batches; < 0: no limit
	MinFill    float64 // mean batch bytes / BatchSize at least this
	BatchSize  int     // the producer's batch.size, for MinFill
}

// Histogram is one expected histogram.
type Histogram struct {
	Partition string // "" = every partition
	Want      map[int]int
}

// ParseHistograms reads --expect-histogram values: H for every partition,
// or TOPIC-P=H for one, H in segment.FormatHistogram's notation ("8x25").
func ParseHistograms(vals []string) ([]Histogram, error) {
	var out []Histogram
	for _, v := range vals {
		var hc Histogram
		h := v
		if name, rest, ok := strings.Cut(v, "="); ok {
			if name == "" {
				return nil, fmt.Errorf("--expect-histogram %q: empty partition name before '='", v)
			}
			hc.Partition, h = name, rest
		}
		m, err := segment.ParseHistogram(h)
		if err != nil {
			return nil, fmt.Errorf("--expect-histogram %q: %w", v, err)
		}
		hc.Want = m
		out = append(out, hc)
	}
	return out, nil
}

// Run returns one message per failed check, naming the partition, the
// expected and the actual value. Partitions without batches are not held
// to MinAvg or MinFill; a histogram expected for a partition that is not
// in res fails.
func (c *Checks) Run(res []segment.PartitionStats) []string {
	var out []string
	found := map[string]bool{}
	for i := range res {
		name, s := res[i].Name(), res[i].Stats
		for _, hc := range c.Histograms {
			if hc.Partition != "" && hc.Partition != name {
				continue
			}
			found[hc.Partition] = true
			if !maps.Equal(hc.Want, s.RecordsPerBatch) {
				out = append(out, fmt.Sprintf("%s: records per batch: expected %q, got %q", name, segment.FormatHistogram(hc.Want), segment.FormatHistogram(s.RecordsPerBatch)))
			}
		}
		if c.MaxBatches >= 0 && s.Batches > c.MaxBatches {
			out = append(out, fmt.Sprintf("%s: batches: expected at most %d, got %d", name, c.MaxBatches, s.Batches))
		}
		if s.Batches == 0 {
			continue
		}
		if c.MinAvg > 0 && s.AvgRecords() < c.MinAvg {
			out = append(out, fmt.Sprintf("%s: mean records per batch: expected at least %s, got %.2f", name, strconv.FormatFloat(c.MinAvg, 'f', -1, 64), s.AvgRecords()))
		}
		if c.MinFill > 0 && s.Fill(c.BatchSize) < c.MinFill {
			out = append(out, fmt.Sprintf("%s: fill (mean batch bytes / batch.size %d): expected at least %s, got %.3f", name, c.BatchSize, strconv.FormatFloat(c.MinFill, 'f', -1, 64), s.Fill(c.BatchSize)))
		}
	}
	for _, hc := range c.Histograms {
		if hc.Partition != "" && !found[hc.Partition] {
			out = append(out, fmt.Sprintf("%s: records per batch: expected %q, got no such partition", hc.Partition, segment.FormatHistogram(hc.Want)))
		}
	}
	return out
}
