package producer

import (
	"fmt"
	"slices"
	"time"

	"github.com/kseg/kseg/batch"
)

// Layout is one simulated run: for every partition the records of each
// batch in log order.
type Layout struct {
	Run        int
	Partitions [][]int32
	// Burst is the virtual time from the first send() to the return of
	// the last (0 in the ideal model): the calibration compares it with
	// the real producer's.
	Burst time.Duration
	// FirstRequest and FirstAck are the virtual times from the first
	// send() to the first produce request and to its response (0 when
	// none was sent): the calibration compares the sender's cold start
	// with the real producer's.
	FirstRequest, FirstAck time.Duration
	// Progress[k] is the virtual time from the first send() to the return
	// of send number ceil((k+1)*records/ProgressSteps): the application
	// thread's speed through the burst, which the calibration compares
	// with the real producer's (a JVM's send() gets faster over thousands
	// of calls as the JIT compiles it).
	Progress [ProgressSteps]time.Duration
	// A fixed-rate sender (Config.SendInterval, not sync): how far the
	// application thread fell behind its schedule, as the real producer
	// runs of the what-if data record it: LateMax is the latest start of a
	// send against start + i*interval, LateOver1ms how many sends started
	// more than 1 ms late (in bursts, Config.Burst, against their burst's
	// start + k*interval).
	LateMax     time.Duration
	LateOver1ms int
}

// ProgressSteps is how many points of a run's progress Layout keeps.
const ProgressSteps = 20

// Batches is the number of batches of partition p.
func (l *Layout) Batches(p int) int { return len(l.Partitions[p]) }

// Records is the number of records of partition p.
func (l *Layout) Records(p int) int64 {
	var n int64
	for _, c := range l.Partitions[p] {
		n += int64(c)
	}
	return n
}

// Histogram is partition p's records-per-batch histogram (records ->
// batches), as PartitionStats.RecordsPerBatch.
func (l *Layout) Histogram(p int) map[int]int {
	m := map[int]int{}
	for _, c := range l.Partitions[p] {
		m[int(c)]++
	}
	return m
}

// Quantiles summarise a distribution over runs: nearest-rank percentiles.
type Quantiles struct {
	Min int `json:"min"`
	P5  int `json:"p5"`
	P50 int `json:"p50"`
	P95 int `json:"p95"`
	Max int `json:"max"`
}

// quantiles of xs (sorted in place).
func quantiles(xs []int) Quantiles {
	if len(xs) == 0 {
		return Quantiles{}
	}
	slices.Sort(xs)
	return Quantiles{Min: xs[0], P5: rank(xs, 5), P50: rank(xs, 50), P95: rank(xs, 95), Max: xs[len(xs)-1]}
}

// rank is the nearest-rank p-th percentile of sorted xs.
func rank(xs []int, p int) int {
	i := (p*len(xs) + 99) / 100 // ceil(p/100 * n)
	return xs[max(i-1, 0)]
}

// Percentile places v in the distribution of xs: the share of values below
// v plus half the share equal to it, in percent (mid-rank).
func Percentile(xs []int, v int) float64 {
	if len(xs) == 0 {
		return 0
	}
	below, equal := 0, 0
	for _, x := range xs {
		switch {
		case x < v:
			below++
		case x == v:
			equal++
		}
	}
	return 100 * (float64(below) + float64(equal)/2) / float64(len(xs))
}

// PartitionEnvelope is the predicted distribution of one partition's
// layout over the simulated runs.
type PartitionEnvelope struct {
	Partition int
	Batches   Quantiles
	// RecordsP50 is, for each batch position up to the median batch
	// count, the median over the runs that have that batch.
	RecordsP50 []int
	// Band is, for each batch position, the records of that batch over the
	// runs that have it (min, p5, p50, p95, max).
	Band []Quantiles
	// BatchCounts are the runs' batch counts, FirstBatch their first
	// batches' records (0 for an empty partition).
	BatchCounts []int
	FirstBatch  []int
}

// Envelope is the result of simulating one configuration many times.
type Envelope struct {
	Config     Config
	Runs       []Layout
	Partitions []PartitionEnvelope
	// Median is the index in Runs of the run closest to every partition's
	// median batch count (the run kseg produce writes).
	Median int
}

// maxBandPositions bounds the per-position band kept for very long runs.
const maxBandPositions = 100000

// Simulate runs the model runs times for cfg (run r uses cfg.Run + r for
// its random choices) without writing anything, and summarises the
// layouts. Same cfg, same result.
func Simulate(cfg Config, runs int) (*Envelope, error) {
	if runs < 1 {
		return nil, configErr("runs must be at least 1")
	}
	recs, err := prepare(&cfg)
	if err != nil {
		return nil, err
	}
	env := &Envelope{Config: cfg, Runs: make([]Layout, runs)}
	sizes := newSizeCache()
	var builders []*batch.Builder // batch buffers handed from run to run
	for r := range runs {
		c := cfg
		c.Run = cfg.Run + r
		l := Layout{Run: c.Run, Partitions: make([][]int32, cfg.Partitions)}
		s := newSimWith(&c, nil, recs, sizes)
		s.builders = builders
		s.counter = func(p, n int) { l.Partitions[p] = append(l.Partitions[p], int32(n)) }
		if err := s.run(); err != nil {
			return nil, fmt.Errorf("run %d: %w", c.Run, err)
		}
		builders = s.builders
		if s.burstEnd > 0 {
			l.Burst = time.Duration(s.burstEnd - c.StartTime*1e6)
		}
		for k, at := range s.progress {
			if at > 0 {
				l.Progress[k] = time.Duration(at - c.StartTime*1e6)
			}
		}
		l.LateMax, l.LateOver1ms = time.Duration(s.lateMax), int(s.lateOver1ms)
		if s.firstReqAt > 0 {
			l.FirstRequest = time.Duration(s.firstReqAt - c.StartTime*1e6)
			l.FirstAck = time.Duration(s.firstAckAt - c.StartTime*1e6)
		}
		env.Runs[r] = l
	}
	env.summarise()
	return env, nil
}

func (env *Envelope) summarise() {
	n := env.Config.Partitions
	env.Partitions = make([]PartitionEnvelope, n)
	for p := range n {
		pe := PartitionEnvelope{Partition: p}
		longest := 0
		for i := range env.Runs {
			l := &env.Runs[i]
			pe.BatchCounts = append(pe.BatchCounts, l.Batches(p))
			first := 0
			if l.Batches(p) > 0 {
				first = int(l.Partitions[p][0])
			}
			pe.FirstBatch = append(pe.FirstBatch, first)
			longest = max(longest, l.Batches(p))
		}
		pe.Batches = quantiles(slices.Clone(pe.BatchCounts))
		longest = min(longest, maxBandPositions)
		col := make([]int, 0, len(env.Runs))
		for k := range longest {
			col = col[:0]
			for i := range env.Runs {
				if b := env.Runs[i].Partitions[p]; k < len(b) {
					col = append(col, int(b[k]))
				}
			}
			q := quantiles(col)
			pe.Band = append(pe.Band, q)
			if k < pe.Batches.P50 {
				pe.RecordsP50 = append(pe.RecordsP50, q.P50)
			}
		}
		env.Partitions[p] = pe
	}
	best, bestD := 0, -1
	for i := range env.Runs {
		d := 0
		for p := range n {
			x := env.Runs[i].Batches(p) - env.Partitions[p].Batches.P50
			d += max(x, -x)
		}
		if bestD < 0 || d < bestD {
			best, bestD = i, d
		}
	}
	env.Median = best
}

// RecordsPerBatch is partition p's mean records per batch, run by run:
// the median over the runs and its min–max (runs that wrote nothing to p
// are left out; all zero when none wrote to it).
func (env *Envelope) RecordsPerBatch(p int) (median, lo, hi float64) {
	var per []float64
	for i := range env.Runs {
		if b := env.Runs[i].Batches(p); b > 0 {
			per = append(per, float64(env.Runs[i].Records(p))/float64(b))
		}
	}
	if len(per) == 0 {
		return 0, 0, 0
	}
	slices.Sort(per)
	return per[(len(per)-1)/2], per[0], per[len(per)-1]
}
