package collect

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kseg/kseg/producer"
	"github.com/kseg/kseg/report"
)

// The sampler keeps at most max points, every stride-th batch from the
// first, whatever the number of batches.
func TestSampler(t *testing.T) {
	for _, n := range []int64{0, 1, 7, 8, 9, 16, 17, 100, 1000, 12345} {
		s := &sampler{max: 8}
		for i := int64(0); i < n; i++ {
			s.add(report.BatchPoint{BaseOffset: i})
		}
		pts, stride := s.final()
		if len(pts) > 8 {
			t.Errorf("n=%d: %d points kept, max 8", n, len(pts))
		}
		if want := (n + stride - 1) / stride; int64(len(pts)) != want {
			t.Errorf("n=%d stride %d: %d points, want %d", n, stride, len(pts), want)
		}
		if n <= 8 && stride != 1 {
			t.Errorf("n=%d: stride %d, want 1 (no sampling)", n, stride)
		}
		for i, p := range pts {
			if p.BaseOffset != int64(i)*stride {
				t.Errorf("n=%d: point %d is batch %d, want %d", n, i, p.BaseOffset, int64(i)*stride)
				break
			}
		}
	}
}

func TestTopGaps(t *testing.T) {
	var gs []report.Gap
	for i, ms := range []int64{5, 1, 9, 3, 9, 7, 2} {
		gs = topGaps(gs, report.Gap{AfterOffset: int64(i), Millis: ms}, 3)
	}
	if len(gs) != 3 || gs[0].Millis != 9 || gs[1].Millis != 9 || gs[2].Millis != 7 || gs[0].AfterOffset != 2 {
		t.Errorf("gaps %v", gs)
	}
}

// The report keeps of a partition's findings only what the page shows,
// whatever the audit finds.
func TestCollectKeepsPageFindings(t *testing.T) {
	cfg := producer.DefaultConfig()
	cfg.Records, cfg.ValueSize, cfg.Sync = 400, 10, true
	for b := 3; b < 330; b += 5 { // 66 gaps that do not merge
		cfg.Inject = append(cfg.Inject, producer.Fault{Kind: producer.FaultGap, At: int64(b)})
	}
	dir := t.TempDir()
	if _, err := producer.Write(cfg, dir); err != nil {
		t.Fatal(err)
	}
	runs, err := ResolveRuns([]string{dir})
	if err != nil {
		t.Fatal(err)
	}
	if err := Runs(runs, Options{Audit: true}); err != nil {
		t.Fatal(err)
	}
	pd := &runs[0].Partitions[0]
	if pd.Audit == nil {
		t.Fatalf("no audit: %s", pd.AuditErr)
	}
	if pd.FindingsTotal != 66 || len(pd.Audit.Findings) != report.TableFindings || len(pd.Marks) != 66 {
		t.Errorf("total %d, kept %d, marks %d: want 66, %d, 66", pd.FindingsTotal, len(pd.Audit.Findings), len(pd.Marks), report.TableFindings)
	}
}

// A sweep's runs come in the sweep's order, or in natural order where the
// plan does not name them: never the directory's text order 0, 100, 20, 5.
func TestSweepRunsInOrder(t *testing.T) {
	names := func(runs []report.Run) string {
		var s []string
		for _, r := range runs {
			s = append(s, r.Name)
		}
		return strings.Join(s, " ")
	}
	var runs []report.Run
	for _, n := range []string{"linger-ms=0", "linger-ms=100", "linger-ms=20", "linger-ms=5"} {
		runs = append(runs, report.Run{Name: n})
	}
	sortRuns(runs, nil)
	if got, want := names(runs), "linger-ms=0 linger-ms=5 linger-ms=20 linger-ms=100"; got != want {
		t.Errorf("natural order: %s, want %s", got, want)
	}
	plan := &producer.SweepPlan{Points: []producer.SweepPoint{{Name: "linger-ms=100"}, {Name: "linger-ms=0"}}}
	sortRuns(runs, plan)
	if got, want := names(runs), "linger-ms=100 linger-ms=0 linger-ms=5 linger-ms=20"; got != want {
		t.Errorf("plan order: %s, want %s", got, want)
	}
	// Through ResolveRuns, on a directory whose listing is in text order.
	root := t.TempDir()
	seed := filepath.Join("..", "..", "testdata", "segments", "seed", "u05-small-0", "00000000000000000000.log")
	b, err := os.ReadFile(seed)
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range []string{"0", "100", "20", "5"} {
		d := filepath.Join(root, "linger-ms="+n, "t-0")
		os.MkdirAll(d, 0o755)
		os.WriteFile(filepath.Join(d, "00000000000000000000.log"), b, 0o644)
	}
	got, err := ResolveRuns([]string{root})
	if err != nil {
		t.Fatal(err)
	}
	if s, want := names(got), "linger-ms=0 linger-ms=5 linger-ms=20 linger-ms=100"; s != want {
		t.Errorf("ResolveRuns: %s, want %s", s, want)
	}
}

// Runs holding the same partition are compared as its copies (kseg
// replicas): each run's partition gets its epochs and the pairs, for the
// page's time line. The copies are a real unclean election
// (testdata/replicas, Kafka 4.4.0).
func TestRunsCompareCopies(t *testing.T) {
	var paths []string
	for _, n := range []string{"n1", "n2", "n3"} {
		paths = append(paths, filepath.Join("..", "..", "testdata", "replicas", "unclean", "before", n))
	}
	runs, err := ResolveRuns(paths)
	if err != nil {
		t.Fatal(err)
	}
	if err := Runs(runs, Options{Replicas: true}); err != nil {
		t.Fatal(err)
	}
	diverged := 0
	for _, r := range runs {
		pd := r.Partitions[0]
		if pd.Replica == nil || pd.Replica.Name != r.Name || len(pd.Replica.Epochs) == 0 {
			t.Fatalf("%s: replica %+v", r.Name, pd.Replica)
		}
		for _, p := range pd.ReplicaPairs {
			if p.Status == "diverged" {
				diverged++
				if p.Offset != 50 || p.Epoch != 0 {
					t.Errorf("%s vs %s at %d epoch %d", p.A, p.B, p.Offset, p.Epoch)
				}
			}
		}
	}
	if diverged != 2 {
		t.Errorf("%d diverging pairs, want 2 (n1 and n2 against the unclean leader n3)", diverged)
	}
	var sb strings.Builder
	if err := report.WriteHTML(&sb, runs, report.HTMLOptions{}); err != nil {
		t.Fatal(err)
	}
	page := sb.String()
	if strings.Count(page, `class="divergence"`) != 2 || !strings.Contains(page, `data-epoch="2"`) {
		t.Errorf("the page has no epoch time line with both divergences")
	}
	// Without Replicas, or with one run alone: no copies, no time line.
	for k := range runs {
		runs[k].Partitions = nil
	}
	if err := Runs(runs, Options{}); err != nil || runs[0].Partitions[0].Replica != nil {
		t.Fatalf("compared without Options.Replicas: %v", err)
	}
	one := runs[:1]
	one[0].Partitions = nil
	if err := Runs(one, Options{Replicas: true}); err != nil {
		t.Fatal(err)
	}
	if one[0].Partitions[0].Replica != nil {
		t.Error("a partition held by one run is compared with nothing")
	}
}
