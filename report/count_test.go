package report

import (
	"bytes"
	"encoding/json"
	"os"
	"strings"
	"testing"

	"github.com/kseg/kseg/segment"
)

func TestCodecMixAndPidList(t *testing.T) {
	mixes := []struct {
		in   map[string]int64
		want string
	}{
		{nil, "-"},
		{map[string]int64{"none": 5, "gzip": 3}, "gzip:3 none:5"},
	}
	for _, tc := range mixes {
		if got := codecMix(tc.in); got != tc.want {
			t.Errorf("codecMix(%v) = %q, want %q", tc.in, got, tc.want)
		}
	}
	pids := []struct {
		in   []int64
		max  int
		want string
	}{
		{nil, 4, "-"},
		{[]int64{7, 9}, 4, "7 9"},
		{[]int64{1, 2, 3, 4}, 4, "1 2 3 4"},
		{[]int64{1, 2, 3, 4, 5, 6}, 4, "1 2 3 4 (+2 more)"},
	}
	for _, tc := range pids {
		if got := pidList(tc.in, tc.max); got != tc.want {
			t.Errorf("pidList(%v, %d) = %q, want %q", tc.in, tc.max, got, tc.want)
		}
	}
}

func countStats() []segment.PartitionStats {
	s := segment.NewStats()
	s.Files, s.Batches, s.Records, s.Bytes = 1, 3, 17, 900
	s.RecordsPerBatch = map[int]int{8: 2, 1: 1}
	s.MinRecords, s.MaxRecords = 1, 8
	s.Codecs = map[string]int64{"gzip": 2, "none": 1}
	s.CompressedBatches, s.CompressedBytes, s.UncompressedBytes = 2, 300, 1000
	s.MinTimestamp, s.MaxTimestamp = 1700000000000, 1700000001500
	s.FirstOffset, s.LastOffset = 0, 16
	empty := segment.NewStats()
	empty.Measured = false
	return []segment.PartitionStats{
		{Partition: segment.Partition{Topic: "t", Partition: 0, Dir: "/d/t-0"}, Stats: s},
		{Partition: segment.Partition{Topic: "u", Partition: 3, Dir: "/d/u-3"}, Stats: empty},
	}
}

func TestCountJSON(t *testing.T) {
	var buf bytes.Buffer
	if err := CountJSON(&buf, countStats(), 1024); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSuffix(buf.String(), "\n"), "\n")
	want := []string{
		`{"topic":"t","partition":0,"name":"t-0","dir":"/d/t-0","files":1,"batches":3,"records":17,"histogram":"8x2 1x1","records_per_batch":{"1":1,"8":2},"bytes":900,"min_records":1,"max_records":8,"avg_records":5.6667,"avg_batch_bytes":300,"fill":0.293,"codecs":{"gzip":2,"none":1},"compressed_batches":2,"compressed_bytes":300,"uncompressed_bytes":1000,"compression_ratio":3.3333,"control_batches":0,"first_offset":0,"last_offset":16,"min_timestamp":1700000000000,"max_timestamp":1700000001500,"producer_ids":[]}`,
		// no batches: no fill; not measured: no uncompressed size or ratio
		`{"topic":"u","partition":3,"name":"u-3","dir":"/d/u-3","files":0,"batches":0,"records":0,"histogram":"","records_per_batch":{},"bytes":0,"min_records":0,"max_records":0,"avg_records":0,"avg_batch_bytes":0,"fill":null,"codecs":{},"compressed_batches":0,"compressed_bytes":0,"uncompressed_bytes":null,"compression_ratio":null,"control_batches":0,"first_offset":-1,"last_offset":-1,"min_timestamp":-1,"max_timestamp":-1,"producer_ids":[]}`,
	}
	if len(lines) != len(want) {
		t.Fatalf("%d lines, want %d:\n%s", len(lines), len(want), buf.String())
	}
	for i := range want {
		if lines[i] != want[i] {
			t.Errorf("line %d\n got %s\nwant %s", i, lines[i], want[i])
		}
		var o CountObject
		if err := json.Unmarshal([]byte(lines[i]), &o); err != nil {
			t.Errorf("line %d does not decode into CountObject: %v", i, err)
		}
	}
}

func TestCountText(t *testing.T) {
	for _, tc := range []struct {
		detail    bool
		batchSize int
		want      []string // substrings, in order
		not       []string
	}{
		{false, 0, []string{"t-0: 3 batches, 17 records, records per batch: 8x2 1x1\nu-3: 0 batches, 0 records, records per batch: \n"}, []string{"PARTITION"}},
		{true, 0, []string{"u-3: 0 batches", "\n\n", "PARTITION", "CODECS", "gzip:2 none:1", "3.33", "2023-11-14T22:13:20.000Z", "1.5s"}, []string{"FILL"}},
		{true, 1024, []string{"FILL", "0.293"}, nil},
	} {
		var buf bytes.Buffer
		if err := CountText(&buf, countStats(), tc.detail, tc.batchSize, Boxes); err != nil {
			t.Fatal(err)
		}
		out := buf.String()
		rest := out
		for _, w := range tc.want {
			i := strings.Index(rest, w)
			if i < 0 {
				t.Errorf("detail=%v batchSize=%d: %q missing or out of order in\n%s", tc.detail, tc.batchSize, w, out)
				break
			}
			rest = rest[i+len(w):]
		}
		for _, n := range tc.not {
			if strings.Contains(out, n) {
				t.Errorf("detail=%v batchSize=%d: unexpected %q in\n%s", tc.detail, tc.batchSize, n, out)
			}
		}
	}
}

// Tables are ASCII unless written to a UTF-8 terminal: a pipe, a file or
// the C locale get no box-drawing characters.
func TestTableStyle(t *testing.T) {
	var ascii, boxes bytes.Buffer
	if err := CountText(&ascii, countStats(), true, 0, ASCII); err != nil {
		t.Fatal(err)
	}
	if err := CountText(&boxes, countStats(), true, 0, Boxes); err != nil {
		t.Fatal(err)
	}
	for _, r := range ascii.String() {
		if r > 0x7f {
			t.Fatalf("ASCII table holds %q:\n%s", r, ascii.String())
		}
	}
	if !strings.Contains(ascii.String(), "+-") || !strings.Contains(boxes.String(), "┌") {
		t.Errorf("styles:\n%s\n%s", ascii.String(), boxes.String())
	}
	var held bytes.Buffer
	var audit bytes.Buffer
	if err := NewAuditText(&audit, &held, ASCII).Flush(); err != nil || strings.ContainsAny(audit.String(), "│─┌") {
		t.Errorf("audit table: %v\n%s", err, audit.String())
	}
	// A buffer or a pipe is no terminal.
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	defer w.Close()
	if TableStyleFor(w) != ASCII || TableStyleFor(&held) != ASCII {
		t.Error("a pipe or a buffer gets box-drawing characters")
	}
	for _, tc := range []struct {
		env  map[string]string
		utf8 bool
	}{
		{map[string]string{"LANG": "en_US.UTF-8"}, true},
		{map[string]string{"LC_ALL": "C", "LANG": "en_US.UTF-8"}, false},
		{map[string]string{"LC_CTYPE": "de_DE.utf8"}, true},
		{map[string]string{"LANG": "C"}, false},
		{map[string]string{}, false},
	} {
		if got := utf8Locale(func(k string) string { return tc.env[k] }); got != tc.utf8 {
			t.Errorf("%v: UTF-8 %v, want %v", tc.env, got, tc.utf8)
		}
	}
}
