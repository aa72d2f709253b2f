package audit

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kseg/kseg/batch"
	"github.com/kseg/kseg/index"
	"github.com/kseg/kseg/producer"
	"github.com/kseg/kseg/segment"
)

// repoRoot walks up from the package directory to the one holding go.mod.
func repoRoot(t testing.TB) string {
	t.Helper()
	wd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for d := wd; ; d = filepath.Dir(d) {
		if _, err := os.Stat(filepath.Join(d, "go.mod")); err == nil {
			return d
		}
		if filepath.Dir(d) == d {
			t.Fatal("no go.mod above", wd)
		}
	}
}

// oracleDir returns testdata/segments/<rel>, Kafka-written fixtures that
// are committed with the code: when one is missing the test fails.
func oracleDir(t testing.TB, rel string) string {
	t.Helper()
	d := filepath.Join(repoRoot(t), "testdata", "segments", rel)
	if _, err := os.Stat(d); err != nil {
		t.Fatalf("committed fixture missing: %v", err)
	}
	return d
}

// readBatches returns copies of every entry of a log file.
func readBatches(t testing.TB, path string) [][]byte {
	t.Helper()
	f, err := segment.OpenFile(path, 0, segment.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out [][]byte
	for f.Next() {
		b, err := f.Batch().Bytes()
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, append([]byte(nil), b...))
	}
	if err := f.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// writeLog writes batches as dir/<base>.log. With renumber the base offsets
// are made contiguous from base, as a broker would assign them (the base
// offset is not covered by the CRC).
func writeLog(t testing.TB, dir string, base int64, batches [][]byte, renumber bool) string {
	t.Helper()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	var buf []byte
	next := base
	for _, b := range batches {
		b = append([]byte(nil), b...)
		if renumber {
			batch.SetBaseOffset(b, next)
		}
		h, _ := batch.ParseHeader(b)
		next = h.LastOffset() + 1
		buf = append(buf, b...)
	}
	path := filepath.Join(dir, index.FormatBaseOffset(base)+".log")
	if err := os.WriteFile(path, buf, 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

func copyFile(t testing.TB, src, dst string) {
	t.Helper()
	b, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(dst, b, 0o644); err != nil {
		t.Fatal(err)
	}
}

// copyPartition copies a partition directory's regular files into a new
// directory named like it under t.TempDir().
func copyPartition(t testing.TB, src string) string {
	t.Helper()
	dst := filepath.Join(t.TempDir(), filepath.Base(src))
	if err := os.Mkdir(dst, 0o755); err != nil {
		t.Fatal(err)
	}
	ents, err := os.ReadDir(src)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range ents {
		if !e.IsDir() {
			copyFile(t, filepath.Join(src, e.Name()), filepath.Join(dst, e.Name()))
		}
	}
	return dst
}

func auditPaths(t testing.TB, opts Options, paths ...string) []*Result {
	t.Helper()
	parts, err := Partitions(paths)
	if err != nil {
		t.Fatal(err)
	}
	var out []*Result
	for _, p := range parts {
		r, err := Run(p, opts)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, r)
	}
	return out
}

func auditOne(t testing.TB, opts Options, path string) *Result {
	t.Helper()
	rs := auditPaths(t, opts, path)
	if len(rs) != 1 {
		t.Fatalf("%s: %d partitions, want 1", path, len(rs))
	}
	return rs[0]
}

func findings(r *Result, code Code) []Finding {
	var out []Finding
	for _, f := range r.Findings {
		if f.Code == code {
			out = append(out, f)
		}
	}
	return out
}

// atLeast returns the findings at or above sev.
func atLeast(r *Result, sev Severity) []Finding {
	var out []Finding
	for _, f := range r.Findings {
		if f.Severity >= sev {
			out = append(out, f)
		}
	}
	return out
}

func dumpFindings(r *Result) string {
	var sb strings.Builder
	for _, f := range r.Findings {
		sb.WriteString("  " + f.Severity.String() + " " + string(f.Code) + ": " + f.Message + "\n")
	}
	return sb.String()
}

// produce runs the reference producer into a fresh directory and returns
// the partition directory of partition 0 and the run's result.
func produce(t testing.TB, records int64, faults ...string) (string, *producer.Result) {
	t.Helper()
	cfg := producer.DefaultConfig()
	cfg.Topic = "audit"
	cfg.Records = records
	cfg.BatchSize = 1024
	cfg.ProducerID = 42
	for _, s := range faults {
		f, err := producer.ParseFault(s)
		if err != nil {
			t.Fatal(err)
		}
		cfg.Inject = append(cfg.Inject, f)
	}
	out := filepath.Join(t.TempDir(), "logs")
	res, err := producer.Run(cfg, out, false)
	if err != nil {
		t.Fatal(err)
	}
	return filepath.Join(out, "audit-0"), res
}
