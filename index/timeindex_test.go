package index

import "testing"

func buildTimeIndex(t testing.TB, base int64, entries []TimeEntry, padSlots int) []byte {
	t.Helper()
	var b []byte
	for _, e := range entries {
		var err error
		if b, err = e.AppendTo(b, base); err != nil {
			t.Fatal(err)
		}
	}
	return append(b, make([]byte, padSlots*TimeEntrySize)...)
}

func TestTimeIndexAppendixC(t *testing.T) {
	b := unhex(t, "0000018bcfe56864 00000039")
	e := DecodeTimeEntry(b, 0)
	if e.Timestamp != 1700000000100 || e.Offset != 57 {
		t.Fatalf("got %+v", e)
	}
	enc, err := TimeEntry{Timestamp: 1700000000100, Offset: 57}.AppendTo(nil, 0)
	if err != nil || string(enc) != string(b) {
		t.Fatalf("encode %x %v", enc, err)
	}
}

func TestTimeIndexIter(t *testing.T) {
	real := []TimeEntry{{Timestamp: 1700000000100, Offset: 57}, {Timestamp: 1700000000230, Offset: 112}}
	// A real first entry can have offset == base; the stop rule only
	// applies from slot 1 on.
	atBase := []TimeEntry{{Timestamp: 5, Offset: 0}, {Timestamp: 6, Offset: 3}}
	tests := []struct {
		name    string
		data    []byte
		want    int
		stopped int64
	}{
		{"empty", nil, 0, -1},
		{"trimmed", buildTimeIndex(t, 0, real, 0), 2, -1},
		{"preallocated", buildTimeIndex(t, 0, real, 4), 2, 2},
		{"all zero yields slot 0", make([]byte, 36), 1, 1},
		{"first entry at base", buildTimeIndex(t, 0, atBase, 1), 2, 2},
		// Slot 1 with offset == base but a non-zero timestamp still stops.
		{"stop ignores timestamp", append(buildTimeIndex(t, 0, real[:1], 0), unhex(t, "0000018bcfe56999 00000000")...), 1, 1},
		{"partial tail", append(buildTimeIndex(t, 0, real, 0), 9, 9), 2, -1},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			x := NewTimeIndex(reader(tc.data), int64(len(tc.data)), 0, "x.timeindex")
			if x.Entries() != int64(len(tc.data)/TimeEntrySize) {
				t.Fatalf("Entries %d", x.Entries())
			}
			it := x.Iter()
			n := 0
			for it.Next() {
				if it.Slot() != int64(n) || it.ByteOffset() != int64(n*TimeEntrySize) {
					t.Fatalf("slot %d byte %d at %d", it.Slot(), it.ByteOffset(), n)
				}
				n++
			}
			if it.Err() != nil || n != tc.want || it.Stopped() != tc.stopped {
				t.Fatalf("got %d stopped %d err %v; want %d stopped %d", n, it.Stopped(), it.Err(), tc.want, tc.stopped)
			}
		})
	}
}

func TestTimeIndexSanityCheck(t *testing.T) {
	const p = "/d/00000000000000000050.timeindex"
	real := []TimeEntry{{Timestamp: 100, Offset: 57}, {Timestamp: 230, Offset: 112}}
	tests := []struct {
		name string
		data []byte
		want string
	}{
		{"ok", buildTimeIndex(t, 50, real, 0), ""},
		{"empty", nil, ""},
		{"preallocated fails", buildTimeIndex(t, 50, real, 2),
			"Corrupt time index found, time index file (" + p + ") has non-zero size but the last timestamp is 0 which is less than the first timestamp 100"},
		{"last offset below base", append(buildTimeIndex(t, 50, real, 0), unhex(t, "00000000000003e8 ffffffff")...),
			"Corrupt time index found, time index file (" + p + ") has non-zero size but the last offset is 49 which is less than the first offset 50"},
		{"bad length", append(buildTimeIndex(t, 50, real, 0), 0),
			"Time index file " + p + " is corrupt, found 25 bytes which is neither positive nor a multiple of 12"},
		// All-zero: timestamps equal, offsets == base: passes.
		{"all zero", make([]byte, 24), ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			x := NewTimeIndex(reader(tc.data), int64(len(tc.data)), 50, p)
			err := x.SanityCheck(p)
			if tc.want == "" {
				if err != nil {
					t.Fatal(err)
				}
				return
			}
			wantIs(t, err, ErrCorruptIndex)
			if got := kafkaMsg(t, err); got != tc.want {
				t.Fatalf("\n got %q\nwant %q", got, tc.want)
			}
		})
	}
}

func TestTimeIndexLookup(t *testing.T) {
	es := []TimeEntry{{Timestamp: 100, Offset: 5}, {Timestamp: 200, Offset: 9}, {Timestamp: 300, Offset: 14}}
	b := buildTimeIndex(t, 0, es, 0)
	x := NewTimeIndex(reader(b), int64(len(b)), 0, "")
	for _, tc := range []struct {
		target int64
		off    int64
		ts     int64
		found  bool
	}{{50, 0, -1, false}, {100, 5, 100, true}, {250, 9, 200, true}, {999, 14, 300, true}} {
		e, found, err := x.Lookup(tc.target)
		if err != nil || e.Offset != tc.off || e.Timestamp != tc.ts || found != tc.found {
			t.Errorf("Lookup(%d) = %+v %v %v", tc.target, e, found, err)
		}
	}
}
