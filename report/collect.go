package report

import (
	"context"
	"os"
	"path/filepath"
	"strings"

	"github.com/kseg/kseg/batch"
	"github.com/kseg/kseg/internal/audit"
	"github.com/kseg/kseg/internal/explain"
	"github.com/kseg/kseg/producer"
	"github.com/kseg/kseg/segment"
)

// MaxPoints is how many batches a per-batch chart shows at most; above it
// the batches are sampled at a regular stride (the caption says so).
const MaxPoints = 2000

// BatchPoint is one top-level batch as the report's charts see it.
type BatchPoint struct {
	BaseOffset, LastOffset int64
	Records                int32
	Bytes                  int64 // the whole entry, log overhead included
	MaxTimestamp           int64 // -1 when none
	ProducerID             int64 // -1 when none (and for legacy messages)
	ProducerEpoch          int16
	BaseSequence           int32
	Codec                  batch.Codec
	Control                bool
}

// sampler keeps every stride-th batch of a stream in at most 2*MaxPoints
// entries: when full it drops every other kept point and doubles the
// stride, so memory stays bounded and the sample stays evenly spread.
type sampler struct {
	max    int
	stride int64
	seen   int64
	pts    []BatchPoint
}

func (s *sampler) add(p BatchPoint) {
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
func (s *sampler) final() ([]BatchPoint, int64) {
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

// PartitionData is everything the report shows of one partition.
type PartitionData struct {
	Name  string
	Dir   string
	Stats *segment.Stats
	// Points are the batches in log order, every Stride-th one when the
	// partition has more than MaxPoints batches.
	Points []BatchPoint
	Stride int64
	// MinBytes and MaxBytes bound the batch sizes (of all batches).
	MinBytes, MaxBytes int64
	// Gaps are the largest time gaps between consecutive batches
	// (CreateTime max timestamps), largest first.
	Gaps []Gap
	// Audit is the partition's audit; nil with AuditErr when it failed.
	// Its Findings hold only the first tableFindings the page lists;
	// FindingsTotal counts them all and Marks holds the first maxMarks
	// located at an offset (the sequence chart's triangles), so a log
	// with millions of findings costs the report no more memory than one
	// with a hundred.
	Audit         *audit.Result
	AuditErr      string
	FindingsTotal int
	Marks         []audit.Finding
	// Cuts is each batch's cut reason by base offset and Explained the
	// producers writing to the partition, as kseg explain infers them
	// (nil unless CollectOptions.Explain).
	Cuts      map[int64]string
	Explained []*explain.Producer
	// Envelope is the predicted distribution of this partition's layout
	// when kseg produce --runs wrote the log (nil otherwise).
	Envelope *producer.PartitionEnvelope
	Runs     int // simulated runs behind Envelope
}

// Gap is the time between two consecutive batches.
type Gap struct {
	AfterOffset int64 // last offset of the earlier batch
	Millis      int64
}

// Run is one log directory (or set of files) in the report.
type Run struct {
	Name       string
	Path       string
	Partitions []PartitionData
	// Envelope is the run's kseg-envelope.ndjson (kseg produce --runs),
	// nil when there is none.
	Envelope *producer.Envelope
	// Sweep is the plan of the kseg produce --workload sweep the run
	// belongs to (shared by its runs), nil otherwise.
	Sweep *producer.SweepPlan
}

// ResolveRuns turns command-line paths into runs: a file, a partition
// directory or a log directory is one run; a directory whose
// sub-directories are log directories (a kseg produce --workload sweep) is
// one run per sub-directory.
func ResolveRuns(paths []string) ([]Run, error) {
	var runs []Run
	for _, p := range paths {
		if strings.Contains(p, "://") { // a source the command's sources resolve (kafka://, lts://, s3://)
			runs = append(runs, Run{Name: p, Path: p})
			continue
		}
		st, err := os.Stat(p)
		if err != nil {
			return nil, err
		}
		name := filepath.Base(filepath.Clean(p))
		if !st.IsDir() || hasLogs(p) || hasPartitionChild(p) {
			runs = append(runs, Run{Name: name, Path: p})
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
				runs = append(runs, Run{Name: e.Name(), Path: sub, Sweep: plan})
			}
		}
		if len(runs) == n { // let segment.Partitions say what is wrong
			runs = append(runs, Run{Name: name, Path: p})
		}
	}
	return runs, nil
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

// CollectOptions tune Collect.
type CollectOptions struct {
	Audit    bool // run the producer audit of each partition
	Explain  bool // infer each batch's cut and the producer settings (kseg explain)
	Progress *Progress
	// Walk expands a run's path into partitions (nil: segment.Partitions,
	// local paths only): the command's sources.
	Walk func([]string) ([]segment.Partition, error)
	// Coordinators, when set, judge the open transactions of partitions
	// read from a cluster (audit.CheckTransactions).
	Coordinators audit.Coordinators
}

func (o CollectOptions) walk(paths []string) ([]segment.Partition, error) {
	if o.Walk == nil {
		return segment.Partitions(paths)
	}
	return o.Walk(paths)
}

// Collect reads each run's partitions: count statistics (with the
// compression ratio, as count --detail), sampled per-batch points and,
// optionally, the audit.
func Collect(runs []Run, opts CollectOptions) error {
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
		}
	}
	return nil
}

// TotalBytes is the size of the runs' segment files, for progress.
func TotalBytes(runs []Run, opts CollectOptions) int64 {
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

func collectPartition(p *segment.Partition, opts CollectOptions) (*PartitionData, error) {
	pd := &PartitionData{Name: p.Name(), Dir: p.Dir}
	smp := &sampler{max: MaxPoints}
	prevTS, prevLast := int64(-1), int64(-1)
	// One pass: the counter's stats and the chart's points from the same batches.
	c := &segment.Counter{Options: segment.CountOptions{Uncompressed: true, OnBatch: func(in *segment.BatchInfo) {
		bp := BatchPoint{BaseOffset: in.BaseOffset, LastOffset: in.LastOffset, Records: int32(in.Records), Bytes: in.Size,
			MaxTimestamp: in.MaxTimestamp, ProducerID: in.ProducerID, ProducerEpoch: in.ProducerEpoch,
			BaseSequence: in.BaseSequence, Codec: in.Codec, Control: in.Control}
		if bp.MaxTimestamp >= 0 {
			if prevTS >= 0 && bp.MaxTimestamp > prevTS {
				pd.Gaps = topGaps(pd.Gaps, Gap{AfterOffset: prevLast, Millis: bp.MaxTimestamp - prevTS}, 5)
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
	if opts.Progress != nil {
		c.Options.Progress = opts.Progress.Add
	}
	st, err := c.CountPartition(p)
	if err != nil {
		return nil, err
	}
	pd.Stats = st
	pd.Points, pd.Stride = smp.final()
	if opts.Audit {
		// Audit what was named: the whole directory, or just the files given.
		if err := keepAudit(pd, audit.FromSegments(p), opts.Coordinators); err != nil {
			pd.AuditErr = err.Error()
		}
	}
	return pd, nil
}

// topGaps keeps the n largest gaps, largest first.
func topGaps(gs []Gap, g Gap, n int) []Gap {
	i := len(gs)
	for i > 0 && gs[i-1].Millis < g.Millis {
		i--
	}
	if i >= n {
		return gs
	}
	gs = append(gs, Gap{})
	copy(gs[i+1:], gs[i:])
	gs[i] = g
	if len(gs) > n {
		gs = gs[:n]
	}
	return gs
}

// addExplained gives pd the cuts and producers of its partition.
func addExplained(pd *PartitionData, p *segment.Partition, ex *explain.Result) {
	pd.Cuts = map[int64]string{}
	for _, b := range ex.Batches {
		if b.Topic == p.Topic && b.Partition == p.Partition {
			pd.Cuts[b.BaseOffset] = b.Cut
		}
	}
	for _, ps := range ex.Partitions {
		if ps.Topic == p.Topic && ps.Partition == p.Partition {
			pd.Explained = append(pd.Explained, ps.Producer)
		}
	}
}

// keepAudit audits the partition and keeps of its findings only what the
// page shows (PartitionData.Audit): the audit streams the rest through a
// temporary file, dropped here.
func keepAudit(pd *PartitionData, p *audit.Partition, coord audit.Coordinators) error {
	r, err := audit.RunStream(p, audit.Options{})
	if err != nil {
		return err
	}
	if err := audit.CheckTransactions(context.Background(), r, coord); err != nil { // as kseg audit does
		r.Close()
		return err
	}
	var table []audit.Finding
	err = r.Each(func(f *audit.Finding) error {
		pd.FindingsTotal++
		if len(table) < tableFindings {
			table = append(table, *f)
		}
		if f.FirstOffset >= 0 && len(pd.Marks) < maxMarks {
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
