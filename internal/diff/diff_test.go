package diff

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"testing"

	"github.com/kseg/kseg/batch"
)

const seed = "../../testdata/segments/seed"

func TestCompareLayout(t *testing.T) {
	tests := []struct {
		name   string
		a, b   string
		equal  bool
		parts  int
		first  string // Name of the first partition
		layout bool   // its LayoutEqual
		batchA *Batch // its first diverging batches
		batchB *Batch
	}{
		{"same log directory", seed, seed, true, 10, "u05-default-0", true, nil, nil},
		{"one partition each, named apart", seed + "/u05-small-0", seed + "/u05-large-0", false, 1, "u05-small-0 / u05-large-0", false,
			&Batch{0, 0, 7, 8}, &Batch{0, 0, 147, 148}},
		{"same layout, different names", seed + "/u05-default-0", seed + "/u05-large-0", true, 1, "u05-default-0 / u05-large-0", true, nil, nil},
		{"partitions on one side only", seed, "../../testdata/segments/codecs", false, 14, "codec-gzip-0", false, nil, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			res, err := Compare(tc.a, tc.b, false)
			if err != nil {
				t.Fatal(err)
			}
			if res.Equal != tc.equal || len(res.Partitions) != tc.parts {
				t.Fatalf("Equal %v, %d partitions; want %v, %d", res.Equal, len(res.Partitions), tc.equal, tc.parts)
			}
			p := res.Partitions[0]
			if p.Name != tc.first || p.LayoutEqual != tc.layout || !reflect.DeepEqual(p.FirstBatchA, tc.batchA) || !reflect.DeepEqual(p.FirstBatchB, tc.batchB) {
				t.Errorf("first partition %q layout %v batches %+v %+v; want %q %v %+v %+v",
					p.Name, p.LayoutEqual, p.FirstBatchA, p.FirstBatchB, tc.first, tc.layout, tc.batchA, tc.batchB)
			}
			for _, p := range res.Partitions {
				if p.RecordsCompared {
					t.Errorf("%s: records compared without records", p.Name)
				}
			}
		})
	}
	res, err := Compare(seed, "../../testdata/segments/codecs", false)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range res.Partitions {
		if (p.A == nil) == (p.B == nil) {
			t.Errorf("%s: sides %v %v, want one absent", p.Name, p.A, p.B)
		}
	}
	if _, err := Compare(seed, filepath.Join(t.TempDir(), "missing"), false); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("missing B: %v, want fs.ErrNotExist", err)
	}
}

type rec struct {
	key, value []byte
	headers    []batch.RecordHeader
}

// writePartition writes dir/t-0 with recs in batches of per.
func writePartition(t *testing.T, dir string, per int, recs []rec) string {
	t.Helper()
	part := filepath.Join(dir, "t-0")
	if err := os.MkdirAll(part, 0o755); err != nil {
		t.Fatal(err)
	}
	var log []byte
	for base := 0; base < len(recs); base += per {
		b := batch.NewBuilder(batch.CodecNone)
		for _, r := range recs[base:min(base+per, len(recs))] {
			b.Append(1700000000000, r.key, r.value, r.headers)
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

func TestCompareRecords(t *testing.T) {
	h := func(k string, v []byte) batch.RecordHeader { return batch.RecordHeader{Key: []byte(k), Value: v} }
	base := []rec{
		{[]byte("k0"), []byte("v0"), []batch.RecordHeader{h("trace", []byte("a"))}},
		{nil, []byte("v1"), nil},
		{[]byte("k2"), nil, []batch.RecordHeader{h("dup", []byte("x")), h("dup", nil)}},
	}
	with := func(i int, r rec) []rec {
		out := append([]rec(nil), base...)
		out[i] = r
		return out
	}
	tests := []struct {
		name    string
		b       []rec
		per     int
		equal   bool
		first   int64
		recordB *Record
	}{
		{"rebatched copy", base, 1, true, 0, nil},
		{"null key vs empty", with(1, rec{[]byte{}, []byte("v1"), nil}), 3, false, 1, &Record{Offset: 1, Key: []byte{}, Value: []byte("v1")}},
		{"null header value vs set", with(2, rec{[]byte("k2"), nil, []batch.RecordHeader{h("dup", []byte("x")), h("dup", []byte("y"))}}), 3, false, 2,
			&Record{Offset: 2, Key: []byte("k2"), Headers: []Header{{"dup", []byte("x")}, {"dup", []byte("y")}}}},
		{"header dropped", with(0, rec{[]byte("k0"), []byte("v0"), nil}), 3, false, 0, &Record{Offset: 0, Key: []byte("k0"), Value: []byte("v0")}},
		{"fewer records", base[:2], 3, false, 2, nil},
	}
	root := t.TempDir()
	a := writePartition(t, filepath.Join(root, "a"), 3, base)
	for i, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			b := writePartition(t, filepath.Join(root, "b"+strconv.Itoa(i)), tc.per, tc.b)
			res, err := Compare(a, b, true)
			if err != nil {
				t.Fatal(err)
			}
			p := res.Partitions[0]
			if !p.RecordsCompared || p.RecordsEqual != tc.equal {
				t.Fatalf("compared %v equal %v, want equal %v", p.RecordsCompared, p.RecordsEqual, tc.equal)
			}
			if tc.equal {
				return
			}
			if p.FirstRecord != tc.first || !reflect.DeepEqual(p.RecordB, tc.recordB) {
				t.Errorf("first differing record #%d B %+v; want #%d %+v", p.FirstRecord, p.RecordB, tc.first, tc.recordB)
			}
			if p.RecordA == nil || p.RecordA.Offset != tc.first {
				t.Errorf("record A %+v, want offset %d", p.RecordA, tc.first)
			}
			if res.Equal {
				t.Error("result equal with differing records")
			}
		})
	}
}
