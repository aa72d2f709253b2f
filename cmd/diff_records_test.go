package cmd

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/kseg/kseg/batch"
)

type testRecord struct {
	key, value string
	headers    []batch.RecordHeader
}

// writeRecords writes dir/t-0 with the records in batches of per.
func writeRecords(t *testing.T, dir string, per int, recs []testRecord) string {
	t.Helper()
	part := filepath.Join(dir, "t-0")
	if err := os.MkdirAll(part, 0o755); err != nil {
		t.Fatal(err)
	}
	var log []byte
	for base := 0; base < len(recs); base += per {
		b := batch.NewBuilder(batch.CodecNone)
		for _, r := range recs[base:min(base+per, len(recs))] {
			b.Append(1700000000000, []byte(r.key), []byte(r.value), r.headers)
		}
		var err error
		log, err = b.Build(log, batch.Header{BaseOffset: int64(base), ProducerID: -1, ProducerEpoch: -1, BaseSequence: -1}, nil)
		if err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(part, "00000000000000000000.log"), log, 0o644); err != nil {
		t.Fatal(err)
	}
	return part
}

func hdr(k string, v *string) batch.RecordHeader {
	h := batch.RecordHeader{Key: []byte(k)}
	if v != nil {
		h.Value = []byte(*v)
	}
	return h
}

func sp(s string) *string { return &s }

// TestDiffRecordsShowsHeaders: the text output of --records names the
// differing records' headers, keys and values in order, so a difference in
// headers alone is visible.
func TestDiffRecordsShowsHeaders(t *testing.T) {
	base := []testRecord{
		{"k0", "v0", []batch.RecordHeader{hdr("trace", sp("a"))}},
		{"k1", "v1", []batch.RecordHeader{hdr("trace", sp("b")), hdr("dup", sp("x")), hdr("dup", nil)}},
		{"k2", "v2", nil},
	}
	with := func(i int, hs []batch.RecordHeader) []testRecord {
		out := append([]testRecord(nil), base...)
		out[i].headers = hs
		return out
	}
	var many []batch.RecordHeader
	for i := 0; i < 12; i++ { // two more than the 10 shown
		many = append(many, hdr("h"+strconv.Itoa(i), sp(""))) // empty, not null
	}
	root := t.TempDir()
	a := writeRecords(t, filepath.Join(root, "a"), 2, base)
	tests := []struct {
		name string
		b    []testRecord
		per  int
		want string
	}{
		{"header value null vs set", with(1, []batch.RecordHeader{hdr("trace", sp("b")), hdr("dup", sp("x")), hdr("dup", sp("y"))}), 2,
			`records: differ from record #1: A offset 1 key "k1" value "v1" headers ["trace"="b", "dup"="x", "dup"=null], B offset 1 key "k1" value "v1" headers ["trace"="b", "dup"="x", "dup"="y"]`},
		{"header order", with(0, []batch.RecordHeader{hdr("trace", sp("a")), hdr("trace", sp("a"))}), 1,
			`records: differ from record #0: A offset 0 key "k0" value "v0" headers ["trace"="a"], B offset 0 key "k0" value "v0" headers ["trace"="a", "trace"="a"]`},
		{"headers gone", with(0, nil), 2,
			`records: differ from record #0: A offset 0 key "k0" value "v0" headers ["trace"="a"], B offset 0 key "k0" value "v0"` + "\n"},
		{"many headers", with(2, many), 2,
			`B offset 2 key "k2" value "v2" headers ["h0"="", "h1"="", "h2"="", "h3"="", "h4"="", "h5"="", "h6"="", "h7"="", "h8"="", "h9"="", (+2 more)]`},
		{"long header value cut", with(2, []batch.RecordHeader{hdr(strings.Repeat("k", 70), sp(strings.Repeat("v", 61)))}), 2,
			`headers ["` + strings.Repeat("k", 60) + `..."="` + strings.Repeat("v", 60) + `..."]`},
		{"no more records", base[:2], 2, `records: differ from record #2: A offset 2 key "k2" value "v2", B (no more records)`},
	}
	for i, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			b := writeRecords(t, filepath.Join(root, "b"+strconv.Itoa(i)), tc.per, tc.b)
			out, stderr, code := runKseg(t, "diff", "--records", a, b)
			if code != 1 {
				t.Fatalf("exit %d, want 1\n%s%s", code, out, stderr)
			}
			if !strings.Contains(out, tc.want) {
				t.Errorf("output lacks\n%s\n%s", tc.want, out)
			}
		})
	}
	out, stderr, code := runKseg(t, "diff", "--records", a, writeRecords(t, filepath.Join(root, "same"), 1, base))
	if code != 1 || !strings.Contains(out, "records: equal") {
		t.Errorf("rebatched copy: exit %d\n%s%s", code, out, stderr)
	}
}
