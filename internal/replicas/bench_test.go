package replicas

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/kseg/kseg/batch"
	"github.com/kseg/kseg/segment"
)

// benchCopies writes three identical copies of one partition of about mb
// MiB (one segment each, batches of 100 records of 100 bytes, as a
// producer with batch.size 16384 writes them) under dir.
func benchCopies(b *testing.B, dir string, mb int) []string {
	b.Helper()
	bl := batch.NewBuilder(batch.CodecNone)
	val := make([]byte, 100)
	for i := 0; i < 100; i++ {
		bl.Append(1_700_000_000_000+int64(i), nil, val, nil)
	}
	one, err := bl.Build(nil, batch.Header{PartitionLeaderEpoch: 3, ProducerID: -1, ProducerEpoch: -1, BaseSequence: -1}, nil)
	if err != nil {
		b.Fatal(err)
	}
	n := mb << 20 / len(one)
	var copies []string
	for c := 1; c <= 3; c++ {
		pdir := filepath.Join(dir, fmt.Sprintf("n%d", c), "bench-0")
		if err := os.MkdirAll(pdir, 0o755); err != nil {
			b.Fatal(err)
		}
		f, err := os.Create(filepath.Join(pdir, "00000000000000000000.log"))
		if err != nil {
			b.Fatal(err)
		}
		w := bufio.NewWriterSize(f, 1<<20)
		for i := 0; i < n; i++ {
			batch.SetBaseOffset(one, int64(i)*100)
			w.Write(one)
		}
		if err := w.Flush(); err != nil {
			b.Fatal(err)
		}
		f.Close()
		os.WriteFile(filepath.Join(pdir, EpochCheckpointFile), []byte("0\n1\n3 0\n"), 0o644)
		copies = append(copies, pdir)
	}
	return copies
}

// BenchmarkCompare3 compares three copies of one partition and, in the same
// run, counts one copy as kseg count does (segment.CountPartitions): the
// ratio metric is compare time / count time (the issue asks under 3), and
// peak-heap-MB the largest heap seen while comparing (bounded memory: it
// does not grow with the copies). KSEG_BENCH_REPLICAS_MB sets the size of
// each copy (default 128; 1024 for the 1 GiB).
func BenchmarkCompare3(b *testing.B) {
	mb := 128
	if v, err := strconv.Atoi(os.Getenv("KSEG_BENCH_REPLICAS_MB")); err == nil && v > 0 {
		mb = v
	}
	copies := benchCopies(b, b.TempDir(), mb)
	parts := make([]segment.Partition, len(copies))
	for k, d := range copies {
		ps, err := segment.Partitions([]string{d})
		if err != nil {
			b.Fatal(err)
		}
		parts[k] = ps[0]
	}
	// Warm the page cache for both: the first read of a copy is the disk's.
	if _, err := segment.CountPartitions(parts, 3, segment.CountOptions{}); err != nil {
		b.Fatal(err)
	}
	var countT, cmpT time.Duration
	var peak atomic.Uint64
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		t0 := time.Now()
		if _, err := segment.CountPartitions(parts[:1], 1, segment.CountOptions{}); err != nil {
			b.Fatal(err)
		}
		countT += time.Since(t0)
		var ins []Input
		for k := range parts {
			in, err := FileInput(fmt.Sprintf("n%d", k+1), &parts[k])
			if err != nil {
				b.Fatal(err)
			}
			ins = append(ins, in)
		}
		stop := make(chan struct{})
		var wg sync.WaitGroup
		wg.Add(1)
		go func() {
			defer wg.Done()
			var ms runtime.MemStats
			for {
				runtime.ReadMemStats(&ms)
				if ms.HeapInuse > peak.Load() {
					peak.Store(ms.HeapInuse)
				}
				select {
				case <-stop:
					return
				case <-time.After(20 * time.Millisecond):
				}
			}
		}()
		t1 := time.Now()
		r, err := Compare("bench-0", ins)
		cmpT += time.Since(t1)
		close(stop)
		wg.Wait()
		if err != nil {
			b.Fatal(err)
		}
		if r.Diverged() || r.Pairs[0].Shared == 0 {
			b.Fatalf("identical copies: %+v", r.Pairs[0])
		}
	}
	b.StopTimer()
	b.ReportMetric(float64(countT.Milliseconds())/float64(b.N), "count-1-ms/op")
	b.ReportMetric(float64(cmpT.Milliseconds())/float64(b.N), "compare-3-ms/op")
	b.ReportMetric(float64(cmpT)/float64(countT), "ratio")
	b.ReportMetric(float64(peak.Load())/(1<<20), "peak-heap-MB")
}
