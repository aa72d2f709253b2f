// Package goldens reads the kafka-dump-log goldens of testdata/segments
// (MANIFEST.tsv) for tests that must derive expectations from real Kafka's
// output rather than from kseg.
package goldens

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// Root returns the repository root (the directory holding go.mod). It
// fails t when there is none: the goldens are committed with the code, so
// their absence is a broken checkout, never a reason to skip.
func Root(t testing.TB) string {
	t.Helper()
	wd, err := os.Getwd()
	if err != nil {
		t.Fatalf("working directory: %v", err)
	}
	for d := wd; ; d = filepath.Dir(d) {
		if _, err := os.Stat(filepath.Join(d, "go.mod")); err == nil {
			return d
		}
		if filepath.Dir(d) == d {
			t.Fatalf("no go.mod above %s", wd)
		}
	}
}

// Segments returns root/testdata/segments; it fails t when the committed
// fixtures (their MANIFEST.tsv) are missing.
func Segments(t testing.TB) string {
	t.Helper()
	d := filepath.Join(Root(t), "testdata", "segments")
	if _, err := os.Stat(filepath.Join(d, "MANIFEST.tsv")); err != nil {
		t.Fatalf("committed fixtures missing: %v", err)
	}
	return d
}

// Entry is one MANIFEST.tsv row; paths are relative to the repo root.
type Entry struct {
	Stdout, Stderr string
	Exit           int
	Args           []string
}

// Manifest reads testdata/segments/MANIFEST.tsv.
func Manifest(root string) ([]Entry, error) {
	f, err := os.Open(filepath.Join(root, "testdata", "segments", "MANIFEST.tsv"))
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var out []Entry
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		cols := strings.Split(line, "\t")
		if len(cols) != 4 {
			return nil, fmt.Errorf("MANIFEST.tsv: %q: want 4 columns", line)
		}
		code, err := strconv.Atoi(cols[2])
		if err != nil {
			return nil, err
		}
		out = append(out, Entry{cols[0], cols[1], code, strings.Fields(cols[3])})
	}
	return out, sc.Err()
}

// PlainLogDumps maps each log-format file (.log, .checkpoint) dumped by a
// plain "--files FILE" run to its golden stdout, both relative to root.
func PlainLogDumps(root string) (map[string]string, error) {
	m, err := Manifest(root)
	if err != nil {
		return nil, err
	}
	out := map[string]string{}
	for _, e := range m {
		if len(e.Args) != 2 || e.Args[0] != "--files" || e.Exit != 0 {
			continue
		}
		f := e.Args[1]
		if strings.Contains(f, ",") || !(strings.HasSuffix(f, ".log") || strings.HasSuffix(f, ".checkpoint")) {
			continue
		}
		out[f] = e.Stdout
	}
	return out, nil
}

// Batch is one batch line of a kafka-dump-log dump.
type Batch struct {
	BaseOffset, LastOffset int64
	Count                  int
}

// Batches parses the "baseOffset: X lastOffset: Y count: N ..." lines of a
// plain kafka-dump-log dump.
func Batches(stdoutPath string) ([]Batch, error) {
	data, err := os.ReadFile(stdoutPath)
	if err != nil {
		return nil, err
	}
	var out []Batch
	for _, line := range strings.Split(string(data), "\n") {
		if !strings.HasPrefix(line, "baseOffset: ") {
			continue
		}
		f := strings.Fields(line)
		var b Batch
		ok := 0
		for i := 0; i+1 < len(f); i++ {
			switch f[i] {
			case "baseOffset:":
				b.BaseOffset, err = strconv.ParseInt(f[i+1], 10, 64)
				ok++
			case "lastOffset:":
				b.LastOffset, err = strconv.ParseInt(f[i+1], 10, 64)
				ok++
			case "count:":
				var n int64
				n, err = strconv.ParseInt(f[i+1], 10, 32)
				b.Count = int(n)
				ok++
			}
			if err != nil {
				return nil, fmt.Errorf("%s: %q: %w", stdoutPath, line, err)
			}
		}
		if ok != 3 {
			return nil, fmt.Errorf("%s: %q: not a batch line", stdoutPath, line)
		}
		out = append(out, b)
	}
	return out, nil
}

// Histogram is records per batch → batches, with totals.
func Histogram(bs []Batch) (hist map[int]int, batches, records int64) {
	hist = map[int]int{}
	for _, b := range bs {
		hist[b.Count]++
		batches++
		records += int64(b.Count)
	}
	return hist, batches, records
}
