package calibrate

import (
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/kseg/kseg/internal/whatifdata"
)

func TestHistogramBatches(t *testing.T) {
	for _, tc := range []struct {
		h    string
		want []int
		bad  bool
	}{
		{"78x2 19x1", []int{78, 78, 19}, false},
		{"", nil, false},
		{"5x0 3x1", []int{3}, false},
		{"78", nil, true},
		{"ax2", nil, true},
		{"3x-1", nil, true},
	} {
		got, err := histogramBatches(tc.h)
		if (err != nil) != tc.bad || !slices.Equal(got, tc.want) {
			t.Errorf("histogramBatches(%q) = %v, %v; want %v (error %v)", tc.h, got, err, tc.want, tc.bad)
		}
	}
}

func TestWhatifCases(t *testing.T) {
	d, err := whatifdata.LoadDir(filepath.Join("..", "..", "testdata", "whatif"))
	if err != nil {
		t.Fatal(err)
	}
	cases, err := WhatifCases(d, whatifdata.Calm, 0)
	if err != nil {
		t.Fatal(err)
	}
	fixed, bursts := 0, 0
	for _, g := range d.Groups {
		switch g.Arrivals.Process {
		case "fixed":
			fixed += len(g.Settings)
		case "burst":
			bursts += len(g.Settings)
		}
	}
	if len(cases) != fixed+bursts || fixed == 0 || bursts == 0 {
		t.Fatalf("%d cases, want one per fixed-rate or burst (group, setting): %d and %d", len(cases), fixed, bursts)
	}
	for _, c := range cases {
		args := strings.Join(c.ProduceArgs, " ")
		if !strings.Contains(args, "--send-interval") || !strings.Contains(args, "--producer-property linger.ms=") {
			t.Errorf("%s: args %q", c.Case, args)
		}
		if burst := strings.HasPrefix(c.Case, "w-burst-"); burst != strings.Contains(args, "--burst 250 --send-interval 120ms") {
			t.Errorf("%s: args %q (a burst group's arrivals are --burst B --send-interval GAP)", c.Case, args)
		}
		want := 0
		for _, g := range d.Groups {
			if strings.HasPrefix(c.Case, "w-"+g.Name+"-") {
				want = g.Records
			}
		}
		for _, r := range c.Runs {
			n := 0
			for _, p := range r.Partitions {
				for _, k := range p.RecordsPerBatch {
					n += k
				}
			}
			if n != want {
				t.Errorf("%s run %d: %d records in its batches, the group sends %d", c.Case, r.Run, n, want)
			}
		}
	}
	if _, err := WhatifCases(&whatifdata.Data{Dir: "x", Groups: d.Groups}, whatifdata.Calm, 0); err == nil {
		t.Error("no runs gave no error")
	}
	// The pressure filter keeps the runs made at or below it, and no
	// case without a run.
	for _, psi := range []float64{50, 99, 101} {
		cs, err := WhatifCases(d, whatifdata.Calm, psi)
		kept := 0
		for _, r := range d.Runs {
			if r.Condition == whatifdata.Calm && r.Load.PSI10Pre >= 0 && r.Load.PSI10Pre <= psi && r.Load.PSI10Pst <= psi {
				if g, _ := d.Group(r.Group); g.Arrivals.Process == "fixed" || g.Arrivals.Process == "burst" {
					kept++
				}
			}
		}
		n := 0
		for _, c := range cs {
			n += len(c.Runs)
			if len(c.Runs) == 0 {
				t.Errorf("psi %v: %s has no run", psi, c.Case)
			}
		}
		if n != kept || (kept == 0) != (err != nil) {
			t.Errorf("psi %v: %d runs kept, want %d (error %v)", psi, n, kept, err)
		}
	}
}
