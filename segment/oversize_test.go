//go:build unix

package segment

import (
	"bytes"
	"encoding/binary"
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"syscall"
	"testing"
	"time"

	"github.com/kseg/kseg/batch"
)

// sparseLog writes a file of size bytes whose first entry's header claims
// claim bytes (magic 2), with good appended after the claimed entry's end
// when it fits; the rest is a hole.
func sparseLog(t *testing.T, size int64, claim int32, good []byte) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "00000000000000000000.log")
	f, err := os.Create(p)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	hdr := make([]byte, batch.HeaderSize)
	binary.BigEndian.PutUint32(hdr[8:], uint32(claim))
	hdr[16] = batch.MagicV2
	if _, err := f.Write(hdr); err != nil {
		t.Fatal(err)
	}
	if good != nil {
		if _, err := f.WriteAt(good, batch.LogOverhead+int64(claim)); err != nil {
			t.Fatal(err)
		}
	}
	if err := f.Truncate(size); err != nil {
		t.Skip("no sparse files here:", err)
	}
	return p
}

func allocDuring(f func()) uint64 {
	var a, b runtime.MemStats
	runtime.ReadMemStats(&a)
	f()
	runtime.ReadMemStats(&b)
	return b.TotalAlloc - a.TotalAlloc
}

// TestOversizedEntryNotAllocated: a batch header that claims 2 GiB (in a
// 3 GiB sparse file) is refused with a located batch.ErrTooLarge when its
// bytes are asked for, before a buffer of that size exists; with
// keep-going it is a region and the stream resumes at the next batch.
func TestOversizedEntryNotAllocated(t *testing.T) {
	p := sparseLog(t, 3<<30, 0x7ffffff0, nil)
	var err error
	n := allocDuring(func() {
		s, oerr := OpenFile(p, 0, Options{VerifyCRC: true})
		if oerr != nil {
			t.Fatal(oerr)
		}
		defer s.Close()
		for s.Next() {
		}
		err = s.Err()
	})
	var le *Error
	if !errors.Is(err, batch.ErrTooLarge) || !errors.As(err, &le) || le.File != p || le.Offset != 8 {
		t.Errorf("err %v; want a located ErrTooLarge at byte 8 of %s", err, p)
	}
	if n > 16<<20 {
		t.Errorf("allocated %d bytes for a batch that claims 2 GiB", n)
	}

	// Keep-going over the 3 GiB: the search for the next batch skips the
	// hole's zeros a block at a time (it took 46 s byte by byte).
	start := cpuTime()
	var regions []Region
	n = allocDuring(func() {
		s, oerr := OpenFile(p, 0, Options{VerifyCRC: true, KeepGoing: true,
			OnRegion: func(r Region) { regions = append(regions, r) }})
		if oerr != nil {
			t.Fatal(oerr)
		}
		defer s.Close()
		for s.Next() {
		}
		err = s.Err()
	})
	if d := cpuTime() - start; d > 12*time.Second {
		t.Errorf("keep-going over a 3 GiB hole took %v of CPU", d)
	}
	if err != nil || len(regions) != 1 || !errors.Is(regions[0].Cause, batch.ErrTooLarge) || regions[0].To != 3<<30 {
		t.Errorf("keep-going over the hole: err %v, regions %+v", err, regions)
	}
	if n > 16<<20 {
		t.Errorf("keep-going over the hole: allocated %d bytes", n)
	}

	// Keep-going: with a 1 MiB cap, a 100 MiB claim is a region and the
	// batch after it is read.
	good := testSegment(t, 1, batch.CodecNone)
	claim := int32(100 << 20)
	p = sparseLog(t, batch.LogOverhead+int64(claim)+int64(len(good)), claim, good)
	regions = nil
	batches := 0
	n = allocDuring(func() {
		s, oerr := OpenFile(p, 0, Options{VerifyCRC: true, KeepGoing: true, MaxDecompressed: 1 << 20,
			OnRegion: func(r Region) { regions = append(regions, r) }})
		if oerr != nil {
			t.Fatal(oerr)
		}
		defer s.Close()
		for s.Next() {
			batches++
		}
		err = s.Err()
	})
	if err != nil || batches != 1 || len(regions) != 1 || !errors.Is(regions[0].Cause, batch.ErrTooLarge) ||
		regions[0].To != batch.LogOverhead+int64(claim) {
		t.Errorf("keep-going: err %v, %d batches, regions %+v", err, batches, regions)
	}
	if n > 40<<20 {
		t.Errorf("keep-going: allocated %d bytes for a batch that claims 100 MiB", n)
	}
}

// cpuTime is the process's user and system time: unlike the wall clock,
// not stretched by other processes on a shared machine.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// TestResyncAcrossZeros: the search's jump over zeros lands where a
// byte-by-byte search does, the next intact batch, whatever the run's
// length and wherever it starts (batches here begin with zero bytes of
// their base offset, so runs touch their headers).
func TestResyncAcrossZeros(t *testing.T) {
	seg := testSegment(t, 2, batch.CodecNone)
	first := int64(binary.BigEndian.Uint32(seg[8:])) + batch.LogOverhead
	for _, gap := range []int{1, 5, 11, 12, 13, 17, 100, 70000, 200000} {
		data := append(append(append([]byte(nil), seg[:first]...), make([]byte, gap)...), seg[first:]...)
		next := first + int64(gap)
		for _, from := range []int64{first, first + 1, next - 12, next - 11, next - 1} {
			if from < first {
				continue
			}
			s := NewScanner(bytes.NewReader(data), int64(len(data)), "x.log")
			if p, ok := s.Resync(from); !ok || p != next {
				t.Errorf("gap %d: Resync(%d) = %d, %v; want %d", gap, from, p, ok, next)
			}
		}
	}
}
