package index

import (
	"bytes"
	"testing"
)

func benchIndex(b *testing.B, width int) []byte {
	// A 10 MiB preallocated-size file full of real-looking entries.
	n := 10 << 20 / width
	buf := make([]byte, 0, n*width)
	for i := 0; i < n; i++ {
		if width == OffsetEntrySize {
			buf, _ = OffsetEntry{Offset: int64(i + 1), Position: int32(i * 4096)}.AppendTo(buf, 0)
		} else {
			buf, _ = TimeEntry{Timestamp: 1700000000000 + int64(i), Offset: int64(i + 1)}.AppendTo(buf, 0)
		}
	}
	return buf
}

func BenchmarkOffsetIndexIter(b *testing.B) {
	data := benchIndex(b, OffsetEntrySize)
	r := bytes.NewReader(data)
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		it := NewOffsetIndex(r, int64(len(data)), 0, "").Iter()
		n := 0
		for it.Next() {
			n++
		}
		if n != len(data)/OffsetEntrySize {
			b.Fatal(n)
		}
	}
}

func BenchmarkTimeIndexIter(b *testing.B) {
	data := benchIndex(b, TimeEntrySize)
	r := bytes.NewReader(data)
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		it := NewTimeIndex(r, int64(len(data)), 0, "").Iter()
		n := 0
		for it.Next() {
			n++
		}
		if n != len(data)/TimeEntrySize {
			b.Fatal(n)
		}
	}
}

func BenchmarkOffsetIndexLookup(b *testing.B) {
	data := benchIndex(b, OffsetEntrySize)
	x := NewOffsetIndex(bytes.NewReader(data), int64(len(data)), 0, "")
	b.ReportAllocs()
	var t int64
	for b.Loop() {
		t = (t + 7919) % int64(len(data)/OffsetEntrySize)
		if _, _, err := x.Lookup(t); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkParseSnapshot(b *testing.B) {
	es := make([]ProducerEntry, 1000)
	for i := range es {
		es[i] = ProducerEntry{ProducerID: int64(i), LastOffset: int64(i), CurrentTxnFirstOffset: -1}
	}
	data, _ := NewSnapshot(es).MarshalBinary()
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := ParseSnapshot(data); err != nil {
			b.Fatal(err)
		}
	}
}
