package cmd_test

import (
	"bytes"
	"encoding/binary"
	"os"
	"path/filepath"
	"strconv"
	"testing"
)

// trailingLog writes a committed segment with one batch's length set to
// 0x7fffffff under dir/t-0 and returns the partition directory, the byte
// where framing stops and the batches before it. Kafka calls everything
// from there "invalid bytes at the end"; the batches after it are intact.
func trailingLog(t *testing.T) (part string, stop int64, before int) {
	t.Helper()
	good := repoFile(t, "testdata/explain-oracle/e-none-b512-v1000/e-none-b512-v1000-0/"+seg0)
	var starts []int64
	for p := int64(0); p < int64(len(good)); p += int64(binary.BigEndian.Uint32(good[p+8:])) + 12 {
		starts = append(starts, p)
	}
	before = len(starts) / 3
	stop = starts[before]
	data := bytes.Clone(good)
	binary.BigEndian.PutUint32(data[stop+8:], 0x7fffffff)
	part = filepath.Join(t.TempDir(), "t-0")
	if err := os.MkdirAll(part, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(part, seg0), data, 0o644); err != nil {
		t.Fatal(err)
	}
	return part, stop, before
}

// TestTrailingBatchesFail: no kseg command calls a log healthy when intact
// batches follow the point where framing stopped. Before the fix count
// printed the batches before the stop and exited 0 (so did its CI checks),
// and dump, diff, explain and report passed the log too. Kafka's --files
// form keeps Kafka's verdict.
func TestTrailingBatchesFail(t *testing.T) {
	part, stop, before := trailingLog(t)
	log := filepath.Join(part, seg0)
	loc := []byte(log + ": at byte " + strconv.FormatInt(stop, 10) + ": ")
	what := []byte("bytes after it frame as valid batches")
	hist := strconv.Itoa(before) + "x1"
	for _, args := range [][]string{
		{"count", part},
		{"count", "--expect-histogram", hist, part},
		{"count", "--max-batches", "1000000", part},
		{"dump", log},
		{"dump", "--format", "kseg", log},
		{"dump", "--format", "json", log},
		{"diff", part, part},
		{"explain", part},
		{"report", part, "--out", filepath.Join(t.TempDir(), "r.html")},
	} {
		so, se, code := execute(t, args...)
		if code != 3 || !bytes.Contains(se, loc) || !bytes.Contains(se, what) {
			t.Errorf("kseg %q: exit %d, want 3 with %q and %q; stderr %q stdout %.300q", args, code, loc, what, se, so)
		}
	}
	so, se, code := execute(t, "dump", log, "--keep-going")
	if code != 1 || !bytes.Contains(se, []byte("corrupt region in "+log+": bytes "+strconv.FormatInt(stop, 10)+"..")) {
		t.Errorf("dump --keep-going: exit %d, stderr %q", code, se)
	}
	_ = so

	t.Chdir(part)
	so, se, code = execute(t, "dump", "--files", seg0)
	if code != 0 || !bytes.Contains(so, []byte("invalid bytes at the end of "+seg0)) || len(se) != 0 {
		t.Errorf("dump --files: exit %d stderr %q, want Kafka's 0 and \"Found N invalid bytes\"", code, se)
	}
}
