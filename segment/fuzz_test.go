package segment

import (
	"bytes"
	"encoding/binary"
	"errors"
	"io"
	"testing"

	"github.com/kseg/kseg/batch"
)

// testSegment builds n small v2 batches back to back, alternating codecs.
func testSegment(tb testing.TB, n int, codecs ...batch.Codec) []byte {
	tb.Helper()
	if len(codecs) == 0 {
		codecs = []batch.Codec{batch.CodecNone}
	}
	var out []byte
	var c batch.Compressor
	off := int64(0)
	for i := 0; i < n; i++ {
		b := batch.NewBuilder(codecs[i%len(codecs)])
		for r := 0; r < 3; r++ {
			b.Append(int64(1000+r), nil, []byte("value-value-value"), nil)
		}
		var err error
		out, err = b.Build(out, batch.Header{BaseOffset: off, ProducerID: -1, ProducerEpoch: -1, BaseSequence: -1}, &c)
		if err != nil {
			tb.Fatal(err)
		}
		off += 3
	}
	return out
}

// FuzzScanner: over arbitrary file bytes the scanner never panics, frames
// contiguous entries inside the file, locates its errors inside the file,
// and Resync always terminates on a valid batch or the end.
func FuzzScanner(f *testing.F) {
	seg := testSegment(f, 3, batch.CodecNone, batch.CodecGzip)
	f.Add(seg, uint16(0))
	f.Add(seg, uint16(100))
	f.Add(append(bytes.Clone(seg), make([]byte, 40)...), uint16(7))
	f.Add(seg[:len(seg)-10], uint16(0))
	bad := bytes.Clone(seg)
	binary.BigEndian.PutUint32(bad[8:], 3) // size below 14 in the first batch
	f.Add(bad, uint16(0))
	f.Add([]byte{0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 30, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0}, uint16(0))
	f.Fuzz(func(t *testing.T, data []byte, block uint16) {
		// a plain reader, and the in-memory source that hands out its
		// bytes in place (a Slicer), whose windows the scanner swaps with
		// its own buffer
		for _, r := range []io.ReaderAt{bytes.NewReader(data), BytesSource("fuzz.log", data).R} {
			checkScan(t, r, data, block)
		}
	})
}

// checkScan frames data through r with the scanner and checks what it
// yields, resyncing past every error to the end.
func checkScan(t *testing.T, r io.ReaderAt, data []byte, block uint16) {
	end := int64(len(data))
	s := NewScanner(r, end, "fuzz.log")
	if block > 0 {
		s.SetBlockSize(int(block))
	}
	next := int64(0)
	resyncs := 0
	for {
		for s.Next() {
			e := s.Entry()
			if e.Pos != next {
				t.Fatalf("entry at %d, expected contiguous %d", e.Pos, next)
			}
			if e.Size < batch.LogOverhead+batch.MinEntrySize || e.Pos+e.Size > s.End() {
				t.Fatalf("entry [%d,+%d) outside [0,%d) or undersized", e.Pos, e.Size, s.End())
			}
			raw, err := s.Bytes()
			if err != nil {
				t.Fatalf("Bytes of a framed entry: %v", err)
			}
			if int64(len(raw)) != e.Size || !bytes.Equal(raw, data[e.Pos:e.Pos+e.Size]) {
				t.Fatalf("Bytes at %d differ from the file", e.Pos)
			}
			if e.Magic >= batch.MagicV2 && e.Size >= batch.HeaderSize {
				if h, _ := batch.ParseHeader(raw); h != e.Header {
					t.Fatalf("entry header differs from the bytes at %d", e.Pos)
				}
			}
			next = e.Pos + e.Size
			if s.Pos() != next {
				t.Fatalf("Pos %d after entry ending at %d", s.Pos(), next)
			}
		}
		err := s.Err()
		if err == nil {
			if s.Pos() > end {
				t.Fatalf("clean stop at %d past the end %d", s.Pos(), end)
			}
			return
		}
		var se *Error
		if !errors.As(err, &se) {
			t.Fatalf("error %T is not a *segment.Error: %v", err, err)
		}
		if se.Offset < 0 || se.Offset > end || se.File != "fuzz.log" {
			t.Fatalf("error located at %d in %q, file has %d bytes", se.Offset, se.File, end)
		}
		resyncs++
		if resyncs > len(data)+1 {
			t.Fatal("Resync does not make progress")
		}
		from := s.Pos() + 1
		p, ok := s.Resync(from)
		if !ok {
			if s.Next() {
				t.Fatal("Next after a failed Resync returned an entry")
			}
			return
		}
		if p < from || p+batch.HeaderSize > end {
			t.Fatalf("Resync(%d) landed at %d (end %d)", from, p, end)
		}
		size := int64(int32(binary.BigEndian.Uint32(data[p+8:]))) + batch.LogOverhead
		if !batch.ValidCRC(data[p : p+size]) {
			t.Fatalf("Resync landed at %d on a batch with a bad CRC", p)
		}
		next = p
	}
}
