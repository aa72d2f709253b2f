package main

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/kseg/kseg/internal/whatifdata"
)

// TestGroupsCommitted: testdata/whatif/groups.json describes the groups defined here (change
// both together: a changed definition needs regenerated runs).
func TestGroupsCommitted(t *testing.T) {
	for dir, gs := range map[string][]whatifdata.Group{"whatif": shortGroups(), "whatif-long": longGroups(), "whatif-heldout": heldoutGroups(), "whatif-heldout2": heldout2Groups(), "whatif-heldout3": heldout3Groups()} {
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
	for _, g := range slices.Concat(shortGroups(), longGroups(), heldoutGroups(), heldout2Groups(), heldout3Groups()) {
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

// TestChoose: two variants' predictions for one pair of the committed data, one on the real
// runs and one far off; leaving the only group out leaves nothing to choose by, so the fold
// keeps the first variant, and the figures printed are each variant's own.
func TestChoose(t *testing.T) {
	data := filepath.Join("..", "..", "testdata", "whatif")
	const name = "fixed-2ms-p2__calm__base__linger100__0.ndjson"
	line := func(p50, p5, p95 int) string {
		return `{"type":"whatif_topic","topic":"t","log":{"batches":53},"replay":{"batches":{"min":50,"p5":51,"p50":53,"p95":55,"max":56}},` +
			fmt.Sprintf(`"predicted":{"batches":{"min":%d,"p5":%d,"p50":%d,"p95":%d,"max":%d}}}`, p5, p5, p50, p95, p95) + "\n"
	}
	dirs := map[string]string{}
	for v, l := range map[string]string{"on": line(12, 12, 13), "off": line(40, 30, 50)} {
		dirs[v] = t.TempDir()
		if err := os.WriteFile(filepath.Join(dirs[v], name), []byte(l), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	var out strings.Builder
	if err := choose(&out, []string{"off=" + data + ":" + dirs["off"], "on=" + data + ":" + dirs["on"]}); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"off          whatif           calm: medians 0/1, band 0%, self-check 1/1",
		"on           whatif           calm: medians 1/1, band 100%, self-check 1/1, interval score 0.08",
		"off chosen by 1 of 1 folds",
	} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("output lacks %q:\n%s", want, out.String())
		}
	}
	for _, bad := range [][]string{
		{"only=" + data + ":" + dirs["on"]},
		{"x=" + data},
		{"a=" + data + ":" + dirs["on"], "a=" + data + ":" + dirs["off"]},
		{"a=" + data + ":" + t.TempDir(), "b=" + data + ":" + dirs["on"]},
	} {
		if err := choose(io.Discard, bad); err == nil {
			t.Errorf("choose %q: want an error", bad)
		}
	}
}
