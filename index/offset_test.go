package index

import (
	"errors"
	"math/rand/v2"
	"sort"
	"testing"
)

func buildOffsetIndex(t testing.TB, base int64, entries []OffsetEntry, padSlots int) []byte {
	t.Helper()
	var b []byte
	for _, e := range entries {
		var err error
		if b, err = e.AppendTo(b, base); err != nil {
			t.Fatal(err)
		}
	}
	return append(b, make([]byte, padSlots*OffsetEntrySize)...)
}

func collectOffsets(t *testing.T, it *Iterator[OffsetEntry]) []OffsetEntry {
	t.Helper()
	var out []OffsetEntry
	for it.Next() {
		if want := int64(len(out)) * OffsetEntrySize; it.ByteOffset() != want {
			t.Fatalf("ByteOffset %d, want %d", it.ByteOffset(), want)
		}
		out = append(out, it.Entry())
	}
	if err := it.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

func TestOffsetIndexAppendixC(t *testing.T) {
	// A worked offset-index entry: relative offset 57, position 4169.
	b := unhex(t, "00000039 00001049")
	e := DecodeOffsetEntry(b, 0)
	if e.Offset != 57 || e.Position != 4169 {
		t.Fatalf("got %+v", e)
	}
	enc, err := OffsetEntry{Offset: 57, Position: 4169}.AppendTo(nil, 0)
	if err != nil || string(enc) != string(b) {
		t.Fatalf("encode: %x %v", enc, err)
	}
	// With a non-zero base the stored value is relative.
	e = DecodeOffsetEntry(b, 1000)
	if e.Offset != 1057 || e.Relative != 57 {
		t.Fatalf("got %+v", e)
	}
}

func TestOffsetIndexIter(t *testing.T) {
	real := []OffsetEntry{{Offset: 157, Position: 4169}, {Offset: 212, Position: 8342}}
	tests := []struct {
		name    string
		data    []byte
		want    int   // entries yielded by Iter
		stopped int64 // Stopped()
		slots   int64
	}{
		{"empty", nil, 0, -1, 0},
		{"trimmed", buildOffsetIndex(t, 100, real, 0), 2, -1, 2},
		{"preallocated", buildOffsetIndex(t, 100, real, 5), 2, 2, 7},
		{"all zero", make([]byte, 32), 1, 1, 4},
		{"partial tail", append(buildOffsetIndex(t, 100, real, 0), 1, 2, 3), 2, -1, 2},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			x := NewOffsetIndex(reader(tc.data), int64(len(tc.data)), 100, "x.index")
			if x.Entries() != tc.slots {
				t.Fatalf("Entries %d, want %d", x.Entries(), tc.slots)
			}
			it := x.Iter()
			got := collectOffsets(t, it)
			if len(got) != tc.want || it.Stopped() != tc.stopped {
				t.Fatalf("got %d entries stopped at %d; want %d, %d", len(got), it.Stopped(), tc.want, tc.stopped)
			}
			if tc.name == "all zero" && (got[0].Offset != 100 || got[0].Position != 0) {
				t.Fatalf("slot 0 of zero file: %+v", got[0])
			}
			all := collectOffsets(t, x.IterAll())
			if int64(len(all)) != tc.slots {
				t.Fatalf("IterAll %d, want %d", len(all), tc.slots)
			}
		})
	}
}

// A file bigger than one read block must iterate identically.
func TestOffsetIndexIterAcrossBlocks(t *testing.T) {
	n := blockSize/OffsetEntrySize*2 + 3
	var es []OffsetEntry
	for i := 0; i < n; i++ {
		es = append(es, OffsetEntry{Offset: int64(i + 1), Position: int32(i * 10)})
	}
	b := buildOffsetIndex(t, 0, es, 0)
	got := collectOffsets(t, NewOffsetIndex(reader(b), int64(len(b)), 0, "").Iter())
	if len(got) != n {
		t.Fatalf("got %d entries, want %d", len(got), n)
	}
	for i, e := range got {
		if e.Offset != es[i].Offset || e.Position != es[i].Position {
			t.Fatalf("entry %d: %+v want %+v", i, e, es[i])
		}
	}
}

// shortReader pretends the file is shorter than the size it was given.
type shortReader struct{ b []byte }

func (s shortReader) ReadAt(p []byte, off int64) (int, error) {
	if off >= int64(len(s.b)) {
		return 0, errors.New("EOF-ish")
	}
	n := copy(p, s.b[off:])
	if n < len(p) {
		return n, errors.New("short")
	}
	return n, nil
}

func TestOffsetIndexShrunkFile(t *testing.T) {
	b := buildOffsetIndex(t, 0, []OffsetEntry{{Offset: 1}, {Offset: 2}, {Offset: 3}}, 0)
	x := NewOffsetIndex(shortReader{b[:20]}, int64(len(b)), 0, "f.index")
	it := x.Iter()
	n := 0
	for it.Next() {
		n++
	}
	if n != 2 || it.Err() == nil {
		t.Fatalf("got %d entries err %v; want 2 and an error", n, it.Err())
	}
	if _, err := x.Entry(2); err == nil {
		t.Fatal("Entry(2) on shrunk file: want error")
	}
	var ie *Error
	if !errors.As(it.Err(), &ie) || ie.File != "f.index" || ie.Offset != 20 {
		t.Fatalf("error %#v", it.Err())
	}
}

func TestOffsetIndexSanityCheck(t *testing.T) {
	const path = "/data/t-0/00000000000000000100.index"
	real := []OffsetEntry{{Offset: 157, Position: 4169}, {Offset: 212, Position: 8342}}
	tests := []struct {
		name string
		data []byte
		want string
	}{
		{"ok", buildOffsetIndex(t, 100, real, 0), ""},
		{"empty", nil, ""},
		{"preallocated passes", buildOffsetIndex(t, 100, real, 3), ""},
		{"last below base", append(buildOffsetIndex(t, 100, real, 0), 0xff, 0xff, 0xff, 0xff, 0, 0, 0, 0),
			"Corrupt index found, index file " + path + " has non-zero size but the last offset is 99 which is less than the base offset 100"},
		{"bad length", append(buildOffsetIndex(t, 100, real, 0), 0, 0, 0),
			"Index file " + path + " is corrupt, found 19 bytes which is neither positive nor a multiple of 8"},
		{"short non-empty", []byte{1, 2, 3},
			"Index file " + path + " is corrupt, found 3 bytes which is neither positive nor a multiple of 8"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			x := NewOffsetIndex(reader(tc.data), int64(len(tc.data)), 100, path)
			err := x.SanityCheck(path)
			if tc.want == "" {
				if err != nil {
					t.Fatalf("unexpected %v", err)
				}
				return
			}
			if err == nil {
				t.Fatal("want error")
			}
			wantIs(t, err, ErrCorruptIndex)
			if got := kafkaMsg(t, err); got != tc.want {
				t.Fatalf("\n got %q\nwant %q", got, tc.want)
			}
		})
	}
}

// linearLookup is the specification of lookup on sorted input.
func linearLookup(offs []int64, target int64) int {
	slot := -1
	for i, o := range offs {
		if o <= target {
			slot = i
		}
	}
	return slot
}

func TestOffsetIndexLookupSorted(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for _, n := range []int{0, 1, 2, 3, 100, 1024, 1025, 1026, 3000} {
		set := map[int64]bool{}
		for len(set) < n {
			set[r.Int64N(int64(n)*5+10)+1] = true
		}
		var offs []int64
		for o := range set {
			offs = append(offs, o)
		}
		sort.Slice(offs, func(i, j int) bool { return offs[i] < offs[j] })
		var es []OffsetEntry
		for i, o := range offs {
			es = append(es, OffsetEntry{Offset: 1000 + o, Position: int32(i)})
		}
		b := buildOffsetIndex(t, 1000, es, 0)
		x := NewOffsetIndex(reader(b), int64(len(b)), 1000, "")
		for target := int64(995); target < int64(n)*5+1020; target++ {
			e, found, err := x.Lookup(target)
			if err != nil {
				t.Fatal(err)
			}
			want := linearLookup(func() []int64 {
				o := make([]int64, len(es))
				for i := range es {
					o[i] = es[i].Offset
				}
				return o
			}(), target)
			if want < 0 {
				if found || e.Offset != 1000 || e.Position != 0 {
					t.Fatalf("n=%d target=%d: got %+v found=%v, want (base,0)", n, target, e, found)
				}
				continue
			}
			if !found || e.Offset != es[want].Offset || e.Position != es[want].Position {
				t.Fatalf("n=%d target=%d: got %+v, want %+v", n, target, e, es[want])
			}
		}
	}
}

// On a zero-padded file Kafka's search runs over the padding too; these
// expectations were worked by hand from AbstractIndex.largestLowerBoundSlotFor.
func TestOffsetIndexLookupPadded(t *testing.T) {
	es := []OffsetEntry{{Offset: 10, Position: 1}, {Offset: 20, Position: 2}, {Offset: 30, Position: 3}}
	b := buildOffsetIndex(t, 0, es, 2) // slots: 10 20 30 0 0
	x := NewOffsetIndex(reader(b), int64(len(b)), 0, "")
	for _, tc := range []struct {
		target int64
		off    int64
		pos    int32
		found  bool
	}{
		{5, 0, 0, false},  // entry0 (10) > 5: none
		{25, 20, 2, true}, // mid=2 (30>25) hi=1; mid=1 (20<25) lo=1
		{30, 30, 3, true}, // mid=2 equal
		{35, 0, 0, true},  // lo walks into the padding: slot 4, a zero entry
	} {
		e, found, err := x.Lookup(tc.target)
		if err != nil || e.Offset != tc.off || e.Position != tc.pos || found != tc.found {
			t.Errorf("Lookup(%d) = %+v %v %v; want off %d pos %d found %v", tc.target, e, found, err, tc.off, tc.pos, tc.found)
		}
	}
}

// With more than warmEntries+1 slots the hot region is searched first.
func TestOffsetIndexLookupWarmSplit(t *testing.T) {
	// 2000 entries at offsets 0..1999*2 step 2; hot region starts at slot
	// 2000-1-1024 = 975.
	var es []OffsetEntry
	for i := 0; i < 2000; i++ {
		es = append(es, OffsetEntry{Offset: int64(i * 2), Position: int32(i)})
	}
	b := buildOffsetIndex(t, 0, es, 0)
	var probes []int64
	x := NewOffsetIndex(probeReader{reader(b), &probes}, int64(len(b)), 0, "")
	if _, _, err := x.Lookup(3000); err != nil {
		t.Fatal(err)
	}
	if len(probes) == 0 || probes[0] != 975*OffsetEntrySize {
		t.Fatalf("first probe at byte %v, want %d (slot 975)", probes, 975*OffsetEntrySize)
	}
	for _, p := range probes[1:] {
		if p < 975*OffsetEntrySize {
			t.Fatalf("hot search read slot %d outside hot region", p/OffsetEntrySize)
		}
	}
}

type probeReader struct {
	r interface {
		ReadAt([]byte, int64) (int, error)
	}
	probes *[]int64
}

func (p probeReader) ReadAt(b []byte, off int64) (int, error) {
	*p.probes = append(*p.probes, off)
	return p.r.ReadAt(b, off)
}

func TestOffsetEntryAppendOverflow(t *testing.T) {
	if _, err := (OffsetEntry{Offset: 5}).AppendTo(nil, 10); err == nil {
		t.Fatal("offset below base: want error")
	}
	if _, err := (OffsetEntry{Offset: 1 << 32}).AppendTo(nil, 0); err == nil {
		t.Fatal("relative offset over int32: want error")
	}
}
