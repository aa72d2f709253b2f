package cmd

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestProduceSeedLines(t *testing.T) {
	root := t.TempDir()
	tests := []struct {
		args []string
		want string
	}{
		{[]string{"--records", "200", "--value-size", "100", "--sync", "--linger-ms", "0"},
			"kseg-ref-0: 200 batches, 200 records, records per batch: 1x200\n"},
		{[]string{"--batch-size", "1024", "--linger-ms", "1000"},
			"kseg-ref-0: 25 batches, 200 records, records per batch: 8x25\n"},
		{[]string{"--batch-size", "16384", "--linger-ms", "1000"},
			"kseg-ref-0: 2 batches, 200 records, records per batch: 148x1 52x1\n"},
		{[]string{"--linger-ms", "1000", "--first-send-delay", "70ms"},
			"kseg-ref-0: 2 batches, 200 records, records per batch: 147x1 53x1\n"},
		// Several partitions: the seed's figures are the ideal model's
		// (the timing model predicts partly filled first batches in some runs).
		{[]string{"--ideal", "--topic", "u05-keyed", "--partitions", "3", "--records", "600", "--key-prefix", "key-", "--key-count", "10", "--batch-size", "1024", "--linger-ms", "1000"},
			"u05-keyed-0: 23 batches, 180 records, records per batch: 8x22 4x1\n" +
				"u05-keyed-1: 23 batches, 180 records, records per batch: 8x22 4x1\n" +
				"u05-keyed-2: 30 batches, 240 records, records per batch: 8x30\n"},
	}
	for i, tt := range tests {
		out := filepath.Join(root, strings.Repeat("x", i+1))
		stdout, stderr, code := runKseg(t, append([]string{"produce", "--out", out}, tt.args...)...)
		if code != 0 || stdout != tt.want {
			t.Errorf("produce %v: code %d\n%s%s\nwant\n%s", tt.args, code, stdout, stderr, tt.want)
		}
	}
}

func TestProduceUsageErrors(t *testing.T) {
	root := t.TempDir()
	out := filepath.Join(root, "o")
	if _, _, code := runKseg(t, "produce", "--out", out, "--records", "3"); code != 0 {
		t.Fatal("first run failed")
	}
	for _, args := range [][]string{
		{"produce", "--out", out, "--records", "3"},                // exists
		{"produce", "--records", "3"},                              // no --out
		{"produce", "--out", out + "2", "--compression", "brotli"}, // bad codec
		{"produce", "--out", out + "3", "--acks", "1", "--idempotence=true"},
		{"produce", "--out", out + "4", "--inject", "nonsense"},
	} {
		_, stderr, code := runKseg(t, args...)
		if code != ExitUsage || !strings.Contains(stderr, "kseg: error:") {
			t.Errorf("%v: code %d, stderr %q", args, code, stderr)
		}
	}
	// --acks 1 alone turns idempotence off, as KafkaProducer does.
	if _, stderr, code := runKseg(t, "produce", "--out", out+"5", "--acks", "1", "--records", "3"); code != 0 {
		t.Errorf("--acks 1: %s", stderr)
	}
	if _, stderr, code := runKseg(t, "produce", "--out", out, "--records", "3", "--force"); code != 0 {
		t.Errorf("--force: %s", stderr)
	}
}

func TestProduceWorkload(t *testing.T) {
	root := t.TempDir()
	wl := filepath.Join(root, "wl.json")
	os.WriteFile(wl, []byte(`{"records": 200, "value-size": 100, "linger-ms": 1000,
		"runs": [{"name": "small", "batch-size": 1024}, {"name": "cold", "first-send-delay": "70ms"}],
		"sweep": {"compression": ["none", "lz4"]}}`), 0o644)
	out := filepath.Join(root, "out")
	stdout, stderr, code := runKseg(t, "produce", "--out", out, "--workload", wl, "--topic", "wl")
	if code != 0 {
		t.Fatalf("code %d: %s", code, stderr)
	}
	for _, want := range []string{
		"== small_compression=none\nwl-0: 25 batches, 200 records, records per batch: 8x25\n",
		"== cold_compression=none\nwl-0: 2 batches, 200 records, records per batch: 147x1 53x1\n",
		"== small_compression=lz4\n",
		"RUN", "RECORDS PER BATCH",
	} {
		if !strings.Contains(stdout, want) {
			t.Errorf("output lacks %q:\n%s", want, stdout)
		}
	}
	for _, run := range []string{"small_compression=none", "small_compression=lz4", "cold_compression=none", "cold_compression=lz4"} {
		if _, err := os.Stat(filepath.Join(out, run, "wl-0", "00000000000000000000.log")); err != nil {
			t.Errorf("run %s: %v", run, err)
		}
	}
	os.WriteFile(wl, []byte(`{"no-such-flag": 1}`), 0o644)
	if _, _, code := runKseg(t, "produce", "--out", filepath.Join(root, "bad"), "--workload", wl); code != ExitUsage {
		t.Errorf("unknown setting: code %d", code)
	}
}

// --inject with --json is a usage error found before the run is written:
// no directory is left behind and nothing is printed.
func TestProduceInjectJSONWritesNothing(t *testing.T) {
	out := filepath.Join(t.TempDir(), "o")
	stdout, stderr, code := runKseg(t, "produce", "--out", out, "--records", "200", "--batch-size", "1024", "--linger-ms", "1000", "--inject", "gap@2", "--json")
	if code != ExitUsage || stdout != "" || !strings.Contains(stderr, "--inject") {
		t.Errorf("code %d, stdout %q, stderr %q", code, stdout, stderr)
	}
	if _, err := os.Stat(out); !os.IsNotExist(err) {
		t.Errorf("%s was written: %v", out, err)
	}
}

// --force replaces what kseg produce wrote, and refuses, saying why, a
// non-empty directory it did not write.
func TestProduceForceRefusesForeignDir(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "mine")
	os.Mkdir(dir, 0o755)
	os.WriteFile(filepath.Join(dir, "thesis.tex"), []byte("years of work"), 0o644)
	_, stderr, code := runKseg(t, "produce", "--out", dir, "--records", "3", "--force")
	if code != ExitUsage || !strings.Contains(stderr, "not written by kseg") {
		t.Errorf("code %d, stderr %q", code, stderr)
	}
	if b, err := os.ReadFile(filepath.Join(dir, "thesis.tex")); err != nil || string(b) != "years of work" {
		t.Errorf("foreign directory replaced: %v", err)
	}
}
