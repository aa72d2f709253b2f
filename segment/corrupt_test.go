package segment

import (
	"bytes"
	"encoding/binary"
	"errors"
	"testing"

	"github.com/kseg/kseg/batch"
)

// TestScannerCorruption: each defect stops the scan with a located error
// (or a quiet stop where Kafka stops quietly), and Resync lands on the next
// intact batch.
func TestScannerCorruption(t *testing.T) {
	good := testSegment(t, 4, batch.CodecNone, batch.CodecSnappy)
	var starts []int64
	for p := int64(0); p < int64(len(good)); p += int64(binary.BigEndian.Uint32(good[p+8:])) + batch.LogOverhead {
		starts = append(starts, p)
	}
	end := int64(len(good))
	cases := []struct {
		name      string
		mutate    func(b []byte) []byte
		wantN     int   // entries before the stop
		errAt     int64 // -1: clean stop
		sizeErr   bool  // the error is a RecordSizeError
		resyncTo  int64 // where Resync(err position+1) lands; -1: no batch
		validTail int64 // Pos() after a clean stop
	}{
		{"intact", func(b []byte) []byte { return b }, 4, -1, false, 0, end},
		{"zero-filled tail", func(b []byte) []byte { return append(b, make([]byte, 100)...) }, 4, end + 8, true, -1, 0},
		{"negative length", func(b []byte) []byte { binary.BigEndian.PutUint32(b[starts[1]+8:], 0xfffffff0); return b }, 1, starts[1] + 8, true, starts[2], 0},
		{"length 13", func(b []byte) []byte { binary.BigEndian.PutUint32(b[starts[2]+8:], 13); return b }, 2, starts[2] + 8, true, starts[3], 0},
		{"huge length", func(b []byte) []byte { binary.BigEndian.PutUint32(b[starts[1]+8:], 0x7ffffff0); return b }, 1, -1, false, 0, starts[1]},
		{"truncated mid-header", func(b []byte) []byte { return b[:starts[3]+30] }, 3, -1, false, 0, starts[3]},
		{"truncated mid-records", func(b []byte) []byte { return b[:end-5] }, 3, -1, false, 0, starts[3]},
		{"v2 entry shorter than its header at the end", func(b []byte) []byte {
			b = b[:starts[3]+40]
			binary.BigEndian.PutUint32(b[starts[3]+8:], 28) // 40-byte entry claiming magic 2
			return b
		}, 3, starts[3], false, -1, 0},
	}
	for _, c := range cases {
		for _, block := range []int{0, 50, 4096} {
			data := c.mutate(bytes.Clone(good))
			s := NewScanner(bytes.NewReader(data), int64(len(data)), "x.log")
			if block > 0 {
				s.SetBlockSize(block)
			}
			n := 0
			for s.Next() {
				if s.Entry().Pos != starts[n] {
					t.Fatalf("%s/%d: entry %d at %d, want %d", c.name, block, n, s.Entry().Pos, starts[n])
				}
				n++
			}
			if n != c.wantN {
				t.Errorf("%s/%d: %d entries, want %d", c.name, block, n, c.wantN)
			}
			err := s.Err()
			if c.errAt < 0 {
				if err != nil {
					t.Errorf("%s/%d: error %v, want a quiet stop", c.name, block, err)
				}
				if s.Pos() != c.validTail {
					t.Errorf("%s/%d: valid bytes %d, want %d", c.name, block, s.Pos(), c.validTail)
				}
				continue
			}
			var se *Error
			if !errors.As(err, &se) || se.Offset != c.errAt || se.File != "x.log" {
				t.Errorf("%s/%d: error %v, want one located at x.log byte %d", c.name, block, err, c.errAt)
				continue
			}
			var rse *RecordSizeError
			if errors.As(err, &rse) != c.sizeErr || (c.sizeErr && !errors.Is(err, ErrRecordSize)) {
				t.Errorf("%s/%d: RecordSizeError %v, want %v", c.name, block, rse, c.sizeErr)
			}
			p, ok := s.Resync(s.Pos() + 1)
			if c.resyncTo < 0 {
				if ok || s.Next() {
					t.Errorf("%s/%d: Resync found a batch at %d, want none", c.name, block, p)
				}
				continue
			}
			if !ok || p != c.resyncTo {
				t.Errorf("%s/%d: Resync landed at %d (%v), want %d", c.name, block, p, ok, c.resyncTo)
				continue
			}
			m := 0
			for s.Next() {
				m++
			}
			if s.Err() != nil || n+m != 3 {
				t.Errorf("%s/%d: after Resync %d more entries (err %v), want the %d intact ones", c.name, block, m, s.Err(), 3-n)
			}
		}
	}
}

// TestErrorMessageOneLocation: a located batch error names one byte offset,
// the absolute one, not also the batch-relative one.
func TestErrorMessageOneLocation(t *testing.T) {
	err := &Error{File: "a.log", Offset: 194, Err: &batch.FormatError{Pos: 97, Err: batch.ErrTruncated, Detail: "premature EOF"}}
	if got, want := err.Error(), "a.log: at byte 194: premature EOF"; got != want {
		t.Fatalf("got %q, want %q", got, want)
	}
	if !errors.Is(err, batch.ErrTruncated) {
		t.Fatal("cause lost")
	}
	err = &Error{File: "a.log", Offset: 61, Err: &batch.FormatError{Pos: 61, Err: batch.ErrUnknownCodec}}
	if got, want := err.Error(), "a.log: at byte 61: unknown compression codec"; got != want {
		t.Fatalf("got %q, want %q", got, want)
	}
}
