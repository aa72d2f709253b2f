package producer

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/kseg/kseg/batch"
)

// onDisk is one batch read back from a written .log.
type onDisk struct {
	h       batch.Header
	segment int64
	pos     int64
}

// readLog walks every .log of a partition directory with batch.ParseHeader
// and checks the framing and CRCs.
func readLog(t *testing.T, dir string) []onDisk {
	t.Helper()
	logs, _ := filepath.Glob(filepath.Join(dir, "*.log"))
	sort.Strings(logs)
	var out []onDisk
	for _, name := range logs {
		data, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		var base int64
		fmt.Sscanf(filepath.Base(name), "%d.log", &base)
		for pos := 0; pos < len(data); {
			h, err := batch.ParseHeader(data[pos:])
			if err != nil {
				t.Fatalf("%s@%d: %v", name, pos, err)
			}
			end := pos + int(h.Size())
			if end > len(data) {
				t.Fatalf("%s@%d: batch runs past the end", name, pos)
			}
			if !batch.ValidCRC(data[pos:end]) {
				t.Fatalf("%s@%d: bad CRC", name, pos)
			}
			out = append(out, onDisk{h: h, segment: base, pos: int64(pos)})
			pos = end
		}
	}
	return out
}

func histogramOf(bs []onDisk) string {
	m := map[int]int{}
	for _, b := range bs {
		m[int(b.h.RecordCount)]++
	}
	return histogram(m)
}

// histogram is segment.FormatHistogram's notation, "<records>x<batches>" groups
// largest record count first ("148x1 52x1"); report imports producer, so
// its tests here cannot import report.
func histogram(m map[int]int) string {
	keys := make([]int, 0, len(m))
	for k, n := range m {
		if n > 0 {
			keys = append(keys, k)
		}
	}
	sort.Sort(sort.Reverse(sort.IntSlice(keys)))
	groups := make([]string, len(keys))
	for i, k := range keys {
		groups[i] = fmt.Sprintf("%dx%d", k, m[k])
	}
	return strings.Join(groups, " ")
}

func sizesOf(bs []onDisk) []int {
	var s []int
	for _, b := range bs {
		s = append(s, int(b.h.Size()))
	}
	return s
}

func runTo(t *testing.T, cfg Config) (string, *Result) {
	t.Helper()
	dir := t.TempDir()
	res, err := Write(cfg, dir)
	if err != nil {
		t.Fatal(err)
	}
	return dir, res
}

// seedConfig is the ideal model (instantaneous threads) with the seed
// article's workload: the deterministic figures are exact there.
func seedConfig(mod func(*Config)) Config {
	c := DefaultConfig()
	c.Timing = Timing{}
	c.Records = 200
	c.ValueSize = 100
	mod(&c)
	return c
}

// TestSeedFigures reproduces the measured figures of the seed article
// (docs/producer-model.md, Worked examples) from the bytes on
// disk: histograms, batch sizes, sequences.
func TestSeedFigures(t *testing.T) {
	tests := []struct {
		name  string
		cfg   Config
		hist  []string // per partition
		sizes func(p int, sizes []int) error
	}{
		{
			name: "sync linger 0",
			cfg:  seedConfig(func(c *Config) { c.Sync = true; c.LingerMs = 0 }),
			hist: []string{"1x200"},
			sizes: func(_ int, s []int) error {
				return allEqual(s, 170)
			},
		},
		{
			name: "sync default linger",
			cfg:  seedConfig(func(c *Config) { c.Sync = true }),
			hist: []string{"1x200"},
		},
		{
			name: "batch 1024 linger 1000",
			cfg:  seedConfig(func(c *Config) { c.BatchSize = 1024; c.LingerMs = 1000 }),
			hist: []string{"8x25"},
			sizes: func(_ int, s []int) error {
				return allEqual(s, 933)
			},
		},
		{
			name: "batch 16384 linger 1000",
			cfg:  seedConfig(func(c *Config) { c.BatchSize = 16384; c.LingerMs = 1000 }),
			hist: []string{"148x1 52x1"},
			sizes: func(_ int, s []int) error {
				return sameInts(s, []int{16277, 5729})
			},
		},
		{
			name: "cold start 1024",
			cfg: seedConfig(func(c *Config) {
				c.BatchSize = 1024
				c.LingerMs = 1000
				c.FirstSendDelay = 70 * time.Millisecond
			}),
			hist: []string{"8x25"},
			sizes: func(_ int, s []int) error {
				if s[0] != 940 {
					return fmt.Errorf("first batch %d bytes, want 940", s[0])
				}
				return allEqual(s[1:], 933)
			},
		},
		{
			name: "cold start 16384",
			cfg: seedConfig(func(c *Config) {
				c.LingerMs = 1000
				c.FirstSendDelay = 70 * time.Millisecond
			}),
			hist: []string{"147x1 53x1"},
			sizes: func(_ int, s []int) error {
				return sameInts(s, []int{16313, 5838})
			},
		},
		{
			name: "keyed 3 partitions",
			cfg: seedConfig(func(c *Config) {
				c.Records = 600
				c.Partitions = 3
				c.BatchSize = 1024
				c.LingerMs = 1000
				c.KeyPrefix = "key-"
				c.KeyCount = 10
			}),
			hist: []string{"8x22 4x1", "8x22 4x1", "8x30"},
			sizes: func(_ int, s []int) error {
				for i, n := range s {
					if n != 973 && !(i == len(s)-1 && n == 61+4*114) {
						return fmt.Errorf("batch %d is %d bytes", i, n)
					}
				}
				return nil
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir, res := runTo(t, tt.cfg)
			for p, want := range tt.hist {
				bs := readLog(t, filepath.Join(dir, fmt.Sprintf("kseg-ref-%d", p)))
				if got := histogramOf(bs); got != want {
					t.Errorf("partition %d: %s, want %s", p, got, want)
				}
				if got := histogram(res.Partitions[p].RecordsPerBatch); got != want {
					t.Errorf("partition %d stats: %s, want %s", p, got, want)
				}
				if tt.sizes != nil {
					if err := tt.sizes(p, sizesOf(bs)); err != nil {
						t.Errorf("partition %d: %v", p, err)
					}
				}
				checkSequences(t, bs, tt.cfg)
			}
		})
	}
}

func allEqual(s []int, v int) error {
	for i, n := range s {
		if n != v {
			return fmt.Errorf("batch %d is %d bytes, want %d", i, n, v)
		}
	}
	return nil
}

func sameInts(got, want []int) error {
	if fmt.Sprint(got) != fmt.Sprint(want) {
		return fmt.Errorf("batch sizes %v, want %v", got, want)
	}
	return nil
}

// checkSequences: offsets contiguous from 0, sequences contiguous from 0,
// producer id/epoch as configured, timestamps as CreateTime.
func checkSequences(t *testing.T, bs []onDisk, cfg Config) {
	t.Helper()
	var off int64
	var seq int32
	for i, b := range bs {
		h := b.h
		if h.BaseOffset != off {
			t.Fatalf("batch %d base offset %d, want %d", i, h.BaseOffset, off)
		}
		if h.BaseSequence != seq || h.ProducerID != cfg.ProducerID || h.ProducerEpoch != cfg.ProducerEpoch {
			t.Fatalf("batch %d: seq %d pid %d epoch %d, want seq %d", i, h.BaseSequence, h.ProducerID, h.ProducerEpoch, seq)
		}
		if h.PartitionLeaderEpoch != cfg.LeaderEpoch || h.TimestampType() != batch.CreateTime {
			t.Fatalf("batch %d: leader epoch %d, %v", i, h.PartitionLeaderEpoch, h.TimestampType())
		}
		off += int64(h.RecordCount)
		seq += h.RecordCount
	}
}

// TestUnkeyedSticky: without keys every batch holds 8 records and every
// sticky run is exactly 16 records (two batches), whatever the seed.
func TestUnkeyedSticky(t *testing.T) {
	for _, seed := range []uint64{1, 2, 3, 42} {
		t.Run(fmt.Sprintf("seed=%d", seed), func(t *testing.T) {
			cfg := seedConfig(func(c *Config) {
				c.Records = 600
				c.Partitions = 3
				c.BatchSize = 1024
				c.LingerMs = 1000
				c.Seed = seed
			})
			var order []DrainedBatch
			dir := t.TempDir()
			res, err := writeObserved(cfg, dir, func(d DrainedBatch) { order = append(order, d) })
			if err != nil {
				t.Fatal(err)
			}
			total := 0
			for p := 0; p < 3; p++ {
				bs := readLog(t, filepath.Join(dir, fmt.Sprintf("kseg-ref-%d", p)))
				for _, b := range bs {
					if b.h.RecordCount != 8 {
						t.Errorf("partition %d: batch of %d records", p, b.h.RecordCount)
					}
				}
				total += int(res.Partitions[p].Records)
				if res.Partitions[p].Records%8 != 0 {
					t.Errorf("partition %d has %d records", p, res.Partitions[p].Records)
				}
			}
			if total != 600 {
				t.Errorf("%d records written", total)
			}
			// Sticky runs: consecutive records (in send order) on one
			// partition: batches in creation order, same-partition
			// neighbours merged.
			runs := stickyRuns(t, order)
			for i, r := range runs {
				if r != 16 && !(i == len(runs)-1 && r == 8) {
					t.Errorf("sticky run %d is %d records (runs %v)", i, r, runs)
					break
				}
			}
		})
	}
}

// stickyRuns sums records per sticky period, in creation order, checking
// that a period never spans two partitions.
func stickyRuns(t *testing.T, order []DrainedBatch) []int {
	sort.Slice(order, func(i, j int) bool { return order[i].Created < order[j].Created })
	var runs []int
	last, lastPart := int64(-1), -1
	for _, d := range order {
		if d.Stick == last {
			if d.Partition != lastPart {
				t.Fatalf("sticky period %d spans partitions %d and %d", d.Stick, lastPart, d.Partition)
			}
			runs[len(runs)-1] += d.Records
			continue
		}
		if d.Stick < last {
			t.Fatalf("sticky periods out of creation order")
		}
		runs = append(runs, d.Records)
		last, lastPart = d.Stick, d.Partition
	}
	return runs
}

// writeObserved is Write with a hook on every drained batch.
func writeObserved(cfg Config, dir string, hook func(DrainedBatch)) (*Result, error) {
	testDrainHook = hook
	defer func() { testDrainHook = nil }()
	return Write(cfg, dir)
}

func TestDeterministic(t *testing.T) {
	cfg := seedConfig(func(c *Config) {
		c.Records = 3000
		c.Partitions = 3
		c.BatchSize = 2048
		c.LingerMs = 3
		c.SendInterval = 150 * time.Microsecond
		c.Compression = batch.CodecLZ4
		c.SegmentBytes = 64 << 10
		c.Seed = 7
	})
	a, _ := runTo(t, cfg)
	b, _ := runTo(t, cfg)
	fa, fb := treeBytes(t, a), treeBytes(t, b)
	if len(fa) == 0 {
		t.Fatal("nothing written")
	}
	for name, data := range fa {
		if !bytes.Equal(data, fb[name]) {
			t.Errorf("%s differs between two runs with the same flags", name)
		}
	}
	if len(fa) != len(fb) {
		t.Errorf("%d files vs %d", len(fa), len(fb))
	}
	cfg.Seed = 8
	c, _ := runTo(t, cfg)
	fc := treeBytes(t, c)
	same := true
	for name, data := range fa {
		if !bytes.Equal(data, fc[name]) {
			same = false
		}
	}
	if same {
		t.Error("a different seed wrote the same bytes")
	}
}

func treeBytes(t *testing.T, dir string) map[string][]byte {
	t.Helper()
	out := map[string][]byte{}
	filepath.Walk(dir, func(p string, fi os.FileInfo, err error) error {
		if err != nil || fi.IsDir() {
			return err
		}
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		rel, _ := filepath.Rel(dir, p)
		out[rel] = b
		return nil
	})
	return out
}

func TestRefuseOverwrite(t *testing.T) {
	root := t.TempDir()
	out := filepath.Join(root, "out")
	cfg := seedConfig(func(c *Config) { c.Records = 10 })
	if _, err := Run(cfg, out, false); err != nil {
		t.Fatal(err)
	}
	marker := filepath.Join(out, "marker")
	os.WriteFile(marker, []byte("x"), 0o644)
	if _, err := Run(cfg, out, false); !errors.Is(err, ErrOutputExists) {
		t.Fatalf("second run: %v, want ErrOutputExists", err)
	}
	if _, err := os.Stat(marker); err != nil {
		t.Fatal("refused run touched the directory")
	}
	if _, err := Run(cfg, out, true); err != nil {
		t.Fatalf("--force: %v", err)
	}
	if _, err := os.Stat(marker); !errors.Is(err, os.ErrNotExist) {
		t.Error("--force kept the old contents")
	}
	// An existing empty directory is fine without --force.
	empty := filepath.Join(root, "empty")
	os.Mkdir(empty, 0o755)
	if _, err := Run(cfg, empty, false); err != nil {
		t.Fatalf("empty dir: %v", err)
	}
	// No temp directories are left behind.
	ents, _ := os.ReadDir(root)
	for _, e := range ents {
		if strings.HasPrefix(e.Name(), ".") {
			t.Errorf("left behind %s", e.Name())
		}
	}
	// A failing run leaves nothing.
	bad := seedConfig(func(c *Config) { c.ValueSize = 2 << 20 })
	if _, err := Run(bad, filepath.Join(root, "bad"), false); !errors.Is(err, ErrRecordTooLarge) {
		t.Fatalf("oversized record: %v", err)
	}
	if _, err := os.Stat(filepath.Join(root, "bad")); !errors.Is(err, os.ErrNotExist) {
		t.Error("failed run created its output")
	}
}

// TestPartitionFiles checks the side files and the index rules on the
// 7.1/7.2 worked examples.
func TestPartitionFiles(t *testing.T) {
	t.Run("sync 200", func(t *testing.T) {
		dir, res := runTo(t, seedConfig(func(c *Config) { c.Sync = true; c.LingerMs = 0 }))
		pd := filepath.Join(dir, "kseg-ref-0")
		idx := readIndex(t, filepath.Join(pd, "00000000000000000000.index"))
		want := [][2]int64{{25, 4250}, {50, 8500}, {75, 12750}, {100, 17000}, {125, 21250}, {150, 25500}, {175, 29750}}
		if fmt.Sprint(idx) != fmt.Sprint(want) {
			t.Errorf("offset index %v, want %v", idx, want)
		}
		lec, _ := os.ReadFile(filepath.Join(pd, "leader-epoch-checkpoint"))
		if string(lec) != "0\n1\n0 0\n" {
			t.Errorf("leader-epoch-checkpoint %q", lec)
		}
		pm, _ := os.ReadFile(filepath.Join(pd, "partition.metadata"))
		if string(pm) != "version: 0\ntopic_id: "+res.TopicID || len(res.TopicID) != 22 {
			t.Errorf("partition.metadata %q", pm)
		}
		snap, err := os.ReadFile(filepath.Join(pd, "00000000000000000200.snapshot"))
		if err != nil {
			t.Fatal(err)
		}
		checkSnapshot(t, snap, 0, 0, 199, 199, 0)
	})
	t.Run("1024 linger 1000", func(t *testing.T) {
		dir, _ := runTo(t, seedConfig(func(c *Config) {
			c.BatchSize = 1024
			c.LingerMs = 1000
			c.FirstSendDelay = 70 * time.Millisecond
			c.ProducerID = 1
		}))
		pd := filepath.Join(dir, "kseg-ref-0")
		idx := readIndex(t, filepath.Join(pd, "00000000000000000000.index"))
		want := [][2]int64{{47, 4672}, {87, 9337}, {127, 14002}, {167, 18667}}
		if fmt.Sprint(idx) != fmt.Sprint(want) {
			t.Errorf("offset index %v, want %v", idx, want)
		}
		fi, _ := os.Stat(filepath.Join(pd, "00000000000000000000.log"))
		if fi.Size() != 23332 {
			t.Errorf("log is %d bytes, want 23332", fi.Size())
		}
		tidx := readTimeIndex(t, filepath.Join(pd, "00000000000000000000.timeindex"))
		// Every batch's max timestamp: batch 1 holds the 70 ms later
		// records, the rest are all at the same ms; entries only when the
		// max grows, so one entry at the first index point, nothing after.
		if len(tidx) != 1 || tidx[0][1] != 7 {
			t.Errorf("time index %v", tidx)
		}
		snap, _ := os.ReadFile(filepath.Join(pd, "00000000000000000200.snapshot"))
		checkSnapshot(t, snap, 1, 0, 199, 199, 7)
	})
}

func readIndex(t *testing.T, name string) [][2]int64 {
	t.Helper()
	b, err := os.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	if len(b)%8 != 0 {
		t.Fatalf("%s: %d bytes", name, len(b))
	}
	var out [][2]int64
	for i := 0; i < len(b); i += 8 {
		out = append(out, [2]int64{int64(binary.BigEndian.Uint32(b[i:])), int64(binary.BigEndian.Uint32(b[i+4:]))})
	}
	return out
}

func readTimeIndex(t *testing.T, name string) [][2]int64 {
	t.Helper()
	b, err := os.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	if len(b)%12 != 0 {
		t.Fatalf("%s: %d bytes", name, len(b))
	}
	var out [][2]int64
	for i := 0; i < len(b); i += 12 {
		out = append(out, [2]int64{int64(binary.BigEndian.Uint64(b[i:])), int64(binary.BigEndian.Uint32(b[i+8:]))})
	}
	return out
}

func checkSnapshot(t *testing.T, b []byte, pid int64, epoch int16, lastSeq int32, lastOffset int64, offsetDelta int32) {
	t.Helper()
	if len(b) != 10+46 {
		t.Fatalf("snapshot is %d bytes", len(b))
	}
	if binary.BigEndian.Uint16(b) != 1 || binary.BigEndian.Uint32(b[2:]) != batch.CRC32C(b[6:]) || binary.BigEndian.Uint32(b[6:]) != 1 {
		t.Fatalf("snapshot header % x", b[:10])
	}
	e := b[10:]
	got := fmt.Sprint(int64(binary.BigEndian.Uint64(e)), int16(binary.BigEndian.Uint16(e[8:])), int32(binary.BigEndian.Uint32(e[10:])),
		int64(binary.BigEndian.Uint64(e[14:])), int32(binary.BigEndian.Uint32(e[22:])), int32(binary.BigEndian.Uint32(e[34:])), int64(binary.BigEndian.Uint64(e[38:])))
	want := fmt.Sprint(pid, epoch, lastSeq, lastOffset, offsetDelta, -1, -1)
	if got != want {
		t.Errorf("snapshot entry %s, want %s", got, want)
	}
}

// BenchmarkProduce10M writes 10 million 100-byte records (1.1 GB of log)
// with the default settings: the model and the writer stream, so memory is
// bounded by buffer.memory, not by the record count. Run with
// -benchtime=1x; it reports records/s and the peak heap.
func BenchmarkProduce10M(b *testing.B) {
	cfg := DefaultConfig()
	cfg.Records = 10_000_000
	cfg.ValueSize = 100
	b.ReportAllocs()
	b.SetBytes(cfg.Records * 110)
	for b.Loop() {
		dir := b.TempDir()
		var peak uint64
		stop := make(chan struct{})
		done := make(chan struct{})
		go func() {
			defer close(done)
			var ms runtime.MemStats
			for {
				runtime.ReadMemStats(&ms)
				peak = max(peak, ms.HeapInuse)
				select {
				case <-stop:
					return
				case <-time.After(50 * time.Millisecond):
				}
			}
		}()
		res, err := Write(cfg, dir)
		close(stop)
		<-done
		if err != nil {
			b.Fatal(err)
		}
		if res.Partitions[0].Records != cfg.Records {
			b.Fatalf("wrote %d records", res.Partitions[0].Records)
		}
		b.ReportMetric(float64(peak)/(1<<20), "peak-heap-MiB")
		os.RemoveAll(dir)
	}
}

// BenchmarkModel10M is the model alone (no files): 10 million records.
func BenchmarkModel10M(b *testing.B) {
	cfg := DefaultConfig()
	cfg.Records = 10_000_000
	b.ReportAllocs()
	b.SetBytes(cfg.Records * 110)
	for b.Loop() {
		var batches int
		s := newSim(&cfg, func(int, []byte, int64) error { batches++; return nil })
		if err := s.run(); err != nil {
			b.Fatal(err)
		}
		if batches != 67568 {
			b.Fatalf("%d batches", batches)
		}
	}
}
