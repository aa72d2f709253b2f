package main

import (
	"fmt"
	"io"
	"os"
	"slices"
	"syscall"
	"time"

	"github.com/kseg/kseg/audit"
	"github.com/kseg/kseg/segment"
)

// manyParts measures count and audit over a log directory of many small
// partitions (bench/run.sh MANY_PARTITIONS=1), in one process so that the
// ratios come from one run: each step runs rounds times, interleaved, and
// the median is printed, in wall and CPU seconds (user+system; the machine
// is shared, so CPU time is the steadier figure).
//
// "Reading bytes" is what no walk or open can avoid: pread of every log
// (files opened beforehand, 1,000 at a time, untimed) plus framing and
// counting the same bytes held in memory. The share of count outside
// reading bytes is 1 - reading/count.
func manyParts(dir string, rounds int) error {
	ps, err := segment.Partitions([]string{dir})
	if err != nil {
		return err
	}
	var logs []string
	for _, p := range ps {
		for _, s := range p.Segments {
			logs = append(logs, s.Path)
		}
	}
	aps, err := audit.Partitions([]string{dir})
	if err != nil {
		return err
	}
	auditFiles := 0
	for _, p := range aps {
		auditFiles += len(p.Logs) + len(p.Snapshots) + len(p.TxnIndexes)
	}
	mem, bytes, err := loadAll(logs)
	if err != nil {
		return err
	}
	memParts := make([]segment.Partition, len(ps))
	k := 0
	for i, p := range ps {
		segs := make([]segment.Segment, len(p.Segments))
		for j, s := range p.Segments {
			src := segment.BytesSource(s.Path, mem[k])
			k++
			segs[j] = segment.Segment{Path: s.Path, BaseOffset: s.BaseOffset, Size: src.Size,
				Open: func() (segment.Source, io.Closer, error) { return src, nil, nil }}
		}
		memParts[i] = segment.NewRemotePartition(p.Topic, p.Partition, p.Dir, segs)
	}
	mem = nil

	type step struct {
		name  string
		files int
		run   func() error
		own   bool // run sets preadWall and preadCPU to the part it times
		wall  []float64
		cpu   []float64
	}
	count := func(w int) func() error {
		return func() error {
			ps, err := segment.Partitions([]string{dir})
			if err != nil {
				return err
			}
			_, err = segment.CountPartitions(ps, w, segment.CountOptions{})
			return err
		}
	}
	auditRun := func(w int) func() error {
		return func() error {
			ps, err := audit.Partitions([]string{dir})
			if err != nil {
				return err
			}
			_, err = audit.RunPartitions(ps, w, audit.Options{})
			return err
		}
	}
	steps := []*step{
		{name: "walk (segment.Partitions)", files: len(logs), run: func() error {
			_, err := segment.Partitions([]string{dir})
			return err
		}},
		{name: "count, 1 worker (walk + count)", files: len(logs), run: count(1)},
		{name: "count, 2 workers", files: len(logs), run: count(2)},
		{name: "audit, 1 worker (walk + audit)", files: auditFiles, run: auditRun(1)},
		{name: "audit, 2 workers", files: auditFiles, run: auditRun(2)},
		{name: "reading bytes: pread of every log", files: len(logs), own: true, run: func() error { return preadAll(logs) }},
		{name: "reading bytes: count from memory", files: len(logs), run: func() error {
			_, err := segment.CountPartitions(memParts, 1, segment.CountOptions{})
			return err
		}},
	}
	for range rounds {
		for _, s := range steps {
			w0, c0 := time.Now(), cpuTime()
			if err := s.run(); err != nil {
				return fmt.Errorf("%s: %w", s.name, err)
			}
			w, c := time.Since(w0).Seconds(), cpuTime()-c0
			if s.own {
				w, c = preadWall, preadCPU
			}
			s.wall = append(s.wall, w)
			s.cpu = append(s.cpu, c)
		}
	}
	med := func(x []float64) float64 {
		y := slices.Clone(x)
		slices.Sort(y)
		return y[len(y)/2]
	}
	n := float64(len(ps))
	fmt.Printf("%d partitions, %d log files (%d files audited), %d bytes of logs; median of %d rounds\n",
		len(ps), len(logs), auditFiles, bytes, rounds)
	fmt.Printf("%-36s %8s %8s %13s %10s\n", "step", "wall s", "cpu s", "partitions/s", "files/s")
	for _, s := range steps {
		w, c := med(s.wall), med(s.cpu)
		fmt.Printf("%-36s %8.3f %8.3f %13.0f %10.0f\n", s.name, w, c, n/w, float64(s.files)/w)
	}
	wall := func(i int) float64 { return med(steps[i].wall) }
	cpu := func(i int) float64 { return med(steps[i].cpu) }
	readW, readC := wall(5)+wall(6), cpu(5)+cpu(6)
	fmt.Printf("count, 1 worker: share outside reading bytes %.0f%% of wall time, %.0f%% of CPU time\n",
		100*(1-readW/wall(1)), 100*(1-readC/cpu(1)))
	fmt.Printf("count, 2 workers: share outside reading bytes %.0f%% of CPU time\n", 100*(1-readC/cpu(2)))
	fmt.Printf("walk: %.0f%% of count's wall time with 1 worker\n", 100*wall(0)/wall(1))
	fmt.Printf("1-worker / 2-worker wall time: count %.2f, audit %.2f\n", wall(1)/wall(2), wall(3)/wall(4))
	return nil
}

// loadAll reads every file into memory.
func loadAll(paths []string) ([][]byte, int64, error) {
	out := make([][]byte, len(paths))
	var n int64
	for i, p := range paths {
		b, err := os.ReadFile(p)
		if err != nil {
			return nil, 0, err
		}
		out[i] = b
		n += int64(len(b))
	}
	return out, n, nil
}

// preadAll reads every file with pread into one buffer, timing only the
// reads: files are opened (and closed) 1,000 at a time outside the clock.
func preadAll(paths []string) error {
	buf := make([]byte, 1<<20)
	var spent time.Duration
	c0 := cpuTime()
	var untimedCPU float64
	for i := 0; i < len(paths); i += 1000 {
		batch := paths[i:min(i+1000, len(paths))]
		u0 := cpuTime()
		fs := make([]*os.File, len(batch))
		for j, p := range batch {
			f, err := os.Open(p)
			if err != nil {
				return err
			}
			fs[j] = f
		}
		untimedCPU += cpuTime() - u0
		t := time.Now()
		for _, f := range fs {
			for off := int64(0); ; {
				m, err := f.ReadAt(buf, off)
				off += int64(m)
				if err == io.EOF || m == 0 {
					break
				}
				if err != nil {
					return err
				}
			}
		}
		spent += time.Since(t)
		u0 = cpuTime()
		for _, f := range fs {
			f.Close()
		}
		untimedCPU += cpuTime() - u0
	}
	preadWall, preadCPU = spent.Seconds(), cpuTime()-c0-untimedCPU
	return nil
}

// preadWall and preadCPU are the last preadAll's timed part, which
// manyParts takes instead of the step's own clock.
var preadWall, preadCPU float64

func cpuTime() float64 {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return float64(ru.Utime.Nano()+ru.Stime.Nano()) / 1e9
}
