package audit

import (
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/kseg/kseg/producer"
	"github.com/kseg/kseg/segment"
)

var (
	bigOnce sync.Once
	bigDir  string
	bigSize int64
	bigErr  error
)

// bigPartition writes a ~256 MiB idempotent partition with the reference
// producer, once per test binary run.
func bigPartition(b *testing.B) (string, int64) {
	b.Helper()
	bigOnce.Do(func() {
		root, err := os.MkdirTemp("", "kseg-audit-bench-")
		if err != nil {
			bigErr = err
			return
		}
		cfg := producer.DefaultConfig()
		cfg.Topic = "bench"
		cfg.Records = 2_400_000
		cfg.ValueSize = 100
		cfg.BatchSize = 16384
		cfg.ProducerID = 7
		out := filepath.Join(root, "logs")
		if _, bigErr = producer.Run(cfg, out, false); bigErr != nil {
			return
		}
		bigDir = filepath.Join(out, "bench-0")
		logs, _ := filepath.Glob(filepath.Join(bigDir, "*.log"))
		for _, l := range logs {
			st, err := os.Stat(l)
			if err != nil {
				bigErr = err
				return
			}
			bigSize += st.Size()
			// Warm the page cache so the first sub-benchmark is not
			// charged for the disk.
			if _, err := os.ReadFile(l); err != nil {
				bigErr = err
				return
			}
		}
	})
	if bigErr != nil {
		b.Fatal(bigErr)
	}
	return bigDir, bigSize
}

// BenchmarkScan compares the audit (with and without CRC checks) to a
// plain header scan of the same partition.
func BenchmarkScan(b *testing.B) {
	dir, size := bigPartition(b)
	logs, _ := filepath.Glob(filepath.Join(dir, "*.log"))
	b.Run("mode=header-scan", func(b *testing.B) {
		b.ReportAllocs()
		b.SetBytes(size)
		for b.Loop() {
			var n int64
			for _, l := range logs {
				f, err := segment.OpenFile(l, 0, segment.Options{})
				if err != nil {
					b.Fatal(err)
				}
				for f.Next() {
					n += int64(f.Batch().Header.RecordCount)
				}
				if err := f.Err(); err != nil {
					b.Fatal(err)
				}
				f.Close()
			}
			if n == 0 {
				b.Fatal("no records")
			}
		}
	})
	for _, mode := range []struct {
		name string
		opts Options
	}{{"audit-skip-crc", Options{SkipCRC: true}}, {"audit", Options{}}} {
		b.Run("mode="+mode.name, func(b *testing.B) {
			parts, err := Partitions([]string{dir})
			if err != nil {
				b.Fatal(err)
			}
			b.ReportAllocs()
			b.SetBytes(size)
			for b.Loop() {
				r, err := Run(parts[0], mode.opts)
				if err != nil {
					b.Fatal(err)
				}
				if len(r.Findings) != 0 || r.Summary.Batches == 0 {
					b.Fatalf("findings %d batches %d", len(r.Findings), r.Summary.Batches)
				}
			}
		})
	}
}
