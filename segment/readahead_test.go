package segment

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"unsafe"

	"github.com/kseg/kseg/batch"
)

// raRun is what a keep-going, checksum-verifying stream with opts
// yields over a file: each entry, each region, the tail and the error.
func raRun(t testing.TB, path string, opts Options) []string {
	t.Helper()
	var out []string
	opts.KeepGoing, opts.VerifyCRC = true, true
	opts.OnRegion = func(r Region) {
		out = append(out, fmt.Sprintf("region %d-%d resumed=%v: %v", r.From, r.To, r.Resumed, r.Cause))
	}
	st, err := OpenFile(path, 0, opts)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	for st.Next() {
		b := st.Batch()
		raw, err := b.Bytes()
		out = append(out, fmt.Sprintf("entry %d+%d magic %d bytes %d %v", b.Pos, b.Size, b.Magic, len(raw), err))
	}
	return append(out, fmt.Sprintf("tail %d err %v", st.Tail(), st.Err()))
}

// TestReadAheadSameStream: blocks read ahead on other goroutines change
// nothing a stream yields or reports, over v2 batches and legacy messages
// (entries cut by every block's end), with bytes flipped at random
// (checksum mismatches, broken lengths, resyncs) and a torn tail; and the
// entries are served in place from the blocks.
func TestReadAheadSameStream(t *testing.T) {
	one, err := os.ReadFile(filepath.Join("..", "testdata", "legacy", "v1-0", "00000000000000000000.log"))
	if err != nil {
		t.Fatal(err) // a committed fixture: missing is a failure
	}
	var clean []byte
	for i := 0; len(clean) < readAheadMin+3*readAheadBlock; i++ {
		clean = append(clean, benchSegment(t, batch.CodecNone, 1+i%13*7, 150_000)...)
		clean = append(clean, one...)
	}
	dir := t.TempDir()
	cases := []struct {
		name  string
		flips int
		seed  uint64
	}{
		{"intact", 0, 1},
		{"one flip", 1, 2},
		{"a few flips", 5, 3},
		{"many flips", 60, 4},
		{"truncated", 0, 5},
	}
	for _, c := range cases {
		data := bytes.Clone(clean)
		rng := rand.New(rand.NewPCG(c.seed, 99))
		for range c.flips {
			data[rng.IntN(len(data))] ^= byte(1 + rng.IntN(255))
		}
		if c.name == "truncated" {
			data = data[:len(data)-1000]
		}
		path := filepath.Join(dir, c.name+".log")
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
		want := raRun(t, path, Options{})
		for _, lanes := range []int{1, 2, 3} {
			got := raRun(t, path, Options{ReadAhead: lanes})
			if !slices.Equal(got, want) {
				t.Errorf("%s/lanes %d: stream differs:\n got %d lines, want %d; first difference %s",
					c.name, lanes, len(got), len(want), firstDiff(got, want))
			}
		}
	}
}

// TestReadAheadInPlace: with read-ahead the stream frames the file's
// blocks where the lanes read them: reads of the file itself are left for
// entries across a block's end.
func TestReadAheadInPlace(t *testing.T) {
	data := benchSegment(t, batch.CodecNone, 20, readAheadMin+5*readAheadBlock+12345)
	path := filepath.Join(t.TempDir(), "x.log")
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	st, err := OpenFile(path, 0, Options{VerifyCRC: true, ReadAhead: 2})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	ra, ok := st.sc.r.(*readAhead)
	if !ok {
		t.Fatalf("the stream reads %T, not ahead", st.sc.r)
	}
	n, inPlace := 0, 0
	for st.Next() {
		n++
		raw, err := st.Batch().Bytes()
		if err != nil {
			t.Fatal(err)
		}
		if c := ra.cur.b; len(c) > 0 && within(raw, c) {
			inPlace++
		}
	}
	if st.Err() != nil || st.Tail() != int64(len(data)) {
		t.Fatalf("tail %d of %d, err %v", st.Tail(), len(data), st.Err())
	}
	blocks := (len(data) + readAheadBlock - 1) / readAheadBlock
	if inPlace < n-blocks {
		t.Errorf("%d of %d entries served in place (at most %d cross a block's end)", inPlace, n, blocks)
	}
}

// TestReadAheadSmallFiles: a file under readAheadMin is read as without
// read-ahead (no goroutines for a few blocks).
func TestReadAheadSmallFiles(t *testing.T) {
	data := benchSegment(t, batch.CodecNone, 20, readAheadMin/2)
	path := filepath.Join(t.TempDir(), "x.log")
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	st, err := OpenFile(path, 0, Options{ReadAhead: 2})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	if _, ok := st.sc.r.(*readAhead); ok {
		t.Errorf("a %d-byte file is read ahead", len(data))
	}
}

// TestReadAheadEarlyClose: closing the stream before its end stops the
// lanes (Close returns; a lane blocked on a full ring would hang it).
func TestReadAheadEarlyClose(t *testing.T) {
	data := benchSegment(t, batch.CodecNone, 20, readAheadMin+20*readAheadBlock)
	path := filepath.Join(t.TempDir(), "x.log")
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, stopAfter := range []int{0, 1, 500} {
		st, err := OpenFile(path, 0, Options{VerifyCRC: true, ReadAhead: 2})
		if err != nil {
			t.Fatal(err)
		}
		for i := 0; i < stopAfter && st.Next(); i++ {
		}
		if err := st.Close(); err != nil {
			t.Errorf("close after %d entries: %v", stopAfter, err)
		}
	}
}

// TestReadAheadSparseHole: a resync past a hole of a sparse file stops the
// lanes (they would read the hole) and skips the hole as without
// read-ahead; the stream is the same.
func TestReadAheadSparseHole(t *testing.T) {
	head := benchSegment(t, batch.CodecNone, 20, readAheadMin+2*readAheadBlock)
	tail := benchSegment(t, batch.CodecNone, 20, 300_000)
	path := filepath.Join(t.TempDir(), "sparse.log")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	const hole = 1 << 30
	if _, err := f.Write(head); err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteAt(tail, int64(len(head))+hole); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	want := raRun(t, path, Options{})
	got := raRun(t, path, Options{ReadAhead: 2})
	if !slices.Equal(got, want) {
		t.Errorf("stream differs: %s", firstDiff(got, want))
	}
}

// TestReadAheadShortRead: a file that ends before the size the stream was
// given (cut short while it is read) ends a lane at its short read; the
// stream reads on with ReadAt and reports the end as without read-ahead.
func TestReadAheadShortRead(t *testing.T) {
	data := benchSegment(t, batch.CodecNone, 40, readAheadMin+3*readAheadBlock+777)
	path := filepath.Join(t.TempDir(), "x.log")
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	claimed := int64(len(data)) + 3_000_000
	run := func(lanes int) []string {
		f, err := os.Open(path)
		if err != nil {
			t.Fatal(err)
		}
		var r interface {
			ReadAt([]byte, int64) (int, error)
		} = f
		if lanes > 0 {
			ra := newReadAhead(f, claimed, lanes)
			defer ra.Close()
			r = ra
		} else {
			defer f.Close()
		}
		var out []string
		st := NewStream(Source{Name: path, R: r, Size: claimed},
			Options{KeepGoing: true, VerifyCRC: true,
				OnRegion: func(r Region) { out = append(out, fmt.Sprint("region ", r.From, r.To, r.Cause)) }})
		for st.Next() {
			out = append(out, fmt.Sprint(st.Batch().Pos))
		}
		return append(out, fmt.Sprint("tail ", st.Tail(), " err ", st.Err()))
	}
	want := run(0)
	for _, lanes := range []int{1, 2} {
		if got := run(lanes); !slices.Equal(got, want) {
			t.Errorf("lanes %d: stream differs: %s", lanes, firstDiff(got, want))
		}
	}
}

func firstDiff(a, b []string) string {
	for i := range min(len(a), len(b)) {
		if a[i] != b[i] {
			return fmt.Sprintf("at %d: %q vs %q", i, a[i], b[i])
		}
	}
	return fmt.Sprintf("at %d (one is a prefix of the other)", min(len(a), len(b)))
}

// BenchmarkReadAhead: a keep-going, checksum-verifying stream (audit's)
// over a 256 MiB file of 16 KiB batches in the page cache: reads on the
// stream's goroutine, and blocks read ahead by one and two lanes.
func BenchmarkReadAhead(b *testing.B) {
	data := benchSegment(b, batch.CodecNone, 148, 256<<20)
	path := filepath.Join(b.TempDir(), "x.log")
	if err := os.WriteFile(path, data, 0o644); err != nil {
		b.Fatal(err)
	}
	for _, c := range []struct {
		name string
		opts Options
	}{
		{"plain", Options{}},
		{"readahead=1", Options{ReadAhead: 1}},
		{"readahead=2", Options{ReadAhead: 2}},
	} {
		b.Run(c.name, func(b *testing.B) {
			b.SetBytes(int64(len(data)))
			st := &Stream{}
			for b.Loop() {
				opts := c.opts
				opts.KeepGoing, opts.VerifyCRC = true, true
				st.SetOptions(opts)
				if err := st.OpenFile(path, 0); err != nil {
					b.Fatal(err)
				}
				n := 0
				for st.Next() {
					n++
				}
				if st.Err() != nil || n == 0 || st.Tail() != int64(len(data)) {
					b.Fatalf("%d batches, tail %d, err %v", n, st.Tail(), st.Err())
				}
				st.Close()
			}
		})
	}
}

// within says whether p starts inside b.
func within(p, b []byte) bool {
	at, lo := uintptr(unsafe.Pointer(unsafe.SliceData(p))), uintptr(unsafe.Pointer(unsafe.SliceData(b)))
	return at >= lo && at < lo+uintptr(len(b))
}
