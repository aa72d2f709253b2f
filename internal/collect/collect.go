// Package collect gathers what kseg report draws: it resolves the
// command line into runs, reads each partition once (segment.Counter, with
// the per-batch points the charts sample), runs the producer audit and,
// when asked, kseg explain's inference. It hands package report plain
// values (report.Run, report.PartitionData), which report only renders.
package collect

import (
	"cmp"
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/kseg/kseg/internal/audit"
	"github.com/kseg/kseg/internal/explain"
	"github.com/kseg/kseg/internal/replicas"
	"github.com/kseg/kseg/producer"
	"github.com/kseg/kseg/report"
	"github.com/kseg/kseg/segment"
)

// sampler keeps every stride-th batch of a stream in at most 2*max
// entries: when full it drops every other kept point and doubles the
// stride, so memory stays bounded and the sample stays evenly spread.
type sampler struct {
	max    int
	stride int64
	seen   int64
	pts    []report.BatchPoint
}

func (s *sampler) add(p report.BatchPoint) {
	if s.stride == 0 {
		s.stride = 1
	}
	if s.seen%s.stride == 0 {
		if len(s.pts) == 2*s.max {
			k := 0
			for i := 0; i < len(s.pts); i += 2 {
				s.pts[k] = s.pts[i]
				k++
			}
			s.pts = s.pts[:k]
			s.stride *= 2
		}
		if s.seen%s.stride == 0 {
			s.pts = append(s.pts, p)
		}
	}
	s.seen++
}

// final thins the sample to at most max points.
func (s *sampler) final() ([]report.BatchPoint, int64) {
	for len(s.pts) > s.max {
		k := 0
		for i := 0; i < len(s.pts); i += 2 {
			s.pts[k] = s.pts[i]
			k++
		}
		s.pts = s.pts[:k]
		s.stride *= 2
	}
	if s.stride == 0 {
		s.stride = 1
	}
	return s.pts, s.stride
}

// ResolveRuns turns command-line paths into runs: a file, a partition
// directory or a log directory is one run; a directory whose
// sub-directories are log directories (a kseg produce --workload sweep) is
// one run per sub-directory.
func ResolveRuns(paths []string) ([]report.Run, error) {
	var runs []report.Run
	for _, p := range paths {
		if strings.Contains(p, "://") { // a source the command's sources resolve (kafka://, lts://, s3://)
			runs = append(runs, report.Run{Name: p, Path: p})
			continue
		}
		st, err := os.Stat(p)
		if err != nil {
			return nil, err
		}
		name := filepath.Base(filepath.Clean(p))
		if !st.IsDir() || hasLogs(p) || hasPartitionChild(p) {
			runs = append(runs, report.Run{Name: name, Path: p})
			continue
		}
		ents, err := os.ReadDir(p)
		if err != nil {
			return nil, err
		}
		n := len(runs)
		plan, err := producer.ReadSweepPlan(p)
		if err != nil {
			return nil, err
		}
		for _, e := range ents {
			sub := filepath.Join(p, e.Name())
			if e.IsDir() && hasPartitionChild(sub) {
				runs = append(runs, report.Run{Name: e.Name(), Path: sub, Sweep: plan})
			}
		}
		sortRuns(runs[n:], plan)
		if len(runs) == n { // let segment.Partitions say what is wrong
			runs = append(runs, report.Run{Name: name, Path: p})
		}
	}
	return runs, nil
}

// sortRuns puts a sweep's runs in the sweep's order (its plan's, as the
// workload listed the values), and runs the plan does not name after them
// in natural order (linger-ms=5 before linger-ms=20 before linger-ms=100),
// not in the directory's text order (0, 100, 20, 5).
func sortRuns(runs []report.Run, plan *producer.SweepPlan) {
	rank := map[string]int{}
	if plan != nil {
		for i, pt := range plan.Points {
			rank[pt.Name] = i + 1
		}
	}
	slices.SortStableFunc(runs, func(a, b report.Run) int {
		ra, rb := rank[a.Name], rank[b.Name]
		switch {
		case ra > 0 && rb > 0:
			return cmp.Compare(ra, rb)
		case ra > 0:
			return -1
		case rb > 0:
			return 1
		}
		return naturalCompare(a.Name, b.Name)
	})
}

// naturalCompare orders a and b as text, except that runs of digits
// compare as numbers ("5" < "20" < "100").
func naturalCompare(a, b string) int {
	for a != "" && b != "" {
		da, db := digits(a), digits(b)
		if da > 0 && db > 0 {
			na, nb := strings.TrimLeft(a[:da], "0"), strings.TrimLeft(b[:db], "0")
			if c := cmp.Compare(len(na), len(nb)); c != 0 {
				return c
			}
			if c := strings.Compare(na, nb); c != 0 {
				return c
			}
			a, b = a[da:], b[db:]
			continue
		}
		if a[0] != b[0] {
			return cmp.Compare(a[0], b[0])
		}
		a, b = a[1:], b[1:]
	}
	return cmp.Compare(len(a), len(b))
}

// digits is the length of s's leading run of ASCII digits.
func digits(s string) int {
	i := 0
	for i < len(s) && s[i] >= '0' && s[i] <= '9' {
		i++
	}
	return i
}

func hasLogs(dir string) bool {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return false
	}
	for _, e := range ents {
		if !e.IsDir() && strings.HasSuffix(e.Name(), ".log") {
			return true
		}
	}
	return false
}

func hasPartitionChild(dir string) bool {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return false
	}
	for _, e := range ents {
		if e.IsDir() && hasLogs(filepath.Join(dir, e.Name())) {
			return true
		}
	}
	return false
}

// Options tune Runs.
type Options struct {
	Audit   bool // run the producer audit of each partition
	Explain bool // infer each batch's cut and the producer settings (kseg explain)
	// Replicas compares the runs holding the same partition as its copies
	// (kseg replicas), for the page's epoch time line.
	Replicas bool
	// Progress, when set, is told the bytes and batches read (see
	// segment.CountOptions.Progress).
	Progress func(bytes, batches int64)
	// Walk expands a run's path into partitions (nil: segment.Partitions,
	// local paths only): the command's sources.
	Walk func([]string) ([]segment.Partition, error)
	// Coordinators, when set, judge the open transactions of partitions
	// read from a cluster (audit.CheckTransactions), as kseg audit does.
	Coordinators audit.Coordinators
	// Whatif are the settings each run's topics are replayed under (kseg
	// report --whatif), from WhatifWas (nil: explain's inference), with
	// WhatifRuns runs each (0: 200).
	Whatif     []WhatifSpec
	WhatifWas  []producer.Property
	WhatifRuns int
}

func (o Options) walk(paths []string) ([]segment.Partition, error) {
	if o.Walk == nil {
		return segment.Partitions(paths)
	}
	return o.Walk(paths)
}

// Runs reads each run's partitions into runs[i].Partitions (and the
// run's Envelope): count statistics (with the compression ratio, as count
// --detail), sampled per-batch points and, optionally, the audit and kseg
// explain's inference.
func Runs(runs []report.Run, opts Options) error {
	copies := map[string][]replicaCopy{}
	var names []string
	for i := range runs {
		r := &runs[i]
		parts, err := opts.walk([]string{r.Path})
		if err != nil {
			return err
		}
		var ex *explain.Result
		if opts.Explain {
			// over the whole run: drains and sticky switches cross partitions
			if ex, err = explain.Run(parts); err != nil {
				return err
			}
		}
		if len(opts.Whatif) > 0 {
			if r.Whatif, err = whatifs(parts, opts); err != nil {
				return err
			}
		}
		if st, err := os.Stat(r.Path); err == nil && st.IsDir() {
			ef := filepath.Join(r.Path, producer.EnvelopeName)
			if _, err := os.Stat(ef); err == nil {
				if r.Envelope, err = producer.ReadEnvelope(ef); err != nil {
					return err
				}
			}
		}
		for j := range parts {
			pd, err := collectPartition(&parts[j], opts)
			if err != nil {
				return err
			}
			if ex != nil {
				addExplained(pd, &parts[j], ex)
			}
			if env := r.Envelope; env != nil && parts[j].Topic == env.Config.Topic {
				if k := int(parts[j].Partition); k >= 0 && k < len(env.Partitions) {
					pd.Envelope, pd.Runs = &env.Partitions[k], len(env.Runs)
				}
			}
			r.Partitions = append(r.Partitions, *pd)
			name := parts[j].Name()
			if _, ok := copies[name]; !ok {
				names = append(names, name)
			}
			copies[name] = append(copies[name], replicaCopy{run: i, index: len(r.Partitions) - 1, part: parts[j]})
		}
	}
	for _, name := range names {
		if !opts.Replicas {
			break
		}
		if err := compareCopies(runs, name, copies[name]); err != nil {
			return err
		}
	}
	return nil
}

// replicaCopy is one run's copy of a partition.
type replicaCopy struct {
	run, index int
	part       segment.Partition
}

// compareCopies compares the copies of one partition held by several runs
// (kseg replicas), for the page's epoch time line.
func compareCopies(runs []report.Run, name string, cs []replicaCopy) error {
	if len(cs) < 2 {
		return nil
	}
	var ins []replicas.Input
	for k := range cs {
		in, err := replicas.FileInput(runs[cs[k].run].Name, &cs[k].part)
		if err != nil {
			return err
		}
		ins = append(ins, in)
	}
	res, err := replicas.Compare(name, ins)
	if err != nil {
		return err
	}
	for k, c := range cs {
		pd := &runs[c.run].Partitions[c.index]
		cp := res.Copies[k]
		pd.Replica = &cp
		for _, p := range res.Pairs {
			if p.A == cp.Name {
				p.OnlyA, p.OnlyB = nil, nil // the page draws the offsets, not the runs
				pd.ReplicaPairs = append(pd.ReplicaPairs, p)
			}
		}
	}
	return nil
}

// TotalBytes is the size of the runs' segment files, for progress.
func TotalBytes(runs []report.Run, opts Options) int64 {
	var n int64
	for _, r := range runs {
		parts, err := opts.walk([]string{r.Path})
		if err != nil {
			continue
		}
		for _, p := range parts {
			for _, s := range p.Segments {
				if st, err := os.Stat(s.Path); err == nil {
					n += st.Size()
				}
			}
		}
	}
	return n
}

func collectPartition(p *segment.Partition, opts Options) (*report.PartitionData, error) {
	pd := &report.PartitionData{Name: p.Name(), Dir: p.Dir}
	smp := &sampler{max: report.MaxPoints}
	prevTS, prevLast := int64(-1), int64(-1)
	// One pass: the counter's stats and the chart's points from the same batches.
	c := &segment.Counter{Options: segment.CountOptions{Uncompressed: true, Progress: opts.Progress, OnBatch: func(in *segment.BatchInfo) {
		bp := report.BatchPoint{BaseOffset: in.BaseOffset, LastOffset: in.LastOffset, Records: int32(in.Records), Bytes: in.Size,
			MaxTimestamp: in.MaxTimestamp, ProducerID: in.ProducerID, ProducerEpoch: in.ProducerEpoch,
			BaseSequence: in.BaseSequence, Codec: in.Codec, Control: in.Control}
		if bp.MaxTimestamp >= 0 {
			if prevTS >= 0 && bp.MaxTimestamp > prevTS {
				pd.Gaps = topGaps(pd.Gaps, report.Gap{AfterOffset: prevLast, Millis: bp.MaxTimestamp - prevTS}, 5)
			}
			prevTS = bp.MaxTimestamp
		}
		prevLast = bp.LastOffset
		if pd.MinBytes == 0 || bp.Bytes < pd.MinBytes {
			pd.MinBytes = bp.Bytes
		}
		pd.MaxBytes = max(pd.MaxBytes, bp.Bytes)
		smp.add(bp)
	}}}
	st, err := c.CountPartition(p)
	if err != nil {
		return nil, err
	}
	pd.Stats = st
	pd.Points, pd.Stride = smp.final()
	if opts.Audit {
		if err := auditPartition(pd, p, opts.Coordinators); err != nil {
			pd.AuditErr = err.Error() // the page shows it; the report goes on
		}
	}
	return pd, nil
}

// topGaps keeps the n largest gaps, largest first.
func topGaps(gs []report.Gap, g report.Gap, n int) []report.Gap {
	i := len(gs)
	for i > 0 && gs[i-1].Millis < g.Millis {
		i--
	}
	if i >= n {
		return gs
	}
	gs = append(gs, report.Gap{})
	copy(gs[i+1:], gs[i:])
	gs[i] = g
	if len(gs) > n {
		gs = gs[:n]
	}
	return gs
}

// addExplained gives pd the cuts and producers of its partition.
func addExplained(pd *report.PartitionData, p *segment.Partition, ex *explain.Result) {
	pd.Cuts = map[int64]string{}
	for _, b := range ex.Batches {
		if b.Topic() == p.Topic && b.Partition == p.Partition {
			pd.Cuts[b.BaseOffset] = b.Cut()
		}
	}
	for _, ps := range ex.Partitions {
		if ps.Topic == p.Topic && ps.Partition == p.Partition {
			pd.Explained = append(pd.Explained, ps.Producer)
		}
	}
}

// auditPartition is the report's audit of partition p, every call into
// internal/audit in one place: it audits what was named (the whole
// directory, or just the files given), asks the cluster about the
// transactions a kafka:// log shows open (as kseg audit does), and keeps of
// the findings only what the page shows (PartitionData.Audit): the audit
// streams the rest through a temporary file, dropped here.
func auditPartition(pd *report.PartitionData, p *segment.Partition, coord audit.Coordinators) error {
	r, err := audit.RunStream(audit.FromSegments(p), audit.Options{})
	if err != nil {
		return err
	}
	if err := audit.CheckTransactions(context.Background(), r, coord); err != nil {
		r.Close()
		return err
	}
	var table []audit.Finding
	err = r.Each(func(f *audit.Finding) error {
		pd.FindingsTotal++
		if len(table) < report.TableFindings {
			table = append(table, *f)
		}
		if f.FirstOffset >= 0 && len(pd.Marks) < report.MaxMarks {
			pd.Marks = append(pd.Marks, *f)
		}
		return nil
	})
	if cerr := r.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return err
	}
	r.Findings = table
	pd.Audit = r
	return nil
}
