package cmd

import (
	"bytes"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

var gzipBurst = []string{"--records", "3000", "--compression", "gzip", "--batch-size", "4096", "--linger-ms", "1000"}

func TestProduceRunsText(t *testing.T) {
	t.Chdir(t.TempDir())
	args := append([]string{"produce", "--dry-run", "--runs", "20"}, gzipBurst...)
	out, stderr, code := runKseg(t, args...)
	if code != 0 {
		t.Fatalf("code %d: %s", code, stderr)
	}
	m := regexp.MustCompile(`^kseg-ref-0: \d+ batches \((\d+)–(\d+) over 20 runs\), 3000 records, (\d+) records per batch \((\d+)–(\d+)\)\n$`).FindStringSubmatch(out)
	if m == nil {
		t.Fatalf("output %q", out)
	}
	// One partition of 3000 records: the fewest records per batch is the
	// run with the most batches, and the median lies between.
	n := make([]float64, len(m))
	for i := 1; i < len(m); i++ {
		n[i], _ = strconv.ParseFloat(m[i], 64)
	}
	if lo, hi := math.Round(3000/n[2]), math.Round(3000/n[1]); n[4] != lo || n[5] != hi || n[3] < lo || n[3] > hi {
		t.Errorf("records per batch %v (%v–%v), want the range %v–%v from the batch counts: %q", n[3], n[4], n[5], lo, hi, out)
	}
	again, _, _ := runKseg(t, args...)
	if again != out {
		t.Errorf("same flags, other output:\n%s%s", out, again)
	}
	if ents, _ := os.ReadDir("."); len(ents) != 0 {
		t.Errorf("--dry-run wrote %d entries", len(ents))
	}
	for _, bad := range [][]string{
		{"produce", "--dry-run", "--out", "x"},
		{"produce", "--runs", "0", "--dry-run"},
		{"produce", "--dry-run", "--ideal", "--timing-set", "send-cost=1us"},
		{"produce", "--dry-run", "--value-entropy", "2"},
		{"produce", "--dry-run", "--value-file", "v.txt", "--value-entropy", "0.5"},
		{"produce", "--dry-run", "--compare", ".", "--tolerance", "0"},
	} {
		if _, stderr, code := runKseg(t, bad...); code != ExitUsage {
			t.Errorf("%v: code %d %s", bad, code, stderr)
		}
	}
}

// TestProduceRunsJSON checks the NDJSON schema: per run and partition
// {"type":"run","run","topic","partition","batches","records",
// "records_per_batch"}, then per partition {"type":"envelope","topic",
// "partition","runs","batches":{min,p5,p50,p95,max},"records_per_batch_p50"}.
func TestProduceRunsJSON(t *testing.T) {
	args := []string{"produce", "--dry-run", "--json", "--runs", "7", "--partitions", "3", "--key-prefix", "k", "--key-count", "5", "--records", "900", "--batch-size", "2048"}
	out, stderr, code := runKseg(t, args...)
	if code != 0 {
		t.Fatalf("code %d: %s", code, stderr)
	}
	lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
	if len(lines) != 7*3+3 {
		t.Fatalf("%d lines", len(lines))
	}
	runKeys := []string{"type", "run", "topic", "partition", "batches", "records", "records_per_batch"}
	envKeys := []string{"type", "topic", "partition", "runs", "batches", "records_per_batch_p50"}
	records := map[int]map[int]bool{} // partition -> its record counts over the runs
	for i, l := range lines {
		want := runKeys
		if i >= 21 {
			want = envKeys
		}
		if got := jsonKeys(t, l); strings.Join(got, ",") != strings.Join(want, ",") {
			t.Fatalf("line %d keys %v, want %v: %s", i, got, want, l)
		}
		var m map[string]any
		json.Unmarshal([]byte(l), &m)
		if i < 21 {
			if m["type"] != "run" || int(m["run"].(float64)) != i/3 || int(m["partition"].(float64)) != i%3 || m["topic"] != "kseg-ref" {
				t.Errorf("line %d: %s", i, l)
			}
			sum := 0
			for _, n := range m["records_per_batch"].([]any) {
				sum += int(n.(float64))
			}
			if sum != int(m["records"].(float64)) || len(m["records_per_batch"].([]any)) != int(m["batches"].(float64)) {
				t.Errorf("line %d does not add up: %s", i, l)
			}
			p := int(m["partition"].(float64))
			if records[p] == nil {
				records[p] = map[int]bool{}
			}
			records[p][sum] = true
		} else {
			b := m["batches"].(map[string]any)
			if strings.Join(jsonKeys(t, mustMarshalRaw(l, "batches")), ",") != "min,p5,p50,p95,max" || m["runs"].(float64) != 7 {
				t.Errorf("envelope line %s", l)
			}
			if b["min"].(float64) > b["p50"].(float64) || b["p50"].(float64) > b["max"].(float64) {
				t.Errorf("envelope line %s", l)
			}
		}
	}
	for p, sums := range records {
		if len(sums) != 1 {
			t.Errorf("keyed partition %d should hold the same records in every run: %v", p, sums)
		}
	}
}

// jsonKeys lists the keys of a JSON object in their order.
func jsonKeys(t *testing.T, obj string) []string {
	t.Helper()
	dec := json.NewDecoder(strings.NewReader(obj))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		t.Fatalf("not an object: %s", obj)
	}
	var keys []string
	for dec.More() {
		k, _ := dec.Token()
		keys = append(keys, k.(string))
		var skip json.RawMessage
		dec.Decode(&skip)
	}
	return keys
}

func mustMarshalRaw(obj, key string) string {
	var m map[string]json.RawMessage
	json.Unmarshal([]byte(obj), &m)
	return string(m[key])
}

func TestProduceRunsWritesMedianAndCompare(t *testing.T) {
	root := t.TempDir()
	keyed := []string{"--partitions", "4", "--key-prefix", "user-", "--key-count", "12", "--value-size", "10", "--records", "3000", "--batch-size", "4096", "--linger-ms", "5000"}
	out := filepath.Join(root, "median")
	stdout, stderr, code := runKseg(t, append([]string{"produce", "--runs", "40", "--out", out}, keyed...)...)
	if code != 0 {
		t.Fatalf("code %d: %s", code, stderr)
	}
	if _, err := os.Stat(filepath.Join(out, "kseg-envelope.ndjson")); err != nil {
		t.Fatal(err)
	}
	// The median run's files count as its line says.
	counted, _, _ := runKseg(t, "count", out)
	re := regexp.MustCompile(`(?m)^(kseg-ref-\d): (\d+) batches \(\d+–\d+ over 40 runs\), (\d+) records, \d+ records per batch \(\d+–\d+\)$`)
	ms := re.FindAllStringSubmatch(stdout, -1)
	if len(ms) != 4 {
		t.Fatalf("output %q", stdout)
	}
	for _, m := range ms {
		if !strings.Contains(counted, m[1]+": "+m[2]+" batches, "+m[3]+" records") {
			t.Errorf("count says\n%s\nproduce said %s", counted, m[0])
		}
	}
	// The median run lies inside its own prediction; a log written with
	// half the batch.size does not.
	cmp := append([]string{"produce", "--runs", "40", "--compare", out}, keyed...)
	stdout, stderr, code = runKseg(t, cmp...)
	if code != 0 || len(regexp.MustCompile(`(?m)\): inside$`).FindAllString(stdout, -1)) != 4 {
		t.Errorf("compare with the median run: code %d\n%s%s", code, stdout, stderr)
	}
	ideal := filepath.Join(root, "small")
	if _, stderr, code := runKseg(t, append(append([]string{"produce", "--ideal", "--out", ideal}, keyed...), "--batch-size", "2048")...); code != 0 {
		t.Fatal(stderr)
	}
	stdout, _, code = runKseg(t, append([]string{"produce", "--runs", "40", "--compare", ideal}, keyed...)...)
	if code != ExitFindings || !strings.Contains(stdout, "OUTSIDE") {
		t.Errorf("compare with a smaller batch.size: code %d\n%s", code, stdout)
	}
	stdout, _, _ = runKseg(t, append([]string{"produce", "--runs", "40", "--json", "--compare", ideal}, keyed...)...)
	if n := strings.Count(stdout, `{"type":"compare",`); n != 4 {
		t.Errorf("%d compare lines:\n%s", n, stdout)
	}
	// The report draws the band.
	html := filepath.Join(root, "r.html")
	if _, stderr, code := runKseg(t, "report", "-q", "--out", html, out); code != 0 {
		t.Fatal(stderr)
	}
	page, _ := os.ReadFile(html)
	if n := bytes.Count(page, []byte(`data-chart="envelope"`)); n != 4 {
		t.Errorf("%d envelope charts", n)
	}
}

func TestProduceSweepRunsMatrix(t *testing.T) {
	root := t.TempDir()
	wl := filepath.Join(root, "wl.json")
	os.WriteFile(wl, []byte(`{"records": 1500, "compression": "lz4", "linger-ms": 5000,
		"sweep": {"batch-size": [1024, 4096], "value-size": [50, 200]}}`), 0o644)
	out := filepath.Join(root, "sweep")
	stdout, stderr, code := runKseg(t, "produce", "--workload", wl, "--runs", "10", "--out", out)
	if code != 0 {
		t.Fatalf("code %d: %s", code, stderr)
	}
	if !regexp.MustCompile(`(?m)^batch-size=1024_value-size=50 +5000 +1024 +lz4 +0 +\d+ \(\d+–\d+\) +1500 `).MatchString(stdout) {
		t.Errorf("summary table:\n%s", stdout)
	}
	html := filepath.Join(root, "r.html")
	if _, stderr, code := runKseg(t, "report", "-q", "--out", html, out); code != 0 {
		t.Fatal(stderr)
	}
	page, _ := os.ReadFile(html)
	i := bytes.Index(page, []byte(`<table class="matrix">`))
	j := bytes.Index(page, []byte(`<h2 id="p-`))
	if i < 0 || j < i {
		t.Fatalf("no matrix before the per-run sections")
	}
	matrix := string(page[i:j])
	for _, want := range []string{"<th>batch-size</th><th>value-size=50</th><th>value-size=200</th>", "<th>batch-size=4096</th>", `data-run="batch-size=4096_value-size=200"`} {
		if !strings.Contains(matrix, want) {
			t.Errorf("matrix lacks %s:\n%s", want, matrix)
		}
	}
	if n := strings.Count(matrix, "cell-sweep"); n != 4 {
		t.Errorf("%d cells", n)
	}
}
