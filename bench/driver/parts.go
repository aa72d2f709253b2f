package main

import (
	"fmt"
	"io"
	"os"
	"runtime"
	"slices"
	"syscall"
	"time"

	"github.com/kseg/kseg/internal/audit"
	"github.com/kseg/kseg/segment"
)

// manyParts measures count and audit over a log directory of many small
// partitions (bench/run.sh MANY_PARTITIONS=1), in one process so that the
// ratios come from one run: each step runs rounds times, interleaved, and
// the fastest round is printed (on a shared machine other work only ever
// adds time), in wall and CPU seconds (user+system).
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
	memParts, bytes, err := inMemory(ps, logs)
	if err != nil {
		return err
	}
	steps := partsSteps(dir, logs, auditFiles, memParts)
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
	fmt.Printf("%d partitions, %d log files (%d files audited), %d bytes of logs; fastest of %d rounds\n",
		len(ps), len(logs), auditFiles, bytes, rounds)
	printPartsSteps(steps, len(ps))
	return nil
}

// inMemory is ps with every log (logs, in ps's order) read into memory,
// and the bytes read.
func inMemory(ps []segment.Partition, logs []string) ([]segment.Partition, int64, error) {
	mem, bytes, err := loadAll(logs)
	if err != nil {
		return nil, 0, err
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
	return memParts, bytes, nil
}

// partsStep is one step manyParts times, with its times of every round.
type partsStep struct {
	name  string
	files int
	run   func() error
	own   bool // run sets preadWall and preadCPU to the part it times
	wall  []float64
	cpu   []float64
}

// partsSteps are manyParts' steps, in the order printPartsSteps reads
// them by index.
func partsSteps(dir string, logs []string, auditFiles int, memParts []segment.Partition) []*partsStep {
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
	// oneCPU runs f with GOMAXPROCS 1: the walk lists directories on
	// GOMAXPROCS goroutines whatever the workers, so "1 worker" alone
	// would still use the second CPU while walking.
	oneCPU := func(f func() error) func() error {
		return func() error {
			defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(1))
			return f()
		}
	}
	walk := func() error {
		_, err := segment.Partitions([]string{dir})
		return err
	}
	return []*partsStep{
		{name: "walk, 1 CPU", files: len(logs), run: oneCPU(walk)},
		{name: "walk, 2 CPUs", files: len(logs), run: walk},
		{name: "count, 1 CPU (walk + count)", files: len(logs), run: oneCPU(count(1))},
		{name: "count, 2 CPUs, 2 workers", files: len(logs), run: count(2)},
		{name: "audit, 1 CPU (walk + audit)", files: auditFiles, run: oneCPU(auditRun(1))},
		{name: "audit, 2 CPUs, 2 workers", files: auditFiles, run: auditRun(2)},
		{name: "reading bytes: pread of every log", files: len(logs), own: true, run: func() error { return preadAll(logs) }},
		{name: "reading bytes: count from memory", files: len(logs), run: func() error {
			_, err := segment.CountPartitions(memParts, 1, segment.CountOptions{})
			return err
		}},
	}
}

// printPartsSteps writes each step's fastest round over nParts
// partitions, and the shares and ratios between steps.
func printPartsSteps(steps []*partsStep, nParts int) {
	best := func(x []float64) float64 { return slices.Min(x) }
	n := float64(nParts)
	fmt.Printf("%-36s %8s %8s %13s %10s\n", "step", "wall s", "cpu s", "partitions/s", "files/s")
	for _, s := range steps {
		w, c := best(s.wall), best(s.cpu)
		fmt.Printf("%-36s %8.3f %8.3f %13.0f %10.0f\n", s.name, w, c, n/w, float64(s.files)/w)
	}
	wall := func(i int) float64 { return best(steps[i].wall) }
	cpu := func(i int) float64 { return best(steps[i].cpu) }
	readW, readC := wall(6)+wall(7), cpu(6)+cpu(7)
	fmt.Printf("count, 1 CPU: share outside reading bytes %.0f%% of wall time, %.0f%% of CPU time\n",
		100*(1-readW/wall(2)), 100*(1-readC/cpu(2)))
	fmt.Printf("count, 2 CPUs: share outside reading bytes %.0f%% of CPU time\n", 100*(1-readC/cpu(3)))
	fmt.Printf("walk: %.0f%% of count's wall time on 1 CPU\n", 100*wall(0)/wall(2))
	fmt.Printf("1-CPU / 2-CPU wall time: walk %.2f, count %.2f, audit %.2f (CPU seconds used per wall second, 2 CPUs: count %.2f, audit %.2f)\n",
		wall(0)/wall(1), wall(2)/wall(3), wall(4)/wall(5), cpu(3)/wall(3), cpu(5)/wall(5))
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
