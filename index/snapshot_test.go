package index

import (
	"bytes"
	"encoding/binary"
	"errors"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/kseg/kseg/internal/rfile"
)

const appendixC5 = "0001 64c47816 00000001 00000000000003e8 0000 00000004 0000000000000004 00000004 0000018bcfe56800 ffffffff ffffffffffffffff"

func TestSnapshotAppendixC(t *testing.T) {
	b := unhex(t, appendixC5)
	s, err := ParseSnapshot(b)
	if err != nil {
		t.Fatal(err)
	}
	if s.Version != 1 || s.CRC != 0x64C47816 || len(s.Entries) != 1 || len(s.Trailing) != 0 {
		t.Fatalf("got %+v", s)
	}
	e := s.Entries[0]
	want := ProducerEntry{ProducerID: 1000, Epoch: 0, LastSequence: 4, LastOffset: 4, OffsetDelta: 4,
		Timestamp: 1700000000000, CoordinatorEpoch: -1, CurrentTxnFirstOffset: -1}
	if e != want {
		t.Fatalf("entry %+v", e)
	}
	if e.FirstSequence() != 0 || !e.HasBatchMetadata() {
		t.Fatalf("firstSeq %d", e.FirstSequence())
	}
	if v, ok := e.TxnFirstOffset(); FormatOptionalLong(v, ok) != "OptionalLong.empty" {
		t.Fatal("txn first offset should be empty")
	}
	// Encoding from the struct reproduces the bytes, CRC included.
	enc, err := NewSnapshot([]ProducerEntry{want}).MarshalBinary()
	if err != nil || !bytes.Equal(enc, b) {
		t.Fatalf("encode:\n%x\n%x", enc, b)
	}
}

func TestSnapshotErrors(t *testing.T) {
	good := unhex(t, appendixC5)
	mut := func(f func(b []byte) []byte) []byte { return f(append([]byte(nil), good...)) }
	tests := []struct {
		name    string
		data    []byte
		kind    error
		want    string
		partial bool // snapshot returned alongside the error
	}{
		{"empty", nil, ErrTruncated, "Snapshot failed schema validation: Error reading field 'version': java.nio.BufferUnderflowException", false},
		{"short crc", good[:4], ErrTruncated, "Snapshot failed schema validation: Error reading field 'crc': java.nio.BufferUnderflowException", false},
		{"short count", good[:8], ErrTruncated, "Snapshot failed schema validation: Error reading field 'producer_entries': java.nio.BufferUnderflowException", false},
		{"negative count", mut(func(b []byte) []byte { binary.BigEndian.PutUint32(b[6:], 0xffffffff); return b }), ErrMalformed,
			"Snapshot failed schema validation: Error reading field 'producer_entries': Array size -1 cannot be negative", false},
		{"huge count", mut(func(b []byte) []byte { binary.BigEndian.PutUint32(b[6:], math.MaxInt32); return b }), ErrTruncated,
			"Snapshot failed schema validation: Error reading field 'producer_entries': Error reading array of size 2147483647, only 46 bytes available", false},
		{"count over entries", mut(func(b []byte) []byte { binary.BigEndian.PutUint32(b[6:], 2); return b }), ErrTruncated,
			"Snapshot failed schema validation: Error reading field 'producer_entries': Error reading field 'producer_id': java.nio.BufferUnderflowException", false},
		{"entry cut in timestamp", good[:10+30], ErrTruncated,
			"Snapshot failed schema validation: Error reading field 'producer_entries': Error reading field 'timestamp': java.nio.BufferUnderflowException", false},
		{"bad version", mut(func(b []byte) []byte { b[1] = 2; return b }), ErrUnknownVersion,
			"Snapshot failed schema validation: Snapshot contained an unknown file version 2", true},
		{"bad crc", mut(func(b []byte) []byte { b[20] ^= 1; return b }), ErrBadCRC,
			"Snapshot is corrupt (CRC is no longer valid). Stored crc: 1690597398. Computed crc: ", true},
		{"trailing byte breaks crc", append(append([]byte(nil), good...), 0), ErrBadCRC,
			"Snapshot is corrupt (CRC is no longer valid). Stored crc: 1690597398. Computed crc: ", true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s, err := ParseSnapshot(tc.data)
			if err == nil {
				t.Fatal("want error")
			}
			wantIs(t, err, tc.kind)
			wantIs(t, err, ErrCorruptSnapshot)
			if got := kafkaMsg(t, err); !strings.HasPrefix(got, tc.want) {
				t.Fatalf("\n got %q\nwant %q", got, tc.want)
			}
			if (s != nil) != tc.partial {
				t.Fatalf("partial snapshot returned = %v", s != nil)
			}
		})
	}
}

// A well-formed snapshot with bytes after the entries keeps them, and the
// CRC (which covers them) must still check.
func TestSnapshotTrailingRoundTrip(t *testing.T) {
	s := NewSnapshot([]ProducerEntry{{ProducerID: 1, LastOffset: -1, CurrentTxnFirstOffset: 17}})
	s.Trailing = []byte{1, 2, 3}
	b, _ := s.MarshalBinary()
	got, err := ParseSnapshot(b)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got.Trailing, s.Trailing) || got.Entries[0].HasBatchMetadata() {
		t.Fatalf("got %+v", got)
	}
	if v, ok := got.Entries[0].TxnFirstOffset(); FormatOptionalLong(v, ok) != "OptionalLong[17]" {
		t.Fatal("txn first offset")
	}
	if re := got.AppendTo(nil); !bytes.Equal(re, b) {
		t.Fatal("re-encode differs")
	}
	var u Snapshot
	if err := u.UnmarshalBinary(b); err != nil || len(u.Entries) != 1 {
		t.Fatal(err)
	}
}

// A .snapshot larger than MaxSnapshotSize (a 3 GiB sparse file), or one
// that is not a regular file (a symlink to /dev/zero), is refused before
// its bytes are read: a located error, nothing like its size allocated.
func TestReadSnapshotFileBounded(t *testing.T) {
	dir := t.TempDir()
	big := filepath.Join(dir, "00000000000000000000.snapshot")
	f, err := os.Create(big)
	if err != nil {
		t.Fatal(err)
	}
	f.Close()
	if err := os.Truncate(big, 3<<30); err != nil {
		t.Skip("no sparse files here:", err)
	}
	zero := filepath.Join(dir, "00000000000000000001.snapshot")
	if err := os.Symlink("/dev/zero", zero); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		path string
		kind error
		off  int64
	}{{big, ErrTooLarge, MaxSnapshotSize}, {zero, rfile.ErrNotRegular, -1}} {
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		s, err := ReadSnapshotFile(c.path)
		runtime.ReadMemStats(&after)
		var le *Error
		if s != nil || !errors.Is(err, c.kind) || !errors.As(err, &le) || le.File != c.path || le.Offset != c.off {
			t.Errorf("%s: got %v, %v; want a located %v at %d", c.path, s, err, c.kind, c.off)
		}
		if errors.Is(err, ErrCorruptSnapshot) {
			t.Errorf("%s: a refusal is not a corrupt snapshot: %v", c.path, err)
		}
		if n := after.TotalAlloc - before.TotalAlloc; n > 1<<20 {
			t.Errorf("%s: allocated %d bytes to refuse it", c.path, n)
		}
	}
}
