package segment

import (
	"bytes"
	"encoding/binary"
	"errors"
	"os"
	"path/filepath"
	"testing"
)

// trailingFixture is a committed Kafka-layout segment with one batch's
// length set to 0x7fffffff: framing stops quietly there, and the batches
// after it are intact.
func trailingFixture(t *testing.T) (data []byte, stop int64, before int64) {
	t.Helper()
	good, err := os.ReadFile(filepath.Join("..", "testdata", "explain-oracle", "e-none-b512-v1000", "e-none-b512-v1000-0", "00000000000000000000.log"))
	if err != nil {
		t.Fatal(err)
	}
	var starts []int64
	for p := int64(0); p < int64(len(good)); p += int64(binary.BigEndian.Uint32(good[p+8:])) + 12 {
		starts = append(starts, p)
	}
	if len(starts) < 10 {
		t.Fatalf("fixture has %d batches", len(starts))
	}
	stop = starts[len(starts)/3]
	data = bytes.Clone(good)
	binary.BigEndian.PutUint32(data[stop+8:], 0x7fffffff)
	return data, stop, int64(len(starts) / 3)
}

// TestTrailingBatchesAreAnError: a stop before the end with valid batches
// after it is a located error, not a clean end with "invalid bytes at the
// end" (which is what it was: count passed such a log). LenientTail keeps
// Kafka's reading; KeepGoing reports the region and resumes.
func TestTrailingBatchesAreAnError(t *testing.T) {
	data, stop, before := trailingFixture(t)
	for _, block := range []int{0, 64} {
		st := NewStream(BytesSource("x.log", data), Options{BlockSize: block})
		n := int64(0)
		for st.Next() {
			n++
		}
		if n != before {
			t.Errorf("block %d: %d batches before the stop, want %d", block, n, before)
		}
		var le *Error
		var te *TrailingError
		if err := st.Err(); !errors.Is(err, ErrTrailingBatches) || !errors.As(err, &le) || le.Offset != stop || le.File != "x.log" || !errors.As(err, &te) {
			t.Fatalf("block %d: Err() = %v, want a TrailingError located at x.log byte %d", block, err, stop)
		}
		if te.Next <= stop || te.Batches == 0 || te.Bytes == 0 || te.Left != int64(len(data))-stop || te.Next+te.Bytes != int64(len(data)) {
			t.Errorf("block %d: %+v", block, te)
		}
		if st.Tail() != stop {
			t.Errorf("block %d: Tail %d, want %d", block, st.Tail(), stop)
		}
	}

	lenient := NewStream(BytesSource("x.log", data), Options{LenientTail: true})
	for lenient.Next() {
	}
	if lenient.Err() != nil || lenient.Tail() != stop {
		t.Errorf("LenientTail: err %v tail %d, want nil and %d", lenient.Err(), lenient.Tail(), stop)
	}

	var regions []Region
	keep := NewStream(BytesSource("x.log", data), Options{KeepGoing: true, OnRegion: func(r Region) { regions = append(regions, r) }})
	for keep.Next() {
	}
	if keep.Err() != nil || len(regions) != 1 || regions[0].From != stop || !regions[0].Resumed {
		t.Errorf("KeepGoing: err %v regions %+v", keep.Err(), regions)
	}

	// A torn tail (no valid batch after the stop) stays a clean end.
	torn := data[:stop+200]
	st := NewStream(BytesSource("x.log", torn), Options{})
	for st.Next() {
	}
	if st.Err() != nil || st.Tail() != stop {
		t.Errorf("torn tail: err %v tail %d, want nil and %d", st.Err(), st.Tail(), stop)
	}
	// Counting such a log fails with the located error.
	dir := t.TempDir()
	p := filepath.Join(dir, "00000000000000000000.log")
	if err := os.WriteFile(p, data, 0o644); err != nil {
		t.Fatal(err)
	}
	var c Counter
	if _, err := c.CountPartition(&Partition{Segments: []Segment{{Path: p}}}); !errors.Is(err, ErrTrailingBatches) {
		t.Errorf("CountPartition: %v, want ErrTrailingBatches", err)
	}
}
