package segment

import (
	"bytes"
	"fmt"
	"io"
	"sync"
	"testing"

	"github.com/kseg/kseg/batch"
)

// benchSegment is an in-memory segment of batches holding recsPerBatch
// records of 100-byte values (text-like, so codecs have something to do),
// about total bytes uncompressed.
func benchSegment(tb testing.TB, codec batch.Codec, recsPerBatch, total int) []byte {
	tb.Helper()
	var c batch.Compressor
	b := batch.NewBuilder(codec)
	value := make([]byte, 100)
	key := []byte("key-000000")
	var out []byte
	off := int64(0)
	for n := 0; n < total; {
		b.Reset(codec)
		for r := 0; r < recsPerBatch; r++ {
			copy(value, fmt.Sprintf("{\"id\":%d,\"user\":\"u%05d\",\"event\":\"click\",\"ts\":%d,", off+int64(r), (off+int64(r))%99991, 1700000000000+off))
			copy(key[4:], fmt.Sprintf("%06d", (off+int64(r))%1000000))
			b.Append(1700000000000+off+int64(r), key, value, nil)
		}
		n += b.UncompressedBytes() + batch.HeaderSize
		var err error
		out, err = b.Build(out, batch.Header{BaseOffset: off, ProducerID: 7, ProducerEpoch: 0, BaseSequence: int32(off)}, &c)
		if err != nil {
			tb.Fatal(err)
		}
		off += int64(recsPerBatch)
	}
	return out
}

var (
	benchSegOnce sync.Once
	benchSegs    map[batch.Codec][]byte
)

// segments for the benchmarks: 32 MiB uncompressed per codec, 16 KiB batches.
func benchSegments(b *testing.B) map[batch.Codec][]byte {
	benchSegOnce.Do(func() {
		benchSegs = map[batch.Codec][]byte{}
		for c := batch.CodecNone; c <= batch.CodecZstd; c++ {
			benchSegs[c] = benchSegment(b, c, 130, 32<<20)
		}
	})
	return benchSegs
}

func scanHeaders(data []byte) (n int) {
	s := NewScanner(bytes.NewReader(data), int64(len(data)), "bench.log")
	for s.Next() {
		n++
	}
	return n
}

// BenchmarkScanHeaders: frame every batch and decode its 61-byte header,
// touching no record bytes.
func BenchmarkScanHeaders(b *testing.B) {
	data := benchSegments(b)[batch.CodecNone]
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		if scanHeaders(data) == 0 {
			b.Fatal("no batches")
		}
	}
}

// BenchmarkScanCRC: frame every batch and check its CRC-32C, as isvalid does.
func BenchmarkScanCRC(b *testing.B) {
	data := benchSegments(b)[batch.CodecNone]
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		s := NewScanner(bytes.NewReader(data), int64(len(data)), "bench.log")
		for s.Next() {
			raw, err := s.Bytes()
			if err != nil || !batch.ValidCRC(raw) {
				b.Fatal("bad batch", err)
			}
		}
	}
}

// BenchmarkCRC32CRaw is the machine's CRC-32C rate over the same bytes.
func BenchmarkCRC32CRaw(b *testing.B) {
	data := benchSegments(b)[batch.CodecNone]
	b.SetBytes(int64(len(data)))
	for b.Loop() {
		batch.CRC32C(data)
	}
}

// BenchmarkDeepIteration decodes every record of every batch, per codec.
// SetBytes is the segment's on-disk size.
func BenchmarkDeepIteration(b *testing.B) {
	for c := batch.CodecNone; c <= batch.CodecZstd; c++ {
		b.Run(c.String(), func(b *testing.B) {
			data := benchSegments(b)[c]
			b.SetBytes(int64(len(data)))
			b.ReportAllocs()
			var br batch.BatchReader
			var rec batch.Record
			for b.Loop() {
				s := NewScanner(bytes.NewReader(data), int64(len(data)), "bench.log")
				for s.Next() {
					raw, _ := s.Bytes()
					if err := br.Open(raw, &s.Entry().Header); err != nil {
						b.Fatal(err)
					}
					for {
						ok, err := br.Next(&rec)
						if err != nil {
							b.Fatal(err)
						}
						if !ok {
							break
						}
					}
				}
			}
		})
	}
}

// BenchmarkDecompressOnly is each codec library decoding the same batches
// alone (through the Decompressor, without record decoding): the ceiling
// for deep iteration per codec.
func BenchmarkDecompressOnly(b *testing.B) {
	for c := batch.CodecGzip; c <= batch.CodecZstd; c++ {
		b.Run(c.String(), func(b *testing.B) {
			data := benchSegments(b)[c]
			var payloads [][]byte
			s := NewScanner(bytes.NewReader(data), int64(len(data)), "bench.log")
			for s.Next() {
				raw, _ := s.Bytes()
				payloads = append(payloads, bytes.Clone(raw[batch.HeaderSize:]))
			}
			b.SetBytes(int64(len(data)))
			b.ReportAllocs()
			var d batch.Decompressor
			for b.Loop() {
				for _, p := range payloads {
					if _, err := d.Decompress(c, p, 2); err != nil {
						b.Fatal(err)
					}
				}
			}
		})
	}
}

// TestScanHeadersZeroAllocsPerBatch: the header path allocates nothing per
// batch: scanning twice as many batches costs no more allocations.
func TestScanHeadersZeroAllocsPerBatch(t *testing.T) {
	small := benchSegment(t, batch.CodecNone, 10, 1<<20)
	large := append(bytes.Clone(small), small...)
	large = append(large, large...)
	if scanHeaders(large) != 4*scanHeaders(small) {
		t.Fatal("segment construction")
	}
	a1 := testing.AllocsPerRun(20, func() { scanHeaders(small) })
	a4 := testing.AllocsPerRun(20, func() { scanHeaders(large) })
	if a4 > a1 {
		t.Fatalf("header scan: %.0f allocations for %d batches, %.0f for %d: allocations grow per batch",
			a1, scanHeaders(small), a4, scanHeaders(large))
	}
	if a1 > 4 {
		t.Fatalf("header scan allocates %.0f times per file, want at most 4 (scanner and its buffer)", a1)
	}
}

// TestCountZeroAllocsPerBatch: counting a file allocates per file (the
// Stats and its maps), never per batch.
func TestCountZeroAllocsPerBatch(t *testing.T) {
	small := benchSegment(t, batch.CodecNone, 10, 1<<20)
	large := append(bytes.Clone(small), small...)
	large = append(large, large...)
	c := &Counter{}
	count := func(b []byte) int64 {
		s := NewStats()
		if err := c.countInto(s, Segment{Path: "x.log", Open: func() (Source, io.Closer, error) {
			return BytesSource("x.log", b), nil, nil
		}}); err != nil {
			t.Fatal(err)
		}
		return s.Batches
	}
	if count(large) != 4*count(small) {
		t.Fatal("segment construction")
	}
	a1 := testing.AllocsPerRun(20, func() { count(small) })
	a4 := testing.AllocsPerRun(20, func() { count(large) })
	if a4 > a1+2 {
		t.Fatalf("count: %.0f allocations for %d batches, %.0f for %d: allocations grow per batch", a1, count(small), a4, count(large))
	}
}
