package producer

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/kseg/kseg/segment"
)

// Observed is one partition of a real log: its records per batch in log
// order (control batches left out: the producer did not write them).
type Observed struct {
	Name      string // "<topic>-<partition>" as found on disk
	Partition int    // -1 when the directory is not named like a partition
	Records   []int32
}

// ReadLayout reads the batch layout of every partition under path (a log
// directory, partition directory or segment file) with segment.Iter.
func ReadLayout(path string) ([]Observed, error) {
	parts, err := segment.Partitions([]string{path})
	if err != nil {
		return nil, err
	}
	out := make([]Observed, 0, len(parts))
	for i := range parts {
		p := &parts[i]
		o := Observed{Name: p.Name(), Partition: int(p.Partition)}
		it := segment.NewIter(p)
		for it.NextBatch() {
			if b := it.Batch(); !b.Control {
				o.Records = append(o.Records, int32(b.Records))
			}
		}
		err := it.Err()
		it.Close()
		if err != nil {
			return nil, err
		}
		out = append(out, o)
	}
	return out, nil
}

// Tolerance is the part of the predicted distribution a real partition
// must fall in: the central Central percent of the runs, or min–max when
// Central is 100.
type Tolerance struct{ Central float64 }

// ParseTolerance reads "minmax" (the default) or a central percentage
// such as "90" (p5–p95).
func ParseTolerance(s string) (Tolerance, error) {
	if s == "" || s == "minmax" || s == "min-max" {
		return Tolerance{100}, nil
	}
	v, err := strconv.ParseFloat(strings.TrimSuffix(s, "%"), 64)
	if err != nil || !(v > 0 && v <= 100) {
		return Tolerance{}, configErr("tolerance %q: want minmax or a central percentage in (0, 100], e.g. 90 for p5-p95", s)
	}
	return Tolerance{v}, nil
}

func (t Tolerance) String() string {
	if t.Central >= 100 {
		return "min-max"
	}
	lo := (100 - t.Central) / 2
	return "p" + strconv.FormatFloat(lo, 'f', -1, 64) + "-p" + strconv.FormatFloat(100-lo, 'f', -1, 64)
}

// bounds are the lowest and highest value of xs inside the tolerance.
func (t Tolerance) bounds(xs []int) (int, int) {
	s := slices.Clone(xs)
	slices.Sort(s)
	if len(s) == 0 {
		return 0, 0
	}
	if t.Central >= 100 {
		return s[0], s[len(s)-1]
	}
	lo := (100 - t.Central) / 2
	at := func(p float64) int {
		i := int(math.Ceil(p/100*float64(len(s)))) - 1
		return s[min(max(i, 0), len(s)-1)]
	}
	return at(lo), at(100 - lo)
}

// Placement is where one real partition falls in the prediction.
type Placement struct {
	Name      string
	Partition int
	Runs      int
	Tolerance Tolerance

	Batches           int
	BatchesPercentile float64
	BatchesLo         int // tolerance bounds of the batch count
	BatchesHi         int
	Predicted         Quantiles

	FirstBatch           int
	FirstBatchPercentile float64
	FirstLo, FirstHi     int

	// Outside lists the batch positions (from 0) whose record count is
	// outside the tolerance band of that position over the runs that have
	// it (positions no run reached count as outside).
	Outside []int

	Inside bool // batch count and first batch both within the tolerance
}

// Compare places each observed partition in env's distribution. A real
// partition without a model partition of the same number is an error.
func (env *Envelope) Compare(obs []Observed, tol Tolerance) ([]Placement, error) {
	var out []Placement
	for _, o := range obs {
		p := o.Partition
		if p < 0 && len(env.Partitions) == 1 {
			p = 0
		}
		if p < 0 || p >= len(env.Partitions) {
			return nil, configErr("%s: the model has no partition %d (it has %d partitions)", o.Name, o.Partition, len(env.Partitions))
		}
		pe := &env.Partitions[p]
		pl := Placement{Name: o.Name, Partition: p, Runs: len(env.Runs), Tolerance: tol, Batches: len(o.Records), Predicted: pe.Batches}
		pl.BatchesPercentile = Percentile(pe.BatchCounts, pl.Batches)
		pl.BatchesLo, pl.BatchesHi = tol.bounds(pe.BatchCounts)
		if len(o.Records) > 0 {
			pl.FirstBatch = int(o.Records[0])
		}
		pl.FirstBatchPercentile = Percentile(pe.FirstBatch, pl.FirstBatch)
		pl.FirstLo, pl.FirstHi = tol.bounds(pe.FirstBatch)
		col := make([]int, 0, len(env.Runs))
		for k, n := range o.Records {
			col = col[:0]
			for i := range env.Runs {
				if b := env.Runs[i].Partitions[p]; k < len(b) {
					col = append(col, int(b[k]))
				}
			}
			lo, hi := tol.bounds(col)
			if len(col) == 0 || int(n) < lo || int(n) > hi {
				pl.Outside = append(pl.Outside, k)
			}
		}
		pl.Inside = pl.Batches >= pl.BatchesLo && pl.Batches <= pl.BatchesHi &&
			pl.FirstBatch >= pl.FirstLo && pl.FirstBatch <= pl.FirstHi
		out = append(out, pl)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("no partitions to compare")
	}
	return out, nil
}
