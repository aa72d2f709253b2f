package cmd

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/kseg/kseg/internal/goldens"
	"github.com/kseg/kseg/report"
)

// TestCountSeedLines: each seed partition prints the seed-style line with
// the counts kafka-dump-log's golden dump gives.
func TestCountSeedLines(t *testing.T) {
	segs := goldens.Segments(t)
	root := goldens.Root(t)
	dumps, err := goldens.PlainLogDumps(root)
	if err != nil {
		t.Fatal(err)
	}
	ents, err := os.ReadDir(filepath.Join(segs, "seed"))
	if err != nil {
		t.Fatal(err)
	}
	var want strings.Builder
	for _, e := range ents {
		golden, ok := dumps["testdata/segments/seed/"+e.Name()+"/00000000000000000000.log"]
		if !ok {
			t.Fatalf("no golden for seed partition %s", e.Name())
		}
		bs, err := goldens.Batches(filepath.Join(root, golden))
		if err != nil {
			t.Fatal(err)
		}
		h, b, r := goldens.Histogram(bs)
		want.WriteString(report.CountLine(e.Name(), b, r, h) + "\n")
	}
	out, stderr, code := runKseg(t, "count", filepath.Join(segs, "seed"))
	if code != 0 || out != want.String() {
		t.Errorf("exit %d, stderr %q\ngot:\n%s\nwant:\n%s", code, stderr, out, want.String())
	}
	if !strings.Contains(out, "u05-small-0: 25 batches, 200 records, records per batch: 8x25\n") {
		t.Errorf("u05-small-0 does not show the seed's 8x25 line:\n%s", out)
	}
}

func TestCountChecks(t *testing.T) {
	segs := goldens.Segments(t)
	small := filepath.Join(segs, "seed", "u05-small-0") // 25 batches of 8 records, 933 bytes each
	seed := filepath.Join(segs, "seed")
	tests := []struct {
		name   string
		args   []string
		code   ExitCode
		stderr []string // substrings
	}{
		{"histogram pass", []string{"--expect-histogram", "8x25", small}, 0, nil},
		{"histogram fail", []string{"--expect-histogram", "8x24", small}, 1, []string{"u05-small-0", `expected "8x24"`, `got "8x25"`}},
		{"named histogram pass", []string{"--expect-histogram", "u05-keyed-0=8x22 4x1", "--expect-histogram", "u05-sync-0=1x200", seed}, 0, nil},
		{"named histogram fail", []string{"--expect-histogram", "u05-keyed-2=8x22 4x1", seed}, 1, []string{"u05-keyed-2", `expected "8x22 4x1"`, `got "8x30"`}},
		{"named partition missing", []string{"--expect-histogram", "nope-0=8x25", seed}, 1, []string{"nope-0", "no such partition"}},
		{"min avg pass", []string{"--min-avg-records", "8", small}, 0, nil},
		{"min avg fail", []string{"--min-avg-records", "8.5", small}, 1, []string{"u05-small-0", "at least 8.5", "got 8.00"}},
		{"max batches pass", []string{"--max-batches", "25", small}, 0, nil},
		{"max batches fail", []string{"--max-batches", "24", small}, 1, []string{"u05-small-0", "at most 24", "got 25"}},
		{"min fill pass", []string{"--batch-size", "1024", "--min-fill", "0.9", small}, 0, nil},
		{"min fill fail", []string{"--batch-size", "1024", "--min-fill", "0.95", small}, 1, []string{"u05-small-0", "at least 0.95", "got 0.911"}},
		{"min fill without batch size", []string{"--min-fill", "0.5", small}, 2, []string{"--batch-size"}},
		{"bad histogram", []string{"--expect-histogram", "8*25", small}, 2, []string{"8*25"}},
		{"bad flag", []string{"--no-such-flag", small}, 2, nil},
		{"no path", nil, 2, nil},
		{"unreadable", []string{filepath.Join(segs, "does-not-exist")}, 3, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			out, stderr, code := runKseg(t, append([]string{"count"}, tc.args...)...)
			if code != tc.code {
				t.Fatalf("exit %d, want %d; stdout %q stderr %q", code, tc.code, out, stderr)
			}
			for _, s := range tc.stderr {
				if !strings.Contains(stderr, s) {
					t.Errorf("stderr %q lacks %q", stderr, s)
				}
			}
		})
	}
}

func TestCountJSONAndDetail(t *testing.T) {
	segs := goldens.Segments(t)
	out, stderr, code := runKseg(t, "count", "--json", "--detail", "--batch-size", "1024", filepath.Join(segs, "codecs"), filepath.Join(segs, "seed", "u05-small-0"))
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if len(lines) != 5 {
		t.Fatalf("%d JSON lines, want 5 (4 codecs + u05-small-0):\n%s", len(lines), out)
	}
	for _, l := range lines {
		var o map[string]any
		if err := json.Unmarshal([]byte(l), &o); err != nil {
			t.Fatal(err)
		}
		for _, k := range []string{"topic", "partition", "batches", "records", "histogram", "records_per_batch", "bytes", "fill", "codecs", "compression_ratio", "producer_ids"} {
			if _, ok := o[k]; !ok {
				t.Errorf("%s lacks %q", l, k)
			}
		}
		compressed := o["compressed_batches"].(float64) > 0
		if r, ok := o["compression_ratio"].(float64); compressed != ok || (ok && r <= 1) {
			t.Errorf("%s: compression_ratio %v with %v compressed batches", o["name"], o["compression_ratio"], o["compressed_batches"])
		}
	}
	out, _, code = runKseg(t, "count", "--detail", "--workers", "1", filepath.Join(segs, "txn"))
	if code != 0 || !strings.Contains(out, "CONTROL") || !strings.Contains(out, "txn-0") {
		t.Errorf("detail table missing:\n%s", out)
	}
}

// TestProduceLinesMatchCount: what kseg produce prints is what kseg count
// reads back from the directory it wrote.
func TestProduceLinesMatchCount(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "run")
	prod, stderr, code := runKseg(t, "produce", "--out", dir, "--partitions", "3", "--records", "900", "--key-prefix", "k", "--key-count", "7", "--batch-size", "2048")
	if code != 0 {
		t.Fatalf("produce: %d %s", code, stderr)
	}
	cnt, stderr, code := runKseg(t, "count", dir)
	if code != 0 || cnt != prod {
		t.Errorf("count (exit %d, %s):\n%s\nproduce:\n%s", code, stderr, cnt, prod)
	}
}

func TestDiff(t *testing.T) {
	root := t.TempDir()
	a, b := filepath.Join(root, "a"), filepath.Join(root, "b")
	hist := map[string]string{} // run -> histogram kseg produce printed
	for _, r := range []struct {
		dir  string
		args []string
	}{{a, []string{"--linger-ms", "1000", "--batch-size", "1024"}}, {b, []string{"--linger-ms", "1000", "--batch-size", "16384"}}} {
		out, stderr, code := runKseg(t, append([]string{"produce", "--out", r.dir, "--headers", "1"}, r.args...)...)
		if code != 0 {
			t.Fatal(stderr)
		}
		_, h, _ := strings.Cut(strings.TrimSpace(out), "records per batch: ")
		hist[r.dir] = h
	}
	// B's first batch holds as many records as its histogram's largest group.
	firstB, _, _ := strings.Cut(hist[b], "x")
	nB, _ := strconv.Atoi(firstB)
	if hist[a] == hist[b] || nB < 2 {
		t.Fatalf("the two runs should batch differently: %q vs %q", hist[a], hist[b])
	}
	c := filepath.Join(root, "c")
	if _, stderr, code := runKseg(t, "produce", "--out", c, "--linger-ms", "1000", "--batch-size", "1024", "--value-size", "99", "--headers", "1"); code != 0 {
		t.Fatal(stderr)
	}
	tests := []struct {
		name string
		args []string
		code ExitCode
		out  []string
	}{
		{"same run", []string{a, a}, 0, []string{"layout: equal", "equal\n"}},
		{"same run records", []string{"--records", a, a}, 0, []string{"records: equal"}},
		{"batching differs", []string{a, b}, 1, []string{hist[a], hist[b], fmt.Sprintf("batch #0: A offsets 0..7 (8 records), B offsets 0..%d (%d records)", nB-1, nB)}},
		{"content same across batching", []string{"--records", a, b}, 1, []string{"records: equal"}},
		{"content differs", []string{"--records", a, c}, 1, []string{"layout: equal", "records: differ from record #0"}},
		{"usage", []string{a}, 2, nil},
		{"unreadable", []string{a, filepath.Join(root, "nope")}, 3, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			out, stderr, code := runKseg(t, append([]string{"diff"}, tc.args...)...)
			if code != tc.code {
				t.Fatalf("exit %d, want %d\n%s%s", code, tc.code, out, stderr)
			}
			for _, s := range tc.out {
				if !strings.Contains(out, s) {
					t.Errorf("output lacks %q:\n%s", s, out)
				}
			}
		})
	}
	out, _, code := runKseg(t, "diff", "--json", "--records", a, b)
	var doc struct {
		Equal      bool
		Partitions []struct {
			LayoutEqual  bool  `json:"layout_equal"`
			RecordsEqual *bool `json:"records_equal"`
			FirstA       *struct {
				LastOffset int64 `json:"last_offset"`
			} `json:"first_diverging_batch_a"`
		}
	}
	if err := json.Unmarshal([]byte(out), &doc); err != nil || code != 1 {
		t.Fatalf("exit %d, %v: %s", code, err, out)
	}
	if doc.Equal || len(doc.Partitions) != 1 || doc.Partitions[0].LayoutEqual || doc.Partitions[0].RecordsEqual == nil ||
		!*doc.Partitions[0].RecordsEqual || doc.Partitions[0].FirstA == nil || doc.Partitions[0].FirstA.LastOffset != 7 {
		t.Errorf("json: %s", out)
	}
}

// Two partitions with the same name from different paths are told apart:
// each line and table row is qualified with its directory; a name that
// occurs once is shown as it is.
func TestCountSameNameQualified(t *testing.T) {
	seed := filepath.Join(goldens.Segments(t), "seed", "u05-small-0")
	root := t.TempDir()
	t.Chdir(root)
	for _, d := range []string{"a/orders-0", "b/orders-0", "c/payments-0"} {
		os.MkdirAll(d, 0o755)
		b, err := os.ReadFile(filepath.Join(seed, "00000000000000000000.log"))
		if err != nil {
			t.Fatal(err)
		}
		os.WriteFile(filepath.Join(d, "00000000000000000000.log"), b, 0o644)
	}
	stdout, stderr, code := runKseg(t, "count", "--detail", "a/orders-0", "b/orders-0", "c/payments-0")
	if code != 0 {
		t.Fatalf("code %d: %s", code, stderr)
	}
	lines := strings.Split(stdout, "\n")
	for i, want := range []string{"a/orders-0: ", "b/orders-0: ", "payments-0: "} {
		if !strings.HasPrefix(lines[i], want) {
			t.Errorf("line %d: %q, want it to start with %q", i, lines[i], want)
		}
	}
	for _, want := range []string{" a/orders-0 ", " b/orders-0 ", " payments-0 "} {
		if !strings.Contains(stdout, want) {
			t.Errorf("table lacks a row %q:\n%s", want, stdout)
		}
	}
}
