package segment

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/kseg/kseg/batch"
)

// crcParRun is what a keep-going, checksum-verifying stream yields over a
// file: each entry, each region, the tail and the error, as text.
func crcParRun(t *testing.T, path string, workers, block int) (out []string, parHits int) {
	t.Helper()
	opts := Options{KeepGoing: true, VerifyCRC: true, CRCWorkers: workers, BlockSize: block,
		OnRegion: func(r Region) {
			out = append(out, fmt.Sprintf("region %d-%d resumed=%v: %v", r.From, r.To, r.Resumed, r.Cause))
		}}
	st, err := OpenFile(path, 0, opts)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	for st.Next() {
		b := st.Batch()
		out = append(out, fmt.Sprintf("entry %d+%d magic %d", b.Pos, b.Size, b.Magic))
		if _, ok := st.sc.crcOf(b.Pos, b.Size, !b.IsLegacy()); ok {
			parHits++
		}
	}
	out = append(out, fmt.Sprintf("tail %d err %v", st.Tail(), st.Err()))
	return out, parHits
}

// TestCRCWorkersSameStream: checksums computed on several goroutines
// change nothing a stream yields or reports, over v2 batches and legacy
// messages with bytes flipped at random (checksum mismatches, broken
// lengths, resyncs), at block sizes that cut entries anywhere; and they
// are used (the entries' checksums come from the parallel pass).
func TestCRCWorkersSameStream(t *testing.T) {
	one, err := os.ReadFile(filepath.Join("..", "testdata", "legacy", "v1-0", "00000000000000000000.log"))
	if err != nil {
		t.Fatal(err) // a committed fixture: missing is a failure
	}
	var clean []byte
	for i := range 12 {
		clean = append(clean, benchSegment(t, batch.CodecNone, 1+i*7, 150_000)...)
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
		for _, block := range []int{minParPart, 200_000, 1 << 20} {
			want, hits := crcParRun(t, path, 0, block)
			if hits != 0 {
				t.Fatalf("%s/%d: %d checksums from a parallel pass with one worker", c.name, block, hits)
			}
			for _, workers := range []int{2, 3} {
				got, hits := crcParRun(t, path, workers, block)
				if !slices.Equal(got, want) {
					t.Errorf("%s/block %d/workers %d: stream differs:\n got %d lines, want %d; first difference %s",
						c.name, block, workers, len(got), len(want), firstDiff(got, want))
				}
				// Most entries are hashed in the parallel pass: all but those
				// at a block's edge and those in a block a resync read (many
				// of them with many flips).
				entries := countPrefix(want, "entry ")
				if need := entries / 2; c.flips > 5 && hits == 0 || c.flips <= 5 && hits < need {
					t.Errorf("%s/block %d/workers %d: %d of %d checksums from the parallel pass", c.name, block, workers, hits, entries)
				}
			}
		}
	}
}

func countPrefix(lines []string, p string) int {
	n := 0
	for _, l := range lines {
		if len(l) >= len(p) && l[:len(p)] == p {
			n++
		}
	}
	return n
}

func firstDiff(a, b []string) string {
	for i := range min(len(a), len(b)) {
		if a[i] != b[i] {
			return fmt.Sprintf("at %d: %q vs %q", i, a[i], b[i])
		}
	}
	return fmt.Sprintf("at %d (one is a prefix of the other)", min(len(a), len(b)))
}

// TestCRCWorkersShortRead: a file that ends before a part of the block
// (a short read) is read and framed as with one worker.
func TestCRCWorkersShortRead(t *testing.T) {
	data := benchSegment(t, batch.CodecNone, 40, 1_000_000)
	path := filepath.Join(t.TempDir(), "x.log")
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	// The stream believes the file is longer than it is: its source says
	// so (a file cut short while it is read).
	run := func(workers int) []string {
		f, err := os.Open(path)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		var out []string
		st := NewStream(Source{Name: path, R: f, Size: int64(len(data)) + 3_000_000},
			Options{KeepGoing: true, VerifyCRC: true, CRCWorkers: workers,
				OnRegion: func(r Region) { out = append(out, fmt.Sprint("region ", r.From, r.To, r.Cause)) }})
		for st.Next() {
			out = append(out, fmt.Sprint(st.Batch().Pos))
		}
		return append(out, fmt.Sprint("tail ", st.Tail(), " err ", st.Err()))
	}
	want := run(0)
	if got := run(2); !slices.Equal(got, want) {
		t.Errorf("short read: stream differs: %s", firstDiff(got, want))
	}
}

// BenchmarkCRCWorkers: a keep-going, checksum-verifying stream over a
// 64 MiB file of 16 KiB batches (larger than the L3 of the machine it was
// written on, in the page cache), with its checksums on one goroutine and
// on two. On 2 idle cores the second is bounded by read(2)'s copy and the
// CRC split over both; on a loaded machine the second core is not free.
func BenchmarkCRCWorkers(b *testing.B) {
	data := benchSegment(b, batch.CodecNone, 148, 64<<20)
	path := filepath.Join(b.TempDir(), "x.log")
	if err := os.WriteFile(path, data, 0o644); err != nil {
		b.Fatal(err)
	}
	for _, workers := range []int{1, 2} {
		b.Run(fmt.Sprintf("workers=%d", workers), func(b *testing.B) {
			b.SetBytes(int64(len(data)))
			st := &Stream{}
			for b.Loop() {
				st.SetOptions(Options{KeepGoing: true, VerifyCRC: true, CRCWorkers: workers})
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

// sizeRecorder is a ReaderAt that is not a file and records its reads.
type sizeRecorder struct {
	r   *bytes.Reader
	max int
}

func (s *sizeRecorder) ReadAt(p []byte, off int64) (int, error) {
	s.max = max(s.max, len(p))
	return s.r.ReadAt(p, off)
}

// TestCRCWorkersOnlyFiles: a source that is not a local file (a remote
// store's ranged reads) is read in the blocks of one worker, whatever
// CRCWorkers says.
func TestCRCWorkersOnlyFiles(t *testing.T) {
	data := benchSegment(t, batch.CodecNone, 40, 3_000_000)
	for _, workers := range []int{0, 2} {
		r := &sizeRecorder{r: bytes.NewReader(data)}
		st := NewStream(Source{Name: "x.log", R: r, Size: int64(len(data))}, Options{KeepGoing: true, VerifyCRC: true, CRCWorkers: workers})
		for st.Next() {
		}
		if st.Err() != nil || st.Tail() != int64(len(data)) {
			t.Fatalf("workers %d: tail %d err %v", workers, st.Tail(), st.Err())
		}
		if r.max != blockSize {
			t.Errorf("workers %d: reads of up to %d bytes, want %d", workers, r.max, blockSize)
		}
	}
}
