package report

import (
	"bytes"
	"strings"
	"testing"

	"github.com/kseg/kseg/internal/diff"
)

func TestRecordText(t *testing.T) {
	many := make([]diff.Header, 12)
	for i := range many {
		many[i] = diff.Header{Key: string(rune('a' + i)), Value: []byte{}}
	}
	tests := []struct {
		name string
		r    *diff.Record
		want string
	}{
		{"none", nil, "(no more records)"},
		{"null key and value", &diff.Record{Offset: 3}, "offset 3 key null value null"},
		{"empty is not null", &diff.Record{Offset: 0, Key: []byte{}, Value: []byte("v")}, `offset 0 key "" value "v"`},
		{"quoted", &diff.Record{Key: []byte("a\"b\x00")}, `offset 0 key "a\"b\x00" value null`},
		{"cut at 60 bytes", &diff.Record{Value: bytes.Repeat([]byte("v"), 61)}, `offset 0 key null value "` + strings.Repeat("v", 60) + `..."`},
		{"headers in order, duplicates and nulls kept", &diff.Record{Headers: []diff.Header{{Key: "t", Value: []byte("a")}, {Key: "d"}, {Key: "d", Value: []byte("x")}}},
			`offset 0 key null value null headers ["t"="a", "d"=null, "d"="x"]`},
		{"at most 10 headers", &diff.Record{Headers: many},
			`offset 0 key null value null headers ["a"="", "b"="", "c"="", "d"="", "e"="", "f"="", "g"="", "h"="", "i"="", "j"="", (+2 more)]`},
		{"long header key cut", &diff.Record{Headers: []diff.Header{{Key: strings.Repeat("k", 70)}}},
			`offset 0 key null value null headers ["` + strings.Repeat("k", 60) + `..."=null]`},
	}
	for _, tc := range tests {
		if got := recordText(tc.r); got != tc.want {
			t.Errorf("%s:\n got %s\nwant %s", tc.name, got, tc.want)
		}
	}
}

func diffResult() *diff.Result {
	return &diff.Result{Partitions: []diff.Partition{
		{Name: "t-0", A: &diff.Side{Path: "a/t-0", Batches: 2, Records: 9, RecordsPerBatch: map[int]int{8: 1, 1: 1}},
			B:           &diff.Side{Path: "b/t-0", Batches: 1, Records: 9, RecordsPerBatch: map[int]int{9: 1}},
			FirstBatchA: &diff.Batch{Index: 0, BaseOffset: 0, LastOffset: 7, Records: 8}, FirstBatchB: &diff.Batch{Index: 0, BaseOffset: 0, LastOffset: 8, Records: 9},
			RecordsCompared: true, RecordsEqual: false, FirstRecord: 4,
			RecordA: &diff.Record{Offset: 4, Key: []byte("k"), Headers: []diff.Header{{Key: "h"}, {Key: "h", Value: []byte("2")}}}},
		{Name: "t-1", A: &diff.Side{Path: "a/t-1", Batches: 1, Records: 1, RecordsPerBatch: map[int]int{1: 1}}, LayoutEqual: false},
		{Name: "t-2", A: &diff.Side{Path: "a/t-2", RecordsPerBatch: map[int]int{}}, B: &diff.Side{Path: "b/t-2", RecordsPerBatch: map[int]int{}},
			LayoutEqual: true, RecordsCompared: true, RecordsEqual: true},
	}}
}

func TestDiffText(t *testing.T) {
	var buf bytes.Buffer
	if err := DiffText(&buf, diffResult()); err != nil {
		t.Fatal(err)
	}
	want := `== t-0
                   A        B
path               a/t-0    b/t-0
batches            2        1
records            9        9
histogram          8x1 1x1  9x1
  9 records/batch  0        1
  8 records/batch  1        0
  1 records/batch  1        0
layout: differs from batch #0: A offsets 0..7 (8 records), B offsets 0..8 (9 records)
records: differ from record #4: A offset 4 key "k" value null headers ["h"=null, "h"="2"], B (no more records)

== t-1
                   A      B
path               a/t-1  (absent)
batches            1      (absent)
records            1      (absent)
histogram          1x1    (absent)
  1 records/batch  1      -
layout: differs (partition on one side only)

== t-2
           A      B
path       a/t-2  b/t-2
batches    0      0
records    0      0
histogram         
layout: equal
records: equal

differ
`
	if got := buf.String(); got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
	buf.Reset()
	if err := DiffText(&buf, &diff.Result{Equal: true}); err != nil || buf.String() != "equal\n" {
		t.Errorf("no partitions: %q, %v", buf.String(), err)
	}
}

func TestDiffJSON(t *testing.T) {
	var buf bytes.Buffer
	if err := DiffJSON(&buf, diffResult()); err != nil {
		t.Fatal(err)
	}
	want := `{"equal":false,"partitions":[` +
		`{"partition":"t-0","a":{"path":"a/t-0","batches":2,"records":9,"histogram":"8x1 1x1","records_per_batch":{"1":1,"8":1}},"b":{"path":"b/t-0","batches":1,"records":9,"histogram":"9x1","records_per_batch":{"9":1}},"layout_equal":false,` +
		`"first_diverging_batch_a":{"index":0,"base_offset":0,"last_offset":7,"records":8},"first_diverging_batch_b":{"index":0,"base_offset":0,"last_offset":8,"records":9},` +
		`"records_equal":false,"first_differing_record_index":4,"first_differing_record_a":{"offset":4,"key":"k","value":null,"headers":{"h":"2"}}},` +
		`{"partition":"t-1","a":{"path":"a/t-1","batches":1,"records":1,"histogram":"1x1","records_per_batch":{"1":1}},"b":null,"layout_equal":false},` +
		`{"partition":"t-2","a":{"path":"a/t-2","batches":0,"records":0,"histogram":"","records_per_batch":{}},"b":{"path":"b/t-2","batches":0,"records":0,"histogram":"","records_per_batch":{}},"layout_equal":true,"records_equal":true}]}` + "\n"
	if got := buf.String(); got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
}
