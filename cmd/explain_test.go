package cmd

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// produce --json gives each batch the model's cut; explain --json on the
// written log names the same cuts and a batch.size interval holding 1024.
func TestExplainAgainstProduceJSON(t *testing.T) {
	out := filepath.Join(t.TempDir(), "run")
	stdout, stderr, code := runKseg(t, "produce", "--json", "--out", out, "--batch-size", "1024", "--linger-ms", "1000", "--records", "100")
	if code != 0 {
		t.Fatalf("produce: %d %s", code, stderr)
	}
	type line struct {
		Type       string `json:"type"`
		Partition  int    `json:"partition"`
		BaseOffset int64  `json:"base_offset"`
		Records    int    `json:"records"`
		Cut        string `json:"cut"`
		Settings   *struct {
			BatchSize *struct {
				Min int64  `json:"min"`
				Max *int64 `json:"max"`
			} `json:"batch_size"`
			LingerMs    json.RawMessage `json:"linger_ms"`
			Partitioner *string         `json:"partitioner"`
		} `json:"settings"`
	}
	parse := func(s string) []line {
		var ls []line
		for _, l := range strings.Split(strings.TrimSpace(s), "\n") {
			var x line
			if err := json.Unmarshal([]byte(l), &x); err != nil {
				t.Fatalf("%q: %v", l, err)
			}
			ls = append(ls, x)
		}
		return ls
	}
	truth := parse(stdout)
	if len(truth) != 13 || truth[0].Cut != "size" || truth[12].Cut != "flush" || truth[12].Records != 4 {
		t.Fatalf("produce --json: %s", stdout)
	}
	stdout, stderr, code = runKseg(t, "explain", "--json", out)
	if code != 0 {
		t.Fatalf("explain: %d %s", code, stderr)
	}
	got := parse(stdout)
	if len(got) != 14 {
		t.Fatalf("explain --json: %d lines\n%s", len(got), stdout)
	}
	for i, tb := range truth {
		if g := got[i]; g.Type != "batch" || g.BaseOffset != tb.BaseOffset || g.Cut != tb.Cut {
			t.Errorf("batch %d: explain %+v, model %+v", i, g, tb)
		}
	}
	p := got[13]
	if p.Type != "partition" || p.Settings == nil || p.Settings.BatchSize == nil || p.Settings.BatchSize.Max == nil ||
		p.Settings.BatchSize.Min > 1024 || *p.Settings.BatchSize.Max < 1024 {
		t.Errorf("partition line: %s", stdout)
	}
	if p.Settings != nil && (p.Settings.Partitioner == nil || *p.Settings.Partitioner != "unknown") {
		t.Errorf("one partition, no keys: want partitioner \"unknown\" (the issue's word for undecided): %s", stdout)
	}
}

// produce --like takes explain's settings: on a log the model wrote with
// 1024/1000 it writes the same layout, and a flag given on top wins.
func TestProduceLike(t *testing.T) {
	root := t.TempDir()
	src := filepath.Join(root, "src")
	if _, stderr, code := runKseg(t, "produce", "--out", src, "--batch-size", "1024", "--linger-ms", "1000", "--records", "100", "--compression", "lz4"); code != 0 {
		t.Fatal(stderr)
	}
	stdout, stderr, code := runKseg(t, "produce", "--like", src, "--out", filepath.Join(root, "like"))
	if code != 0 {
		t.Errorf("--like: code %d %q %s", code, stdout, stderr)
	}
	src2 := filepath.Join(root, "like")
	stdout2, _, _ := runKseg(t, "count", src)
	stdout3, _, _ := runKseg(t, "count", src2)
	if stdout2 != stdout3 {
		t.Errorf("layouts differ:\n%s%s", stdout2, stdout3)
	}
	// With 16 KiB batches the 100 records fit in one; the linger.ms inferred
	// from the log (about the log's span) may still cut the stream once.
	stdout, stderr, code = runKseg(t, "produce", "--like", src, "--batch-size", "16384", "--out", filepath.Join(root, "big"))
	if code != 0 || !(strings.Contains(stdout, "1 batches, 100 records") || strings.Contains(stdout, "2 batches, 100 records")) {
		t.Errorf("--like with --batch-size: code %d %q %s", code, stdout, stderr)
	}
	if _, _, code := runKseg(t, "produce", "--like", filepath.Join(root, "nothing"), "--out", filepath.Join(root, "x")); code != ExitBadInput {
		t.Errorf("--like on a missing path: code %d, want %d", code, ExitBadInput)
	}
}

// report --explain colours every size point by its cut and shows the
// inferred settings; without it the page has neither.
func TestReportExplain(t *testing.T) {
	root := t.TempDir()
	src := filepath.Join(root, "src")
	if _, stderr, code := runKseg(t, "produce", "--out", src, "--batch-size", "1024", "--linger-ms", "1000", "--records", "100"); code != 0 {
		t.Fatal(stderr)
	}
	page := filepath.Join(root, "r.html")
	if _, stderr, code := runKseg(t, "report", "--explain", "-q", "--out", page, src); code != 0 {
		t.Fatal(stderr)
	}
	b, err := os.ReadFile(page)
	if err != nil {
		t.Fatal(err)
	}
	s := string(b)
	if n := strings.Count(s, `data-cut="size"`); n != 2*12 { // 12 size cuts, on the size and time charts
		t.Errorf("%d points marked size, want 24", n)
	}
	if n := strings.Count(s, `data-cut="flush"`); n != 2 {
		t.Errorf("%d points marked flush, want 2", n)
	}
	if !strings.Contains(s, `<table class="settings">`) || !strings.Contains(s, "933..1041 B") {
		t.Errorf("no settings table with the batch.size interval")
	}
	plain := filepath.Join(root, "p.html")
	if _, stderr, code := runKseg(t, "report", "-q", "--out", plain, src); code != 0 {
		t.Fatal(stderr)
	}
	if b, _ := os.ReadFile(plain); strings.Contains(string(b), "data-cut") || strings.Contains(string(b), "settings") {
		t.Errorf("report without --explain shows cuts")
	}
}

// --max-batches: a partition cut short says so in the text and gives the
// first offset not read in --json (null when read whole); 0 is a usage
// error.
func TestExplainMaxBatchesFlag(t *testing.T) {
	dir := filepath.Join("..", "testdata", "segments", "seed", "u05-small-0")
	stdout, stderr, code := runKseg(t, "explain", "--max-batches", "10", dir)
	if code != 0 {
		t.Fatalf("explain: %d %s", code, stderr)
	}
	if !strings.Contains(stdout, "note: u05-small-0: explained its first 10 data batches; those from offset 80 on were not read") {
		t.Errorf("no note on the batches not read:\n%s", stdout)
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--max-batches", "10"}, `"unread_from":80`},
		{nil, `"unread_from":null`},
	} {
		stdout, stderr, code = runKseg(t, append(append([]string{"explain", "--json"}, tc.args...), dir)...)
		if code != 0 {
			t.Fatalf("explain --json %v: %d %s", tc.args, code, stderr)
		}
		lines := strings.Split(strings.TrimSpace(stdout), "\n")
		if last := lines[len(lines)-1]; !strings.Contains(last, `"type":"partition"`) || !strings.Contains(last, tc.want) {
			t.Errorf("explain --json %v: last line %s, want %s", tc.args, last, tc.want)
		}
	}
	if _, stderr, code = runKseg(t, "explain", "--max-batches", "0", dir); code != ExitUsage || !strings.Contains(stderr, "--max-batches") {
		t.Errorf("--max-batches 0: exit %d, %s", code, stderr)
	}
}
