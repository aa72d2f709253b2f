package calibrate

import (
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/kseg/kseg/producer"
)

func TestMediansAndIntervals(t *testing.T) {
	for _, tc := range []struct {
		xs         []int
		med        float64
		lower, p95 int
	}{
		{[]int{5, 1, 3}, 3, 3, 5},
		{[]int{4, 1, 3, 2}, 2.5, 2, 4},
		{[]int{7}, 7, 7, 7},
	} {
		if got := MedianOf(tc.xs); got != tc.med {
			t.Errorf("MedianOf(%v) = %v, want %v", tc.xs, got, tc.med)
		}
		if got := LowerMedian(tc.xs); got != tc.lower {
			t.Errorf("LowerMedian(%v) = %v, want %v", tc.xs, got, tc.lower)
		}
		if got := percentile(tc.xs, 95); got != tc.p95 {
			t.Errorf("percentile(%v, 95) = %v, want %v", tc.xs, got, tc.p95)
		}
	}
	if w := BootstrapHalfWidth([]int{6, 6, 6, 6, 6, 6, 6, 6, 6, 6}); w != 0 {
		t.Errorf("constant sample: half-width %v", w)
	}
	narrow := BootstrapHalfWidth([]int{10, 10, 11, 10, 11, 10, 11, 10, 10, 11})
	wide := BootstrapHalfWidth([]int{4, 19, 7, 12, 25, 9, 15, 6, 22, 11})
	if !(narrow > 0 && narrow < 1 && wide > 3) {
		t.Errorf("half-widths %v (narrow), %v (wide)", narrow, wide)
	}
}

// A case whose "real" runs are the ideal model's own: every run inside,
// every median on the spot, score 0; with the runs shifted by a third the
// median criteria fail and the score counts them.
func TestEvalScoresACase(t *testing.T) {
	cfg := producer.DefaultConfig()
	cfg.Timing = producer.Timing{}
	cfg.Records, cfg.BatchSize, cfg.LingerMs = 300, 1024, 1000
	env, err := producer.Simulate(cfg, 1)
	if err != nil {
		t.Fatal(err)
	}
	var c Case
	c.Case = "ideal"
	c.Runs = make([]Run, 5)
	n := env.Runs[0].Batches(0)
	for i := range c.Runs {
		c.Runs[i].Partitions = []RunPartition{{RecordsPerBatch: make([]int, n)}}
	}
	res, err := Eval(&c, cfg, 20, 20)
	if err != nil {
		t.Fatal(err)
	}
	if tot := Sum([]Result{res}); tot.Score() != 0 || tot.OutsideRuns != 0 || tot.OffWide != 0 || tot.InsideP90 != 5 || tot.RealRuns != 5 {
		t.Errorf("the model against itself: %s", tot.Line())
	}
	for i := range c.Runs {
		c.Runs[i].Partitions[0].RecordsPerBatch = make([]int, n+n/3)
	}
	res, _ = Eval(&c, cfg, 20, 20)
	tot := Sum([]Result{res})
	if tot.OutsideRuns != 5 || tot.Off != 1 || tot.OffWide != 1 || tot.Score() <= 60 || !strings.Contains(tot.Line(), "misses=ideal") {
		t.Errorf("a third more batches: %s", tot.Line())
	}
}

// EvalTotal adds the topic's total batches per run as a check of an
// unkeyed case over several partitions (and of no other), scored like the
// partitions' checks.
func TestEvalTotalChecksTheTopic(t *testing.T) {
	cfg := producer.DefaultConfig()
	cfg.Timing = producer.Timing{}
	cfg.Records, cfg.BatchSize, cfg.LingerMs, cfg.Partitions = 600, 1024, 1000, 3
	env, err := producer.Simulate(cfg, 1)
	if err != nil {
		t.Fatal(err)
	}
	var c Case
	c.Case = "sticky"
	c.Runs = make([]Run, 5)
	total := 0
	for i := range c.Runs {
		for p := range 3 {
			n := env.Runs[0].Batches(p)
			total += n
			c.Runs[i].Partitions = append(c.Runs[i].Partitions, RunPartition{Partition: p, RecordsPerBatch: make([]int, n)})
		}
	}
	plain, err := Eval(&c, cfg, 20, 20)
	if err != nil {
		t.Fatal(err)
	}
	res, err := EvalTotal(&c, cfg, 20, 20)
	if err != nil {
		t.Fatal(err)
	}
	isTotal := func(s string) bool { return strings.HasPrefix(s, "total:") }
	// (The pooled partitions of one run repeated need not meet the model's
	// median: which partitions the sticky partitioner favours is random.)
	if tot := Sum([]Result{res}); res.Checks != plain.Checks+1 || tot.RealRuns != plain.RealRuns+5 || slices.ContainsFunc(res.Off, isTotal) || slices.ContainsFunc(res.Outside, isTotal) {
		t.Errorf("the model against itself, with its total (%d batches a run): %d checks (without: %d), %s %v", total/5, res.Checks, plain.Checks, tot.Line(), res.Off)
	}
	// Every run a fifth more batches, all in one partition: the topic's
	// total is off.
	for i := range c.Runs {
		pr := &c.Runs[i].Partitions[i%3]
		pr.RecordsPerBatch = append(pr.RecordsPerBatch, make([]int, total/5/5)...)
	}
	res, _ = EvalTotal(&c, cfg, 20, 20)
	if !slices.ContainsFunc(res.Off, isTotal) || !slices.ContainsFunc(res.Outside, isTotal) {
		t.Errorf("a fifth more batches a run, the total not off: %v", res.Off)
	}
	keyed := cfg
	keyed.KeyCount = 8
	if _, ok := TotalCheck(&c, keyed, env, 20); ok {
		t.Error("a keyed case has a total check")
	}
}

func TestLoadCases(t *testing.T) {
	cases, err := LoadCases(filepath.Join("..", "..", "testdata", "producer-envelope"))
	if err != nil || len(cases) < 20 {
		t.Fatalf("%d cases, %v", len(cases), err)
	}
	if _, err := LoadCases(t.TempDir()); err == nil {
		t.Error("an empty directory gave no error")
	}
}

func TestTotalsAdd(t *testing.T) {
	a := Totals{Cases: 1, Checks: 2, RealRuns: 20, OutsideRuns: 1, Off: 1, OffWide: 1, InsideP90: 18, MedianErr: 0.1, Misses: []string{"a"}}
	b := Totals{Cases: 2, Checks: 3, RealRuns: 30, Off: 2, InsideP90: 29, MedianErr: 0.2, Misses: []string{"b"}}
	s := a.Add(b)
	if s.Cases != 3 || s.Checks != 5 || s.RealRuns != 50 || s.OutsideRuns != 1 || s.Off != 3 || s.OffWide != 1 || s.InsideP90 != 47 || strings.Join(s.Misses, ",") != "a,b" || len(a.Misses) != 1 {
		t.Errorf("Add = %+v", s)
	}
	if got, want := s.Score(), 10.0*1+10*3+100*0.3; got < want-1e-9 || got > want+1e-9 {
		t.Errorf("Score = %v, want %v", got, want)
	}
}
