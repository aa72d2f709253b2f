package whatif

import (
	"path/filepath"
	"slices"
	"testing"

	"github.com/kseg/kseg/internal/whatifdata"
	"github.com/kseg/kseg/producer"
	"github.com/kseg/kseg/segment"
)

// realCase is one recorded real run of a what-if data set, extracted for
// a test: the group's settings from and to, and the run's partitions.
type realCase struct {
	data        *whatifdata.Data
	group, cond string
	from, to    whatifdata.Setting
	parts       []segment.Partition
}

// realAtTo is the real runs' batch counts at the case's setting to, in
// its condition, sorted, and their median; at least 8 runs.
func (c realCase) realAtTo(t *testing.T) (median float64, runs []int) {
	t.Helper()
	for _, r := range c.data.RunsAt(c.group, c.to.Name, c.cond) {
		runs = append(runs, r.Batches)
	}
	if len(runs) < 8 {
		t.Fatalf("%s: %d real runs at %s", c.group, len(runs), c.to.Name)
	}
	slices.Sort(runs)
	return float64(runs[len(runs)/2-1]+runs[len(runs)/2]) / 2, runs
}

// predict is kseg whatif from the case's log at from to to: 50 runs,
// seed 1.
func (c realCase) predict(t *testing.T) *Result {
	t.Helper()
	res, _, err := Run(c.parts, Options{Was: props(c.from), Set: props(c.to), Runs: 50, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	return res[0]
}

// predictRefitted is the median batch count r's topic predicts at its new
// settings when its sender is fitted again with the what-if fit's options
// (as predict's) changed by change.
func predictRefitted(t *testing.T, r *Result, change func(*producer.FitOptions)) int {
	t.Helper()
	fo := fitOptions(Options{Seed: 1})
	change(&fo)
	fit, err := producer.FitSender(r.Topic.Sessions, r.Was, fo)
	if err != nil {
		t.Fatal(err)
	}
	res, err := producer.ReplayMix(r.Topic.Sessions, r.Now, fit.Plausible, r.replayOpts)
	if err != nil {
		t.Fatal(err)
	}
	return res.TotalBatches().P50
}

// loadRealCase extracts the recorded logs of run (−1: the first logged
// one) of group at setting from, in condition cond, of the data set in
// testdata/SET; it skips the test when the data is absent, or with -short
// (a real log's replay takes seconds).
func loadRealCase(t *testing.T, set, group, from, to, cond string, run int) realCase {
	t.Helper()
	if testing.Short() {
		t.Skip("replays a real log")
	}
	d, err := whatifdata.LoadDir(filepath.Join("..", "..", "testdata", set))
	if err != nil {
		t.Skipf("no what-if data: %v", err)
	}
	g, ok := d.Group(group)
	if !ok {
		t.Fatalf("no group %s", group)
	}
	c := realCase{data: d, group: group, cond: cond}
	var okFrom, okTo bool
	if c.from, okFrom = g.Setting(from); !okFrom {
		t.Fatalf("%s: no setting %s", group, from)
	}
	if c.to, okTo = g.Setting(to); !okTo {
		t.Fatalf("%s: no setting %s", group, to)
	}
	for _, r := range d.RunsAt(group, from, cond) {
		if r.Logs == "" || (run >= 0 && r.Run != run) {
			continue
		}
		parts, err := d.ExtractPartitions(r, t.TempDir())
		if err != nil {
			t.Fatal(err)
		}
		c.parts = parts
		return c
	}
	t.Fatalf("%s %s %s: no logged run %d", group, from, cond, run)
	return c
}
