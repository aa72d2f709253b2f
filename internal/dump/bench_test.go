package dump

import (
	"encoding/binary"
	"io"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/kseg/kseg/batch"
)

var (
	benchOnce sync.Once
	benchDir  string
	benchSize int64
)

// benchFiles writes a ~32 MiB segment of 16 KiB batches (100-byte values)
// and an offset index with one entry per 4 KiB of log, as a broker would.
func benchFiles(b *testing.B) (log, idx string, size int64) {
	benchOnce.Do(func() {
		dir, err := os.MkdirTemp("", "kseg-report-bench")
		if err != nil {
			b.Fatal(err)
		}
		benchDir = dir
		seg := genSegment(b, 2048, 130, 100, batch.CodecNone)
		var index []byte
		last := -1 << 20
		for _, p := range batchStarts(seg) {
			if p-last >= 4096 {
				rel := binary.BigEndian.Uint64(seg[p:]) + uint64(binary.BigEndian.Uint32(seg[p+23:]))
				index = binary.BigEndian.AppendUint32(index, uint32(rel))
				index = binary.BigEndian.AppendUint32(index, uint32(p))
				last = p
			}
		}
		if err := os.WriteFile(filepath.Join(dir, "00000000000000000000.log"), seg, 0o444); err != nil {
			b.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, "00000000000000000000.index"), index, 0o444); err != nil {
			b.Fatal(err)
		}
		benchSize = int64(len(seg))
	})
	return filepath.Join(benchDir, "00000000000000000000.log"), filepath.Join(benchDir, "00000000000000000000.index"), benchSize
}

func benchDump(b *testing.B, path string, size int64, opts DumpOptions) {
	b.SetBytes(size)
	b.ReportAllocs()
	for b.Loop() {
		d := NewDumper(opts, io.Discard, io.Discard)
		if err := d.Dump(File(path)); err != nil {
			b.Fatal(err)
		}
		d.Finish()
	}
}

// BenchmarkDumpBatches: kafka-dump-log's default output (one line per batch).
func BenchmarkDumpBatches(b *testing.B) {
	log, _, size := benchFiles(b)
	benchDump(b, log, size, DefaultDumpOptions())
}

var (
	bench1kOnce sync.Once
	bench1kPath string
)

// BenchmarkDumpBatchLines1K: batch lines of ~1 KiB batches (9 records of
// 100 bytes), the per-batch cost of the header path on 2 workers.
func BenchmarkDumpBatchLines1K(b *testing.B) {
	bench1kOnce.Do(func() {
		dir, err := os.MkdirTemp("", "kseg-bench-1k")
		if err != nil {
			b.Fatal(err)
		}
		bench1kPath = filepath.Join(dir, "00000000000000000000.log")
		if err := os.WriteFile(bench1kPath, genSegment(b, 32000, 9, 100, batch.CodecNone), 0o444); err != nil {
			b.Fatal(err)
		}
	})
	st, err := os.Stat(bench1kPath)
	if err != nil {
		b.Fatal(err)
	}
	benchDump(b, bench1kPath, st.Size(), DefaultDumpOptions())
}

// BenchmarkDumpDeepPrintDataLog: --deep-iteration --print-data-log to io.Discard.
func BenchmarkDumpDeepPrintDataLog(b *testing.B) {
	log, _, size := benchFiles(b)
	benchDump(b, log, size, fuzzDumpOptions(b, FormatKafka, false))
}

// BenchmarkDumpJSONDeep: --format json with records.
func BenchmarkDumpJSONDeep(b *testing.B) {
	log, _, size := benchFiles(b)
	benchDump(b, log, size, fuzzDumpOptions(b, FormatJSON, false))
}

// BenchmarkDumpIndex: dump the .index, reading the first batch at each
// indexed position. SetBytes is the index size.
func BenchmarkDumpIndex(b *testing.B) {
	_, idx, _ := benchFiles(b)
	st, err := os.Stat(idx)
	if err != nil {
		b.Fatal(err)
	}
	benchDump(b, idx, st.Size(), DefaultDumpOptions())
}

// TestDumpBatchLinesZeroAllocsPerBatch: the header path of the dump (one
// line per batch) allocates nothing per batch.
func TestDumpBatchLinesZeroAllocsPerBatch(t *testing.T) {
	dir := t.TempDir()
	small := genSegment(t, 50, 3, 20, batch.CodecNone)
	large := append(append(append(append([]byte{}, small...), small...), small...), small...)
	ps, pl := filepath.Join(dir, "00000000000000000000.log"), filepath.Join(dir, "00000000000000000001.log")
	os.WriteFile(ps, small, 0o444)
	os.WriteFile(pl, large, 0o444)
	run := func(p string) func() {
		return func() {
			d := NewDumper(DefaultDumpOptions(), io.Discard, io.Discard)
			if err := d.Dump(File(p)); err != nil {
				t.Fatal(err)
			}
			d.Finish()
		}
	}
	a1 := testing.AllocsPerRun(10, run(ps))
	a4 := testing.AllocsPerRun(10, run(pl))
	if a4 > a1 {
		t.Fatalf("dump of 50 batches: %.0f allocations; of 200 batches: %.0f: allocations grow per batch", a1, a4)
	}
}
