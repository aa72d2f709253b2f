package cmd_test

import (
	"bytes"
	"encoding/binary"
	"os"
	"path/filepath"
	"regexp"
	"testing"
)

// TestExplainLocatesBadRecord: explain, report --explain and produce --like
// name the file and the absolute byte of a bad record, the place dump
// names. Before the fix they said "at byte 72" (the byte in the batch) and
// no file.
func TestExplainLocatesBadRecord(t *testing.T) {
	data := bytes.Clone(repoFile(t, "testdata/explain-oracle/e-none-b512-v1000/e-none-b512-v1000-0/"+seg0))
	var starts []int
	for p := 0; p < len(data); p += int(binary.BigEndian.Uint32(data[p+8:])) + 12 {
		starts = append(starts, p)
	}
	pos := starts[3]
	copy(data[pos+61:], []byte{0xff, 0xff, 0xff, 0xff, 0xff}) // the first record's length: a varint too long
	fixCRC(data, pos)
	part := filepath.Join(t.TempDir(), "t-0")
	if err := os.MkdirAll(part, 0o755); err != nil {
		t.Fatal(err)
	}
	log := filepath.Join(part, seg0)
	if err := os.WriteFile(log, data, 0o644); err != nil {
		t.Fatal(err)
	}
	_, se, code := execute(t, "dump", "--deep-iteration", log)
	m := regexp.MustCompile(regexp.QuoteMeta(log) + `: at byte (\d+):`).FindSubmatch(se)
	if code != 3 || m == nil {
		t.Fatalf("dump: exit %d, stderr %q: want a located error", code, se)
	}
	want := []byte(log + ": at byte " + string(m[1]) + ":")
	for _, args := range [][]string{
		{"explain", part},
		{"report", "--explain", part, "--out", filepath.Join(t.TempDir(), "r.html")},
		{"produce", "--like", part, "--out", filepath.Join(t.TempDir(), "out")},
	} {
		_, se, code := execute(t, args...)
		if code != 3 || !bytes.Contains(se, want) {
			t.Errorf("kseg %q: exit %d, stderr %q; want exit 3 and %q (where dump places it)", args, code, se, want)
		}
	}
}
