package segment_test

import (
	"bufio"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/kseg/kseg/internal/goldens"
	"github.com/kseg/kseg/internal/realworld"
	"github.com/kseg/kseg/producer"
	"github.com/kseg/kseg/segment"
)

// TestCountMatchesKafkaGoldens derives every fixture's records-per-batch
// histogram from kafka-dump-log's plain dump (not from kseg) and checks
// Count per file and per partition.
func TestCountMatchesKafkaGoldens(t *testing.T) {
	segs := goldens.Segments(t)
	root := goldens.Root(t)
	dumps, err := goldens.PlainLogDumps(root)
	if err != nil {
		t.Fatal(err)
	}
	if len(dumps) == 0 {
		t.Fatal("MANIFEST.tsv lists no plain log dumps")
	}
	type want struct {
		hist             map[int]int
		batches, records int64
		first, last      int64
	}
	perPartition := map[string]*want{}
	c := &segment.Counter{}
	for file, golden := range dumps {
		bs, err := goldens.Batches(filepath.Join(root, golden))
		if err != nil {
			t.Fatal(err)
		}
		hist, batches, records := goldens.Histogram(bs)
		got, err := countFile(c, filepath.Join(root, file))
		if err != nil {
			t.Errorf("%s: %v", file, err)
			continue
		}
		if got.Batches != batches || got.Records != records || !reflect.DeepEqual(got.RecordsPerBatch, hist) {
			t.Errorf("%s: got %d batches, %d records, %v; kafka-dump-log: %d, %d, %v", file,
				got.Batches, got.Records, got.RecordsPerBatch, batches, records, hist)
		}
		if len(bs) > 0 && (got.FirstOffset != bs[0].BaseOffset || got.LastOffset != bs[len(bs)-1].LastOffset) {
			t.Errorf("%s: offsets %d..%d, kafka-dump-log %d..%d", file, got.FirstOffset, got.LastOffset, bs[0].BaseOffset, bs[len(bs)-1].LastOffset)
		}
		if !strings.HasSuffix(file, ".log") {
			continue // KRaft snapshots are not part of the partition's log
		}
		dir := filepath.Dir(filepath.Join(root, file))
		w := perPartition[dir]
		if w == nil {
			w = &want{hist: map[int]int{}}
			perPartition[dir] = w
		}
		for k, v := range hist {
			w.hist[k] += v
		}
		w.batches += batches
		w.records += records
	}
	// Every group directory of testdata/segments is a log directory.
	ents, err := os.ReadDir(segs)
	if err != nil {
		t.Fatal(err)
	}
	var logDirs []string
	for _, e := range ents {
		if e.IsDir() && e.Name() != "golden" {
			logDirs = append(logDirs, filepath.Join(segs, e.Name()))
		}
	}
	ps, err := segment.Partitions(logDirs)
	if err != nil {
		t.Fatal(err)
	}
	for _, workers := range []int{1, 2} {
		res, err := segment.CountPartitions(ps, workers, segment.CountOptions{Uncompressed: true})
		if err != nil {
			t.Fatal(err)
		}
		seen := 0
		for _, r := range res {
			w := perPartition[r.Dir]
			if w == nil {
				if r.Stats.Batches != 0 {
					t.Errorf("%s: %d batches but no golden", r.Dir, r.Stats.Batches)
				}
				continue
			}
			seen++
			s := r.Stats
			if s.Batches != w.batches || s.Records != w.records || !reflect.DeepEqual(s.RecordsPerBatch, w.hist) {
				t.Errorf("workers=%d %s: got %d/%d %v, kafka-dump-log %d/%d %v", workers, r.Name(), s.Batches, s.Records, s.RecordsPerBatch, w.batches, w.records, w.hist)
			}
		}
		if seen != len(perPartition) {
			t.Errorf("workers=%d: %d partitions counted, goldens cover %d", workers, seen, len(perPartition))
		}
	}
}

// provenanceBatchRow is a row of the corpus's "Records per batch" table.
var provenanceBatchRow = regexp.MustCompile("^\\| `([^`]+)` \\| (\\d+) \\| (\\d+) \\| (\\d+) \\| ([0-9.]+) \\| (\\d+) \\| (\\d+) \\|$")

// TestCountRealWorld checks the corpus' "Records per batch" table, which an
// independent decoder wrote: top-level entries, records, min/mean/max and
// bytes of every log.
func TestCountRealWorld(t *testing.T) {
	root := realworld.Dir(t)
	f, err := os.Open(filepath.Join(root, "PROVENANCE.md"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	in, rows := false, 0
	c := &segment.Counter{}
	for sc.Scan() {
		line := sc.Text()
		if strings.HasPrefix(line, "## ") {
			in = strings.HasPrefix(line, "## Records per batch")
			continue
		}
		m := provenanceBatchRow.FindStringSubmatch(line)
		if !in || m == nil {
			continue
		}
		rows++
		n := func(i int) int64 { v, _ := strconv.ParseInt(m[i], 10, 64); return v }
		mean, _ := strconv.ParseFloat(m[5], 64)
		s, err := countFile(c, filepath.Join(root, "segments", m[1]))
		if err != nil {
			t.Errorf("%s: %v", m[1], err)
			continue
		}
		got := fmt.Sprintf("%d %d %d %.2f %d %d", s.Batches, s.Records, s.MinRecords, s.AvgRecords(), s.MaxRecords, s.Bytes)
		want := fmt.Sprintf("%d %d %d %.2f %d %d", n(2), n(3), n(4), mean, n(6), n(7))
		if got != want || math.Abs(s.AvgRecords()-mean) > 0.005 {
			t.Errorf("%s: got %s, PROVENANCE.md %s", m[1], got, want)
		}
	}
	if rows < 20 {
		t.Fatalf("read %d rows of the Records per batch table; format changed?", rows)
	}
}

// TestCountProducedLayout writes a log directory with the reference
// producer and checks Count against what the writer says it wrote.
func TestCountProducedLayout(t *testing.T) {
	for _, tc := range []struct {
		name string
		cfg  func(*producer.Config)
	}{
		{"small", func(c *producer.Config) { c.BatchSize = 1024; c.LingerMs = 1000 }},
		{"keyed-3", func(c *producer.Config) { c.Partitions = 3; c.KeyPrefix = "key-"; c.KeyCount = 10; c.Records = 600 }},
		{"gzip", func(c *producer.Config) { c.Compression = 1; c.Records = 1000 }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg := producer.DefaultConfig()
			tc.cfg(&cfg)
			dir := filepath.Join(t.TempDir(), "out")
			res, err := producer.Run(cfg, dir, false)
			if err != nil {
				t.Fatal(err)
			}
			ps, err := segment.Partitions([]string{dir})
			if err != nil {
				t.Fatal(err)
			}
			got, err := segment.CountPartitions(ps, 2, segment.CountOptions{Uncompressed: true})
			if err != nil {
				t.Fatal(err)
			}
			if len(got) != len(res.Partitions) {
				t.Fatalf("%d partitions counted, %d written", len(got), len(res.Partitions))
			}
			for i, w := range res.Partitions {
				s := got[i].Stats
				if got[i].Partition.Partition != int32(w.Partition) || s.Batches != w.Batches || s.Records != w.Records || !reflect.DeepEqual(s.RecordsPerBatch, w.RecordsPerBatch) {
					t.Errorf("partition %d: counted %d/%d %v, writer %d/%d %v", w.Partition, s.Batches, s.Records, s.RecordsPerBatch, w.Batches, w.Records, w.RecordsPerBatch)
				}
				if cfg.Compression != 0 && (s.CompressedBatches != s.Batches || !s.Measured || s.Ratio() <= 1) {
					t.Errorf("partition %d: compressed %d of %d, ratio %.2f", w.Partition, s.CompressedBatches, s.Batches, s.Ratio())
				}
			}
		})
	}
}

// BenchmarkCountPartitions counts a 64-partition log directory with one
// and two workers; MB/s is of log bytes.
func BenchmarkCountPartitions(b *testing.B) {
	cfg := producer.DefaultConfig()
	cfg.Partitions = 64
	cfg.Records = 400_000
	cfg.ValueSize = 200
	cfg.KeyPrefix, cfg.KeyCount = "k", 1000
	dir := filepath.Join(b.TempDir(), "log")
	if _, err := producer.Run(cfg, dir, false); err != nil {
		b.Fatal(err)
	}
	ps, err := segment.Partitions([]string{dir})
	if err != nil {
		b.Fatal(err)
	}
	var size int64
	for i := range ps {
		size += ps[i].Size()
	}
	for _, w := range []int{1, 2} {
		b.Run("workers="+strconv.Itoa(w), func(b *testing.B) {
			b.ReportAllocs()
			b.SetBytes(size)
			for b.Loop() {
				if _, err := segment.CountPartitions(ps, w, segment.CountOptions{}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// countFile counts one log file as a partition of one segment.
func countFile(c *segment.Counter, path string) (*segment.Stats, error) {
	return c.CountPartition(&segment.Partition{Segments: []segment.Segment{{Path: path}}})
}
