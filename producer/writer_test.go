package producer

import (
	"bytes"
	"path/filepath"
	"runtime"
	"syscall"
	"testing"
)

// TestWriterSmallFlushesSameBytes writes the same run with the largest and
// the smallest pending buffers: rolled segments, indexes and snapshots must
// not depend on how the bytes reached the files.
func TestWriterSmallFlushesSameBytes(t *testing.T) {
	cfg := seedConfig(func(c *Config) {
		c.Records, c.Partitions, c.KeyPrefix, c.KeyCount = 30000, 3, "k", 40
		c.BatchSize, c.SegmentBytes = 4096, 200000
	})
	big := filepath.Join(t.TempDir(), "big")
	if _, err := Run(cfg, big, false); err != nil {
		t.Fatal(err)
	}
	defer func(b int) { writeBudget = b }(writeBudget)
	writeBudget = 0 // every file flushes at minFlush
	small := filepath.Join(t.TempDir(), "small")
	if _, err := Run(cfg, small, false); err != nil {
		t.Fatal(err)
	}
	a, b := treeBytes(t, big), treeBytes(t, small)
	if len(a) != len(b) {
		t.Fatalf("%d files, then %d", len(a), len(b))
	}
	segs := 0
	for name, x := range a {
		if !bytes.Equal(x, b[name]) {
			t.Errorf("%s differs (%d bytes vs %d)", name, len(x), len(b[name]))
		}
		if filepath.Ext(name) == ".log" {
			segs++
		}
	}
	if segs < 6 || len(a[filepath.Join("kseg-ref-0", "00000000000000000000.log")]) <= minFlush {
		t.Fatalf("%d segments: the run does not roll or does not exceed one flush", segs)
	}
}

// TestWriterManyPartitionsFewFiles writes more partitions than the process
// may hold files open (the writer used to keep three per partition open).
func TestWriterManyPartitionsFewFiles(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("RLIMIT_NOFILE test is for Linux")
	}
	var old syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &old); err != nil {
		t.Skip(err)
	}
	low := old
	low.Cur = 64
	if err := syscall.Setrlimit(syscall.RLIMIT_NOFILE, &low); err != nil {
		t.Skip(err)
	}
	defer syscall.Setrlimit(syscall.RLIMIT_NOFILE, &old)
	cfg := seedConfig(func(c *Config) {
		c.Records, c.Partitions, c.KeyPrefix, c.KeyCount = 2000, 300, "k", 1000
	})
	res, err := Run(cfg, filepath.Join(t.TempDir(), "out"), false)
	if err != nil {
		t.Fatal(err)
	}
	var recs int64
	for _, p := range res.Partitions {
		recs += p.Records
	}
	if len(res.Partitions) != 300 || recs != 2000 {
		t.Fatalf("%d partitions, %d records", len(res.Partitions), recs)
	}
}

// TestWriterMemoryBoundedByPartitions: the pending files of a run hold at
// most the write budget (plus the buffer being written) however many
// partitions there are, and the files are the same as with a budget large
// enough for every partition's buffers. Without the list of batches
// (RunCounts) the counts are Run's.
func TestWriterMemoryBoundedByPartitions(t *testing.T) {
	cfg := seedConfig(func(c *Config) {
		c.Records, c.Partitions, c.KeyPrefix, c.KeyCount = 30000, 1000, "k", 10000
	})
	ref := t.TempDir()
	want, err := write(cfg, ref, true, &writePool{budget: 1 << 30})
	if err != nil {
		t.Fatal(err)
	}
	if len(want.Batches) == 0 {
		t.Fatal("Write kept no batches")
	}
	for _, budget := range []int{256 << 10, 1 << 20} {
		pool := &writePool{budget: budget}
		out := t.TempDir()
		got, err := write(cfg, out, false, pool)
		if err != nil {
			t.Fatal(err)
		}
		// Without the pool each partition's log alone holds minFlush.
		if unbounded := cfg.Partitions * minFlush; unbounded <= budget {
			t.Fatalf("budget %d: the test does not reach the bound (%d)", budget, unbounded)
		}
		if limit := budget + 64<<10; pool.peak > limit || pool.peak < budget/2 {
			t.Errorf("budget %d: pending buffers peaked at %d bytes, want at most %d (and near the budget)", budget, pool.peak, limit)
		}
		if len(got.Batches) != 0 {
			t.Errorf("RunCounts kept %d batches", len(got.Batches))
		}
		for p := range got.Partitions {
			g, w := got.Partitions[p], want.Partitions[p]
			if g.Batches != w.Batches || g.Records != w.Records || g.Bytes != w.Bytes {
				t.Fatalf("partition %d: %+v, Run %+v", p, g, w)
			}
		}
		a, b := treeBytes(t, ref), treeBytes(t, out)
		if len(a) != len(b) {
			t.Fatalf("%d files, then %d", len(a), len(b))
		}
		for name, x := range a {
			if !bytes.Equal(x, b[name]) {
				t.Fatalf("budget %d: %s differs", budget, name)
			}
		}
	}
}
