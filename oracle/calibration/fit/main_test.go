package main

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kseg/kseg/producer"
)

// fit-search-defaults.json, where a search starts, is the embedded default
// profile (durations in µs, as the file holds them).
func TestSearchStartsAtDefaults(t *testing.T) {
	st, err := readState(filepath.Join("..", "fit-search-defaults.json"))
	if err != nil {
		t.Fatal(err)
	}
	p := producer.DefaultProfile()
	for _, kv := range strings.Fields(stateCandidate(st)) {
		if err := p.Set(kv); err != nil {
			t.Fatal(err)
		}
	}
	if d := p.Differences(producer.DefaultProfile()); len(d) > 0 {
		t.Errorf("fit-search-defaults.json differs from the default profile: %v", d)
	}
}

func TestCandidateArgs(t *testing.T) {
	got := candidateArgs("wake-latency=2ms seed=7 jitter=0.5")
	want := []string{"--timing-set", "wake-latency=2ms", "--seed", "7", "--timing-set", "jitter=0.5"}
	if strings.Join(got, " ") != strings.Join(want, " ") {
		t.Errorf("candidateArgs = %v, want %v", got, want)
	}
	if candidateArgs("default") != nil {
		t.Error("default has flags")
	}
	if s := stateCandidate(map[string]float64{"wake-latency": 6141.4, "sender-jitter": 1.359}); s != "sender-jitter=1.359 wake-latency=6141us" {
		t.Errorf("stateCandidate = %q", s)
	}
}

// The tool scores a case end to end, and -write gives a profile that
// kseg produce --timing reads.
func TestFitScoresAndWrites(t *testing.T) {
	prof := filepath.Join(t.TempDir(), "fitted.json")
	start := filepath.Join(t.TempDir(), "start.json")
	if err := os.WriteFile(start, []byte(`{"wake-latency": 6141}`), 0o644); err != nil {
		t.Fatal(err)
	}
	out := capture(t, func() error {
		return run([]string{"-runs", "20", "-median-runs", "20", "-cases", "fit-v98-b1024", "default", "wake-latency=1ms"})
	})
	if strings.Count(out, "FIT score=") != 2 || !strings.Contains(out, "outside=") {
		t.Errorf("output:\n%s", out)
	}
	out = capture(t, func() error {
		return run([]string{"-runs", "20", "-median-runs", "20", "-cases", "fit-v98-b1024", "-search", start, "-iters", "1", "-best", filepath.Join(t.TempDir(), "best.json"), "-write", prof})
	})
	if !strings.Contains(out, "END FIT") {
		t.Errorf("search output:\n%s", out)
	}
	if _, err := producer.ReadProfile(prof); err != nil {
		t.Error(err)
	}
	if err := run([]string{"-cases", "no-such-case"}); err == nil {
		t.Error("no case selected: no error")
	}
}

func capture(t *testing.T, f func() error) string {
	t.Helper()
	wd, _ := os.Getwd()
	t.Cleanup(func() { os.Chdir(wd) })
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	old := os.Stdout
	os.Stdout = w
	done := make(chan string)
	go func() {
		var b bytes.Buffer
		io.Copy(&b, r)
		done <- b.String()
	}()
	ferr := f()
	os.Stdout = old
	w.Close()
	out := <-done
	if ferr != nil {
		t.Fatalf("%v\n%s", ferr, out)
	}
	return out
}

// -data takes a directory of case files or the what-if data as
// whatif:DIR:CONDITION[:PSI]; a malformed one is refused with the entry
// named.
func TestLoadDir(t *testing.T) {
	wd := filepath.Join("..", "..", "..", "testdata", "whatif")
	for _, tc := range []struct {
		data   string
		ok     bool
		prefix string // every case's name starts so
	}{
		{filepath.Join("..", "..", "..", "testdata", "producer-envelope"), true, ""},
		{"whatif:" + wd + ":calm", true, "w-"},
		{"whatif:" + wd + ":loaded:100", true, "w-"},
		{"whatif:" + wd, false, ""},
		{"whatif:" + wd + ":busy", false, ""},
		{"whatif:" + wd + ":calm:-3", false, ""},
		{"whatif:" + wd + ":calm:x", false, ""},
		{"whatif:" + wd + ":calm:5:6", false, ""},
	} {
		cs, err := loadDir(tc.data)
		if (err == nil) != tc.ok || (tc.ok && len(cs) == 0) {
			t.Errorf("loadDir(%q): %d cases, error %v; want ok %v", tc.data, len(cs), err, tc.ok)
			continue
		}
		if err != nil && !strings.Contains(err.Error(), tc.data) {
			t.Errorf("loadDir(%q): error %q does not name the entry", tc.data, err)
		}
		for _, c := range cs {
			if !strings.HasPrefix(c.Case, tc.prefix) {
				t.Errorf("loadDir(%q): case %s", tc.data, c.Case)
			}
		}
	}
}
