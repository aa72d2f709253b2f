package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/kseg/kseg/internal/whatifdata"
)

// TestGroupsCommitted: testdata/whatif/groups.json describes the groups defined here (change
// both together: a changed definition needs regenerated runs).
func TestGroupsCommitted(t *testing.T) {
	b, err := os.ReadFile(filepath.Join("..", "..", "testdata", "whatif", "groups.json"))
	if err != nil {
		t.Fatal(err)
	}
	var got []whatifdata.Group
	if err := json.Unmarshal(b, &got); err != nil {
		t.Fatal(err)
	}
	want := groups()
	for i := range want {
		want[i].Values = values
		want[i].Schedule = "schedules/" + want[i].Name + ".txt"
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("testdata/whatif/groups.json differs from groups():\n got %+v\nwant %+v", got, want)
	}
}

func TestGroupsShape(t *testing.T) {
	for _, g := range groups() {
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
