package index

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"testing"
)

// addRealSeeds adds every corpus file with the given suffix as a seed,
// when the real-world corpus is present beside the repository.
func addRealSeeds(f *testing.F, suffix string, extra ...any) {
	dir, err := os.Getwd()
	if err != nil {
		return
	}
	for ; ; dir = filepath.Dir(dir) {
		root := filepath.Join(dir, "shared", "realworld", "segments")
		if st, err := os.Stat(root); err == nil && st.IsDir() {
			filepath.Walk(root, func(p string, info os.FileInfo, err error) error {
				if err == nil && !info.IsDir() && filepath.Ext(p) == suffix && info.Size() <= 16<<10 {
					if b, err := os.ReadFile(p); err == nil {
						f.Add(append([]any{b}, extra...)...)
					}
				}
				return nil
			})
			return
		}
		if filepath.Dir(dir) == dir {
			return
		}
	}
}

func FuzzOffsetIndex(f *testing.F) {
	f.Add([]byte{}, int64(0))
	f.Add(unhex(f, "00000039 00001049 00000070 0000209e 00000000 00000000"), int64(0))
	f.Add(make([]byte, 17), int64(5))
	f.Add(unhex(f, "ffffffff 00000000"), int64(100))
	addRealSeeds(f, ".index", int64(0))
	f.Fuzz(func(t *testing.T, data []byte, base int64) {
		x := NewOffsetIndex(bytes.NewReader(data), int64(len(data)), base, "fuzz.index")
		if x.Entries() != int64(len(data)/8) {
			t.Fatalf("Entries %d for %d bytes", x.Entries(), len(data))
		}
		it := x.Iter()
		var n int64
		for it.Next() {
			if it.ByteOffset()+OffsetEntrySize > int64(len(data)) || it.Slot() != n {
				t.Fatalf("entry %d at byte %d outside %d-byte input", n, it.ByteOffset(), len(data))
			}
			e := it.Entry()
			if n > 0 && e.Offset == base {
				t.Fatal("yielded a padding slot")
			}
			if d := DecodeOffsetEntry(data[it.ByteOffset():], base); d != e {
				t.Fatalf("iterator %+v, direct decode %+v", e, d)
			}
			n++
		}
		if it.Err() != nil {
			t.Fatalf("in-memory iteration failed: %v", it.Err())
		}
		if s := it.Stopped(); s != -1 && (s != n || s >= x.Entries()) {
			t.Fatalf("Stopped %d after %d entries", s, n)
		}
		if it.Stopped() == -1 && n != x.Entries() {
			t.Fatalf("yielded %d of %d without stopping", n, x.Entries())
		}
		for _, target := range []int64{base - 1, base, base + 1, base + 1<<20, -1 << 63, 1<<63 - 1} {
			e, found, err := x.Lookup(target)
			if err != nil {
				t.Fatal(err)
			}
			if !found && (e.Offset != base || e.Position != 0) {
				t.Fatalf("not-found lookup returned %+v", e)
			}
		}
		if err := x.SanityCheck("/p"); err != nil && !errors.Is(err, ErrCorruptIndex) {
			t.Fatalf("sanity error of wrong kind: %v", err)
		}
	})
}

func FuzzTimeIndex(f *testing.F) {
	f.Add([]byte{}, int64(0))
	f.Add(unhex(f, "0000018bcfe56864 00000039 0000018bcfe568e6 00000070 000000000000000000000000"), int64(0))
	f.Add(make([]byte, 25), int64(7))
	addRealSeeds(f, ".timeindex", int64(0))
	f.Fuzz(func(t *testing.T, data []byte, base int64) {
		x := NewTimeIndex(bytes.NewReader(data), int64(len(data)), base, "fuzz.timeindex")
		it := x.Iter()
		var n int64
		for it.Next() {
			if it.ByteOffset()+TimeEntrySize > int64(len(data)) || it.Slot() != n {
				t.Fatalf("entry %d at byte %d outside %d-byte input", n, it.ByteOffset(), len(data))
			}
			if n > 0 && it.Entry().Offset == base {
				t.Fatal("yielded a padding slot")
			}
			n++
		}
		if it.Err() != nil {
			t.Fatal(it.Err())
		}
		if it.Stopped() == -1 && n != x.Entries() {
			t.Fatalf("yielded %d of %d without stopping", n, x.Entries())
		}
		if _, _, err := x.Lookup(0); err != nil {
			t.Fatal(err)
		}
		if err := x.SanityCheck("/p"); err != nil && !errors.Is(err, ErrCorruptIndex) {
			t.Fatalf("sanity error of wrong kind: %v", err)
		}
	})
}

func FuzzTxnIndex(f *testing.F) {
	f.Add([]byte{}, int64(0))
	f.Add(unhex(f, "0000 00000000000003e8 000000000000000a 000000000000000f 000000000000000c"), int64(0))
	f.Add(unhex(f, "0100 00000000000003e8 000000000000000a 000000000000000f 000000000000000c"), int64(3))
	f.Fuzz(func(t *testing.T, data []byte, base int64) {
		x := NewTxnIndex(bytes.NewReader(data), int64(len(data)), base, "fuzz.txnindex")
		it := x.Iter()
		var n int64
		for it.Next() {
			if it.ByteOffset()+TxnEntrySize > int64(len(data)) {
				t.Fatalf("entry at byte %d outside %d-byte input", it.ByteOffset(), len(data))
			}
			e := it.Entry()
			if e.Version() > 0 {
				t.Fatal("yielded an entry with version > 0")
			}
			if !bytes.Equal(e.AppendTo(nil), data[it.ByteOffset():it.ByteOffset()+TxnEntrySize]) {
				t.Fatal("entry does not re-encode to its bytes")
			}
			n++
		}
		if err := it.Err(); err != nil {
			if !errors.Is(err, ErrUnknownVersion) {
				t.Fatalf("unexpected error %v", err)
			}
			if data[n*TxnEntrySize] == 0 || int8(data[n*TxnEntrySize]) < 0 {
				t.Fatalf("version error on byte %#x", data[n*TxnEntrySize])
			}
		} else if n != int64(len(data)/TxnEntrySize) {
			t.Fatalf("yielded %d of %d", n, len(data)/TxnEntrySize)
		}
		_ = x.SanityCheck("/p")
	})
}

func FuzzSnapshot(f *testing.F) {
	f.Add([]byte{})
	f.Add(unhex(f, appendixC5))
	f.Add(unhex(f, "0001 00000000 7fffffff"))
	f.Add(unhex(f, "0001 00000000 ffffffff"))
	addRealSeeds(f, ".snapshot")
	f.Fuzz(func(t *testing.T, data []byte) {
		s, err := ParseSnapshot(data)
		if err != nil {
			if !errors.Is(err, ErrCorruptSnapshot) {
				t.Fatalf("error not ErrCorruptSnapshot: %v", err)
			}
			if _, ok := KafkaMessage(err); !ok {
				t.Fatalf("error without Kafka message: %v", err)
			}
			var ie *Error
			if !errors.As(err, &ie) || ie.Offset < 0 || ie.Offset > int64(len(data)) {
				t.Fatalf("error offset outside input: %v", err)
			}
			if s != nil && !errors.Is(err, ErrBadCRC) && !errors.Is(err, ErrUnknownVersion) {
				t.Fatal("partial snapshot returned on a structural error")
			}
			return
		}
		if got := 10 + len(s.Entries)*ProducerEntrySize + len(s.Trailing); got != len(data) {
			t.Fatalf("entries+trailing cover %d of %d bytes", got, len(data))
		}
		if re := s.AppendTo(nil); !bytes.Equal(re, data) {
			t.Fatalf("re-encode differs:\n%x\n%x", re, data)
		}
	})
}

// FuzzFileNames: a canonical name re-renders as itself, the two KRaft
// snapshot-name parsers agree where both accept, and nothing panics.
func FuzzFileNames(f *testing.F) {
	f.Add("00000000000000000000.log")
	f.Add("00000000000000007752-0000000001.checkpoint.part")
	f.Add("-0000000000000000001-0000000001.checkpoint")
	f.Add("t-0.0123456789abcdef0123456789abcdef-delete")
	f.Fuzz(func(t *testing.T, name string) {
		sn, err := ParseSegmentName(name)
		if err == nil && sn.Canonical && sn.State == StateNone && sn.Kind != KindUnknown && sn.FileName() != name {
			t.Fatalf("canonical name %q re-renders as %q", name, sn.FileName())
		}
		if off, ep, ok := ParseKRaftSnapshotName(name); ok && err == nil && sn.Kind == KindCheckpoint &&
			(off != sn.BaseOffset || ep != sn.Epoch) {
			t.Fatalf("%q: ParseKRaftSnapshotName %d/%d, ParseSegmentName %d/%d", name, off, ep, sn.BaseOffset, sn.Epoch)
		}
		ParsePartitionDir(name)
	})
}
