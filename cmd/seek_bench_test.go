package cmd

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/kseg/kseg/internal/procio"
	"github.com/kseg/kseg/producer"
)

// The seek's cost on a partition of many segments with real index files
// (the reference producer's broker-style writer, segment.bytes 1 MiB,
// index.interval.bytes 4096): the bytes the process reads (/proc/self/io
// rchar: the log and the indexes) and the time to the first batch line,
// for --from OFFSET --to OFFSET+10, --from @TIME in the middle, and a
// full dump for comparison. bench/seek.sh runs the same on a generated
// partition of any size.

var seekBench struct {
	once sync.Once
	dir  string
	mid  int64 // an offset in the middle
	ts   int64 // a timestamp in the middle
	err  error
}

func seekBenchPartition(b *testing.B) (string, int64, int64) {
	seekBench.once.Do(func() {
		root, err := os.MkdirTemp("", "kseg-seek-bench")
		if err != nil {
			seekBench.err = err
			return
		}
		cfg := producer.DefaultConfig()
		cfg.Topic, cfg.Records, cfg.ValueSize, cfg.ValueEntropy = "seek", 120_000, 500, 0.5
		cfg.KeyPrefix, cfg.KeyCount = "order-", 1000
		cfg.SegmentBytes, cfg.IndexIntervalBytes, cfg.TimestampStepMs = 1<<20, 4096, 10
		if _, err := producer.Write(cfg, root); err != nil {
			seekBench.err = err
			return
		}
		seekBench.dir = filepath.Join(root, "seek-0")
		seekBench.mid = cfg.Records / 2
		seekBench.ts = cfg.StartTime + cfg.Records/2*cfg.TimestampStepMs
	})
	if seekBench.err != nil {
		b.Fatal(seekBench.err)
	}
	return seekBench.dir, seekBench.mid, seekBench.ts
}

// readChars is the bytes this process has read through read(2) and
// pread(2) so far (-1 where /proc/self/io is not there).
// firstLine records when the first batch line is written.
type firstLine struct {
	start time.Time
	at    time.Duration
	buf   bytes.Buffer
}

func (f *firstLine) Write(p []byte) (int, error) {
	if f.at == 0 && bytes.Contains(p, []byte("baseOffset: ")) {
		f.at = time.Since(f.start)
	}
	if f.buf.Len() < 1<<20 {
		f.buf.Write(p)
	}
	return len(p), nil
}

func BenchmarkSeekDump(b *testing.B) {
	dir, mid, ts := seekBenchPartition(b)
	var size int64
	ents, _ := os.ReadDir(dir)
	for _, e := range ents {
		if strings.HasSuffix(e.Name(), ".log") {
			if st, err := e.Info(); err == nil {
				size += st.Size()
			}
		}
	}
	segs := 0
	for _, e := range ents {
		if strings.HasSuffix(e.Name(), ".log") {
			segs++
		}
	}
	b.Logf("partition: %d segments, %d bytes of log", segs, size)
	for _, c := range []struct {
		name string
		args []string
	}{
		{"offset", []string{"--from", strconv.FormatInt(mid, 10), "--to", strconv.FormatInt(mid+10, 10)}},
		{"time", []string{"--from", "@" + strconv.FormatInt(ts, 10), "--to", strconv.FormatInt(mid+10, 10)}},
		{"fullscan", nil},
	} {
		b.Run(c.name, func(b *testing.B) {
			var first, read time.Duration
			var bytesRead int64
			for i := 0; i < b.N; i++ {
				w := &firstLine{start: time.Now()}
				r0 := procio.ReadChars()
				code := Execute(append([]string{"dump", dir, "--quiet"}, c.args...), w, io.Discard)
				bytesRead += procio.ReadChars() - r0
				read += time.Since(w.start)
				first += w.at
				if code != 0 || w.at == 0 {
					b.Fatalf("exit %d, first line at %v:\n%.500s", code, w.at, w.buf.String())
				}
			}
			b.ReportMetric(float64(first.Microseconds())/1000/float64(b.N), "ms-to-first-line")
			b.ReportMetric(float64(bytesRead)/float64(b.N), "bytes-read/op")
		})
	}
}
