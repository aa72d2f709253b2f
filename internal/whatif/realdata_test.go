package whatif

import (
	"path/filepath"
	"testing"

	"github.com/kseg/kseg/internal/whatifdata"
	"github.com/kseg/kseg/segment"
)

// realCase is one recorded real run of a what-if data set, extracted for
// a test: the group's settings from and to, and the run's partitions.
type realCase struct {
	data     *whatifdata.Data
	from, to whatifdata.Setting
	parts    []segment.Partition
}

// loadRealCase extracts the recorded logs of run (−1: the first logged
// one) of group at setting from, in condition cond, of the data set in
// testdata/SET; it skips the test when the data is absent.
func loadRealCase(t *testing.T, set, group, from, to, cond string, run int) realCase {
	t.Helper()
	d, err := whatifdata.LoadDir(filepath.Join("..", "..", "testdata", set))
	if err != nil {
		t.Skipf("no what-if data: %v", err)
	}
	g, ok := d.Group(group)
	if !ok {
		t.Fatalf("no group %s", group)
	}
	c := realCase{data: d}
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
