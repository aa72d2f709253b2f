package dump

import (
	"bytes"
	"errors"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/kseg/kseg/batch"
)

// TestParallelDumpFromBlocks: a parallel dump that formats entries in
// place in the file's blocks prints what the sequential dump prints,
// whatever the block size (entries straddling blocks, entries larger than
// a block), and lets go of every block.
func TestParallelDumpFromBlocks(t *testing.T) {
	oldBlock, oldChunk := fileBlockSize, chunkBytes
	defer func() { fileBlockSize, chunkBytes = oldBlock, oldChunk }()
	// Batches of 1, 9 and 400 records (40 B to 45 KB), a gzip batch, and
	// trailing bytes that frame no entry.
	var log []byte
	for _, g := range []struct{ n, recs, size int }{{300, 1, 20}, {200, 9, 100}, {6, 400, 100}, {100, 9, 100}} {
		log = append(log, genSegment(t, g.n, g.recs, g.size, batch.CodecNone)...)
	}
	log = append(log, genSegment(t, 3, 50, 100, batch.CodecGzip)...)
	log = append(log, make([]byte, 10)...)
	path := filepath.Join(t.TempDir(), "00000000000000000000.log")
	if err := os.WriteFile(path, log, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name         string
		block, chunk int
	}{
		{"blocks smaller than most entries", 61, 4096},
		{"blocks of a few entries", 5000, 3000},
		{"one chunk per block", 64 << 10, 64 << 10},
		{"the default block", 1 << 20, 128 << 10},
	} {
		for _, deep := range []bool{false, true} {
			fileBlockSize, chunkBytes = tc.block, tc.chunk
			opts := fuzzDumpOptions(t, FormatKafka, false)
			opts.DeepIteration, opts.PrintDataLog = deep, deep
			so1, se1, e1 := dumpWith(t, 1, []string{path}, opts)
			var so, se bytes.Buffer
			d := NewDumper(opts, &so, &se)
			d.workers = 3
			if err := d.Dump(File(path)); err != nil {
				t.Fatalf("%s: %v", tc.name, err)
			}
			if err := d.Finish(); err != nil {
				t.Fatal(err)
			}
			if so.String() != so1 || se.String() != se1 || e1 != "" {
				t.Fatalf("%s, deep %v: parallel dump from blocks differs (%d vs %d bytes; err %q)", tc.name, deep, so.Len(), len(so1), e1)
			}
			if d.inPlace == 0 {
				t.Errorf("%s, deep %v: no entry was formatted in its block", tc.name, deep)
			}
			if d.blocksLeft != 0 {
				t.Errorf("%s, deep %v: %d blocks still held after the dump", tc.name, deep, d.blocksLeft)
			}
		}
	}
}

// failAfter accepts n bytes, then fails every write.
type failAfter struct{ n int }

var errOutputClosed = errors.New("output closed")

func (w *failAfter) Write(p []byte) (int, error) {
	if len(p) > w.n {
		k := w.n
		w.n = 0
		return k, errOutputClosed
	}
	w.n -= len(p)
	return len(p), nil
}

// TestDumpOutputErrorReported: when stdout fails (a closed pipe), the
// dump reports it, whether the output went through the buffer or, a
// parallel chunk's, around it.
func TestDumpOutputErrorReported(t *testing.T) {
	path := filepath.Join(t.TempDir(), "00000000000000000000.log")
	if err := os.WriteFile(path, genSegment(t, 400, 50, 100, batch.CodecNone), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, workers := range []int{1, 3} {
		for _, after := range []int{0, 1000, 300 << 10, 3 << 20} {
			d := NewDumper(fuzzDumpOptions(t, FormatKafka, false), &failAfter{n: after}, io.Discard)
			d.workers = workers
			err := d.Dump(File(path))
			if err == nil {
				err = d.Finish()
			}
			if !errors.Is(err, errOutputClosed) {
				t.Errorf("%d workers, output failing after %d bytes: %v, want the output's error", workers, after, err)
			}
		}
	}
}
