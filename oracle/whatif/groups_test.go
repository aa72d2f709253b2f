package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"testing"

	"github.com/kseg/kseg/internal/whatifdata"
)

// TestGroupsCommitted: testdata/whatif/groups.json describes the groups defined here (change
// both together: a changed definition needs regenerated runs).
func TestGroupsCommitted(t *testing.T) {
	for dir, gs := range map[string][]whatifdata.Group{"whatif": shortGroups(), "whatif-long": longGroups(), "whatif-heldout": heldoutGroups(), "whatif-heldout2": heldout2Groups()} {
		b, err := os.ReadFile(filepath.Join("..", "..", "testdata", dir, "groups.json"))
		if err != nil {
			t.Fatal(err)
		}
		var got []whatifdata.Group
		if err := json.Unmarshal(b, &got); err != nil {
			t.Fatal(err)
		}
		for i := range gs {
			gs[i].Values = values
			gs[i].Schedule = "schedules/" + gs[i].Name + ".txt"
		}
		if !reflect.DeepEqual(got, gs) {
			t.Errorf("testdata/%s/groups.json differs from its groups:\n got %+v\nwant %+v", dir, got, gs)
		}
	}
}

func TestGroupsShape(t *testing.T) {
	for _, g := range slices.Concat(shortGroups(), longGroups(), heldoutGroups(), heldout2Groups()) {
		first := g.Settings[0].Props
		for _, s := range g.Settings[1:] {
			changed := 0
			for k, v := range first {
				if s.Props[k] != v {
					changed++
				}
			}
			if changed != 1 || len(s.Props) != len(first) {
				t.Errorf("%s/%s changes %d properties of the base (want 1)", g.Name, s.Name, changed)
			}
		}
		if g.Keyed != (g.Keys > 0) {
			t.Errorf("%s: keyed %v with %d keys", g.Name, g.Keyed, g.Keys)
		}
	}
}

func TestLogRuns(t *testing.T) {
	for _, c := range []struct{ n, logs, lo, hi int }{
		{8, 2, 3, 5},
		{8, 3, 2, 5},
		{8, 0, 4, 4},
		{3, 2, 0, 2},
		{2, 5, 0, 2},
		{1, 1, 0, 1},
	} {
		if lo, hi := logRuns(c.n, c.logs); lo != c.lo || hi != c.hi {
			t.Errorf("logRuns(%d, %d) = %d, %d; want %d, %d", c.n, c.logs, lo, hi, c.lo, c.hi)
		}
	}
}
