package producer

import (
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"slices"
	"sync"
	"time"

	"github.com/kseg/kseg/batch"
)

// Sender is the producer's sender thread and the broker's round trip as
// a log can calibrate them (FitSender): the application thread's timing
// is the log's own (its timestamps), so only the sender's is modelled.
// The zero Sender is the ideal one (no lag, no cost, RTT 0); a Sender
// with only an RTT is the ideal model with that round trip.
type Sender struct {
	// Lag is the median time from a wakeup (a new or full batch, a
	// response) or a linger expiry to the sender running: its thread's
	// scheduling on the machine.
	Lag time.Duration
	// Close is the median work of the sender per batch. With SplitClose
	// (what-if replays) it comes after the drain (Timing.BatchSendCost:
	// the produce request's share, bookkeeping) and delays the request,
	// and inside the drain a batch takes its codec's close as measured on
	// the Java producer by the batch's size (DrainClose). Without it (explain's backward
	// fits) all of it is inside the drain, on top of the calibrated
	// profile's codec costs: a sender that holds the drain longer is one
	// more way a log's drain-cut batches come about, so explain's
	// intervals stay as wide as the log allows. Either way the
	// application thread keeps appending to the partitions the drain has
	// still to visit.
	Close time.Duration
	// SplitClose places Close after the drain, as Java does its work
	// beyond ProducerBatch.close.
	SplitClose bool
	// RTT is the median produce round trip.
	RTT time.Duration
	// Jitter is the log-normal sigma of each sender step (a wake-up, a
	// close), RunJitter that of the sender's speed over one run (it
	// scales the round trip too), RTTJitter that of each round trip.
	Jitter, RunJitter, RTTJitter float64
	// BrokerSerialShare is the share of the round trip the broker spends
	// on a request alone (Timing.BrokerSerialShare).
	BrokerSerialShare float64
	// PollGranularity is Java's whole-millisecond poll timeout
	// (Timing.PollGranularity; 0: a linger expiry is met exactly). A
	// log's linger-cut batches show it: without it, a sender fitted to
	// them takes it for lag, and one fitted to a log without linger
	// waits (linger.ms 0) lacks it at a longer linger.ms.
	PollGranularity time.Duration
}

// Default jitters of a calibrated sender, not fitted to each log (a log's
// layout shows the sender's median speed far better than its spread).
// senderRunJitter, the run-to-run spread of the sender's speed, was chosen
// from 0.3, 0.6 and 1.0 by leave-one-group-out on the what-if validation
// data (docs/calibration.md, "The trace sender's run-to-run spread"):
// every fold picks 1.0. Explain's backward fits keep it.
const (
	senderJitter    = 0.5
	senderRunJitter = 1.0
	senderRTTJitter = 0.2
)

// WhatifRunJitter is the run-to-run spread of what-if replays
// (FitOptions.RunJitter): every fold had picked the widest of the first
// three, so chosen again from 1.0, 1.4 and 2.0 on the five what-if sets
// by leaving one group out (docs/calibration.md, "A wider run-to-run
// spread for what-if replays"): the issue's figures pick 1.4 in 18 folds
// of 20.
const WhatifRunJitter = 1.4

// WhatifFitDraws is the sender speeds a what-if fit's median rests on
// (FitOptions.Draws). With WhatifRunJitter's spread a log cut by the
// sender's speed (linger.ms=0) moves by a factor of ten between runs,
// and a log replayed in one window draws one speed a run: the median of
// the 16 runs a fit of 25,000 records took was noise the search chased,
// and the sender it settled on missed the log by 10.7% in a replay of
// 200 runs (docs/calibration.md, "Runs per sender in the what-if fit").
// A sampled log's windows draw their own speeds, and its fit keeps the
// fewer runs its size allows.
const WhatifFitDraws = 25

// The trace sender's broker and its starting round trip, both measured
// on the harness (docs/calibration.md, "A broker that answers one request
// at a time"): calm runs of the long groups at linger.ms 5 to 20 had a
// median request-latency-avg of 2 ms, and at linger.ms=0 one request went
// every 0.74 ms whether 1 or 5 were in flight, so the broker spends
// 0.74/2 of a round trip on a request alone.
const (
	priorRTT          = 2e6 // ns
	brokerSerialShare = 0.37
)

// Timing is the sender as the model's Timing: the application thread
// costs nothing (the trace gives its send times), the sender's costs are
// s's. A Sender without costs or jitter gives the ideal Timing.
func (s Sender) Timing() Timing {
	if s.Lag == 0 && s.Close == 0 && s.Jitter == 0 && s.RunJitter == 0 && s.RTTJitter == 0 && s.BrokerSerialShare == 0 {
		return Timing{}
	}
	t := Timing{
		SendCostCodecPerKB:  0,
		BatchCost:           0,
		CodecLoad:           0,
		WakeLatency:         s.Lag,
		IdleWakeLatency:     s.Lag,
		IdleSenderFactor:    1,
		IdleRTTFactor:       1,
		ClosePerKB:          -1,
		SenderJitter:        s.Jitter,
		IdleSenderJitter:    s.Jitter,
		SenderRunJitter:     s.RunJitter,
		IdleSenderRunJitter: s.RunJitter,
		RTTJitter:           s.RTTJitter,
		PollGranularity:     s.PollGranularity,
		BrokerSerialShare:   s.BrokerSerialShare,
	}
	if s.SplitClose {
		t.BatchSendCost = s.Close
		t.MeasuredDrainClose = 1
		t.Codecs = traceCodecs()
	} else {
		t.CloseCost = s.Close
		t.Codecs = DefaultTiming().Codecs
	}
	return t
}

// traceCodecs are a trace sender's codec costs: the calibrated profile's,
// but for the close inside the drain, which is the measured one
// (Timing.MeasuredDrainClose).
func traceCodecs() [batch.CodecZstd + 1]CodecCosts {
	c := DefaultTiming().Codecs
	for i := range c {
		c[i].ClosePerKB = 0
	}
	return c
}

// Apply sets cfg's timing and round trip to s's.
func (s Sender) Apply(cfg *Config) {
	cfg.Timing = s.Timing()
	cfg.RTT = s.RTT
	cfg.FirstSendDelay = 0
	cfg.PIDDelay = 0
}

// CutNames are the cut reasons a replay counts, in RunLayout.Cuts order.
var CutNames = []string{CutSize, CutLinger, CutSync, CutDrain, CutFlush, CutLargeRecord, CutMemory}

func cutIndex(c string) int {
	for i, n := range CutNames {
		if n == c {
			return i
		}
	}
	return len(CutNames) - 1
}

// RunLayout is one replayed run: per partition its batches, records,
// stored bytes and the batches of each cut reason (CutNames order), and
// the produce requests of the run.
type RunLayout struct {
	Batches, Records, Bytes []int64
	Cuts                    [][]int64
	Requests                int64
	// Hist is the run's batches by records per batch, in powers of 2
	// (bucket k: 2^k to 2^(k+1)-1 records).
	Hist []int64
}

func newRunLayout(parts int) RunLayout {
	l := RunLayout{Batches: make([]int64, parts), Records: make([]int64, parts), Bytes: make([]int64, parts), Cuts: make([][]int64, parts), Hist: make([]int64, histBuckets)}
	for p := range l.Cuts {
		l.Cuts[p] = make([]int64, len(CutNames))
	}
	return l
}

func (l *RunLayout) add(o *RunLayout) {
	for p := range l.Batches {
		l.Batches[p] += o.Batches[p]
		l.Records[p] += o.Records[p]
		l.Bytes[p] += o.Bytes[p]
		for c := range l.Cuts[p] {
			l.Cuts[p][c] += o.Cuts[p][c]
		}
	}
	l.Requests += o.Requests
	for k := range l.Hist {
		l.Hist[k] += o.Hist[k]
	}
}

// TotalBatches is the run's batches over every partition.
func (l *RunLayout) TotalBatches() int64 {
	var n int64
	for _, b := range l.Batches {
		n += b
	}
	return n
}

// ReplayOptions are a replay's runs and how it spends them.
type ReplayOptions struct {
	Runs   int    // runs to report (at least 1)
	Seed   uint64 // the random choices of run r come from Seed and r
	Spread Spread // where the records of one millisecond go
	// Workers simulate windows at once (0: GOMAXPROCS).
	Workers int
	// WindowRecords is the records of one window (0: DefaultWindowRecords), and
	// Budget the record sends a replay may simulate (0: 20 million):
	// past it each window is simulated fewer times than Runs (at least
	// minSimRuns) and the runs are composed of them (see Replay).
	WindowRecords int
	Budget        int64
	// LogCodec is the codec the traces were written with, when the
	// replay's may differ (a what-if). Their arrivals hold that codec's
	// first use: Java loads a codec in the application thread's first
	// send() that uses it, and the sends due meanwhile wait. A replay
	// under another codec adds its load (the timing profile's, measured)
	// to each session's first send. Nil: the replay's codec is the log's.
	LogCodec *batch.Codec
}

// ReplayResult is a replay's runs.
type ReplayResult struct {
	Partitions int
	Runs       []RunLayout
	// Windows is how many windows the traces were cut into, SimRuns how
	// many times each was simulated (Runs composes the runs of fewer
	// simulations when SimRuns < len(Runs)).
	Windows, SimRuns int
}

// DefaultWindowRecords is the records of one replay window
// (ReplayOptions.WindowRecords 0).
const DefaultWindowRecords = 100000

// minSimRuns is the fewest simulations of each window runs are
// composed of.
const minSimRuns = 4

// window is records [lo, hi) of a trace simulated to count the batches
// begun in [countLo, countHi).
type window struct {
	t                *Trace
	lo, hi           int
	countLo, countHi int
	// early are the first arrivals without the log's codec load, in a
	// session's first window of a replay under another codec
	early []int64
}

// planWindows cuts t into windows of about w records: at an idle gap
// (no record for gapMs: the accumulator is empty and every request
// answered, so the windows are independent but for the compression
// estimate) when there is one between w and 2w records in, else at w
// records with overlap records simulated on either side whose batches
// are not counted (the accumulator's state converges within them).
func planWindows(t *Trace, w int, gapMs uint32) []window {
	n := t.Len()
	if n <= 2*w {
		return []window{{t: t, lo: 0, hi: n, countLo: 0, countHi: n}}
	}
	overlap := max(w/20, min(w, 1000))
	var out []window
	lo := 0
	idleLo := true
	for lo < n {
		hi := min(n, lo+w)
		idleHi := hi == n
		if !idleHi {
			for i := hi; i < min(n, lo+2*w); i++ {
				if t.rec(i).ms-t.rec(i-1).ms >= gapMs {
					hi, idleHi = i, true
					break
				}
			}
		}
		if n-hi < w/2 && !idleHi {
			hi, idleHi = n, true // no short last window
		}
		sLo, sHi := lo, hi
		if !idleLo {
			sLo = max(0, lo-overlap)
		}
		if !idleHi {
			sHi = min(n, hi+overlap)
		}
		out = append(out, window{t: t, lo: sLo, hi: sHi, countLo: lo, countHi: hi})
		lo, idleLo = hi, idleHi
	}
	return out
}

// Replay replays traces (the sessions of one topic, each with its own
// accumulator, all over traces[0].Partitions partitions) through the
// model with cfg's settings and sender's timing, opts.Runs times, and
// returns each run's layout summed over the sessions.
//
// Each trace is cut into windows (planWindows) that are simulated apart,
// on opts.Workers goroutines. While Runs × records stays within
// opts.Budget, window w of run r is simulation r of w. Past it each
// window is simulated SimRuns < Runs times, and run r takes for each
// window one of its simulations at random: the windows' randomness is
// independent, so composed runs have the spread of the sum as simulated
// runs would, from SimRuns times the work instead of Runs.
func Replay(traces []*Trace, cfg Config, sender Sender, opts ReplayOptions) (*ReplayResult, error) {
	return ReplayMix(traces, cfg, []Sender{sender}, opts)
}

// ReplayMix is Replay with run r's sender senders[r mod len(senders)]:
// the senders that fit a log equally well (Fit.Plausible), so that the
// runs' spread holds what the log cannot tell about its sender.
func ReplayMix(traces []*Trace, cfg Config, senders []Sender, opts ReplayOptions) (*ReplayResult, error) {
	if len(senders) == 0 {
		return nil, configErr("no sender")
	}
	if opts.Runs < 1 {
		return nil, configErr("runs must be at least 1")
	}
	if len(traces) == 0 {
		return nil, configErr("nothing to replay")
	}
	parts := traces[0].Partitions
	senders[0].Apply(&cfg)
	cfg.Partitions = parts
	cfg.TimestampStepMs = -1
	cfg.spread = opts.Spread
	cfg.Seed = opts.Seed
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	wr := opts.WindowRecords
	if wr <= 0 {
		wr = DefaultWindowRecords
	}
	gap := uint32(min(cfg.LingerMs+1000+10*cfg.RTT.Milliseconds(), math.MaxUint32/2))
	var wins []window
	var total int64
	for _, t := range traces {
		if t.Partitions != parts {
			return nil, configErr("the sessions of one topic must have the same partition count")
		}
		if t.Len() == 0 {
			continue
		}
		wins = append(wins, planWindows(t, wr, gap)...)
	}
	for w := range wins {
		total += windowCost(&wins[w])
	}
	res := &ReplayResult{Partitions: parts, Windows: len(wins), SimRuns: opts.Runs}
	budget := opts.Budget
	if budget <= 0 {
		budget = 20000000
	}
	k := len(senders)
	if total*int64(opts.Runs) > budget {
		n := int(min(int64(opts.Runs), max(minSimRuns, budget/max(total, 1))))
		res.SimRuns = min(opts.Runs, (max(n, k)+k-1)/k*k) // simulations of each sender alike
	}
	cfgs := make([]Config, k)
	for i, snd := range senders {
		cfgs[i] = cfg
		snd.Apply(&cfgs[i])
		if opts.LogCodec != nil {
			cfgs[i].Timing.CodecLoad, _ = CodecFirstUse(*opts.LogCodec, cfg.Compression)
		}
	}
	if opts.LogCodec != nil {
		if _, removed := CodecFirstUse(*opts.LogCodec, cfg.Compression); removed > 0 {
			for w := range wins {
				if wins[w].lo == 0 {
					wins[w].early = wins[w].t.view(wins[w].lo, wins[w].hi).withoutFirstUse(removed)
				}
			}
		}
	}
	sims, err := simulateWindows(wins, cfgs, res.SimRuns, opts.Workers, true)
	if err != nil {
		return nil, err
	}
	res.Runs = make([]RunLayout, opts.Runs)
	for r := range res.Runs {
		l := newRunLayout(parts)
		rng := rand.New(rand.NewPCG(opts.Seed, 0x636f6d706f7365+uint64(r))) // "compose"
		for j := range sims {
			v := r
			if res.SimRuns < opts.Runs {
				// a simulation of run r's sender
				v = r%k + k*rng.IntN(max(1, res.SimRuns/k))
				if v >= res.SimRuns {
					v = rng.IntN(res.SimRuns)
				}
			}
			l.add(&sims[j][v])
		}
		res.Runs[r] = l
	}
	return res, nil
}

// windowOverhead is a window's least cost in record sends: a simulation's
// setup (its state, clock and layout) costs as much as replaying tens of
// records, so a log of many one-record sessions (a producer per request)
// is bounded by its windows as well as its records.
const windowOverhead = 64

// windowCost is a window's work in record sends: its records, at least
// windowOverhead, and its simulation's state of every partition of the
// topic (a topic of a thousand partitions written by thousands of short
// sessions is bounded by that product).
func windowCost(w *window) int64 {
	return max(int64(w.hi-w.lo), windowOverhead) + int64(w.t.Partitions)/8
}

// jobRecords is the work below which consecutive windows are simulated as
// one job: a job's run is the sum of its windows' runs, so the layouts
// kept are per job, not per window.
const jobRecords = 4096

// planJobs groups consecutive windows into jobs of about jobRecords work,
// or 64 per partition of the topic when that is more (a job's layout per
// run holds every partition's counts), a window of more a job alone:
// jobs[j] is windows [jobs[j-1], jobs[j]).
func planJobs(wins []window) []int {
	var ends []int
	var work int64
	target := int64(jobRecords)
	if len(wins) > 0 {
		target = max(target, 64*int64(wins[0].t.Partitions))
	}
	for w := range wins {
		c := windowCost(&wins[w])
		if work > 0 && work+c > target {
			ends = append(ends, w)
			work = 0
		}
		work += c
	}
	if len(wins) > 0 {
		ends = append(ends, len(wins))
	}
	return ends
}

// scratchPool keeps the workers' simulation state, compressors and
// compressed sizes included, from one simulateWindows to the next: a fit
// calls it once per sender tried, and senders that differ a little cut
// mostly the same batches.
var scratchPool = sync.Pool{New: func() any { return &simScratch{} }}

// runStrata assigns each simulation of each window a stratum of its
// sender's speed (clock.stratify): the simulations of one sender (those
// of cfgs[v mod k]) take one stratum each of as many, in an order
// shuffled per window so that a run's windows stay independent.
// strata[w][i][v/k] is simulation v's in window w, i = v mod k.
func runStrata(wins, runs, k int, seed uint64) [][][]int {
	strata := make([][][]int, wins)
	for w := range strata {
		rng := rand.New(rand.NewPCG(seed, 0x737472617461+uint64(w))) // "strata"
		strata[w] = make([][]int, k)
		for i := range k {
			strata[w][i] = rng.Perm((runs - i + k - 1) / k)
		}
	}
	return strata
}

// simulateWindows runs each window runs times on workers goroutines,
// simulation v with cfgs[v mod len(cfgs)], and returns per job
// (planJobs) and simulation the sum of its windows' layouts.
func simulateWindows(wins []window, cfgs []Config, runs, workers int, stratify bool) ([][]RunLayout, error) {
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	ends := planJobs(wins)
	var strata [][][]int
	if stratify {
		strata = runStrata(len(wins), runs, len(cfgs), cfgs[0].Seed)
	}
	out := make([][]RunLayout, len(ends))
	for j := range out {
		out[j] = make([]RunLayout, runs)
	}
	type job struct{ j, r int }
	jobs := make(chan job)
	var (
		mu   sync.Mutex
		fail error
		wg   sync.WaitGroup
	)
	for range min(workers, len(ends)*runs) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var builders []*batch.Builder
			scratch := scratchPool.Get().(*simScratch)
			defer scratchPool.Put(scratch)
			if scratch.sizes == nil {
				scratch.sizes = newSizeCache()
			}
			sizes := scratch.sizes
			for jb := range jobs {
				mu.Lock()
				stop := fail != nil
				mu.Unlock()
				if stop {
					continue
				}
				lo := 0
				if jb.j > 0 {
					lo = ends[jb.j-1]
				}
				cfg := cfgs[jb.r%len(cfgs)]
				l := newRunLayout(cfg.Partitions)
				var err error
				for w := lo; w < ends[jb.j] && err == nil; w++ {
					if strata != nil {
						st := strata[w][jb.r%len(cfgs)]
						cfg.runStratum, cfg.runStrata = st[jb.r/len(cfgs)], len(st)
					}
					builders, err = simulateWindow(&wins[w], cfg, w, jb.r, sizes, builders, scratch, &l)
				}
				if err != nil {
					mu.Lock()
					fail = err
					mu.Unlock()
					continue
				}
				out[jb.j][jb.r] = l
			}
		}()
	}
	for r := range runs {
		for j := range ends {
			jobs <- job{j, r}
		}
	}
	close(jobs)
	wg.Wait()
	return out, fail
}

// CodecFirstUse is what a replay under codec changes in the first send of
// each session of a log written with logCodec: the new codec's load it
// adds, and the log's own it takes out of the arrivals (Trace.
// withoutFirstUse), from the timing profile's measured loads. Both are 0
// when the codec is the log's.
func CodecFirstUse(logCodec, codec batch.Codec) (added, removed time.Duration) {
	if logCodec == codec {
		return 0, 0
	}
	loads := DefaultTiming().Codecs
	return loads[codec].Load, loads[logCodec].Load
}

// simulateWindow is run r of window w.
func simulateWindow(win *window, cfg Config, w, r int, sizes *sizeCache, builders []*batch.Builder, scratch *simScratch, l *RunLayout) ([]*batch.Builder, error) {
	v := win.t.view(win.lo, win.hi)
	c := cfg
	if win.lo > 0 {
		// the session's first send is in an earlier window
		c.Timing.CodecLoad = 0
	}
	c.early = win.early
	c.Records = int64(v.Len())
	c.StartTime = v.StartMs + int64(v.rec(0).ms)
	c.Run = cfg.Run + r
	c.Seed = cfg.Seed ^ uint64(w)*0x9e3779b97f4a7c15
	if v.ProducerID >= 0 {
		c.ProducerID, c.ProducerEpoch = v.ProducerID, max(v.Epoch, 0)
	}
	s := newSimReusing(&c, nil, &records{trace: v}, sizes, scratch)
	s.builders = builders
	s.countFrom = int64(win.countLo - win.lo)
	countTo := int64(win.countHi - win.lo)
	s.tally = func(p, n, bytes int, cut string) {
		l.Batches[p]++
		l.Records[p] += int64(n)
		l.Bytes[p] += int64(bytes)
		l.Cuts[p][cutIndex(cut)]++
		l.Hist[histBucket(int64(n))]++
	}
	// batches begun past the window's end belong to the next window
	s.countTo = countTo
	if err := s.run(); err != nil {
		return s.builders, fmt.Errorf("replay of %s records %d..%d, run %d: %w", v.Topic, win.lo, win.hi, c.Run, err)
	}
	l.Requests += s.requests
	return s.builders, nil
}

// Quantiles of the runs' batches of partition p.
func (r *ReplayResult) Batches(p int) Quantiles {
	xs := make([]int, len(r.Runs))
	for i := range r.Runs {
		xs[i] = int(r.Runs[i].Batches[p])
	}
	return quantiles(xs)
}

// TotalBatches is the quantiles of the runs' batches over all partitions.
func (r *ReplayResult) TotalBatches() Quantiles {
	xs := make([]int, len(r.Runs))
	for i := range r.Runs {
		xs[i] = int(r.Runs[i].TotalBatches())
	}
	return quantiles(xs)
}

// FloatQuantiles are p5, p50 and p95 of a real-valued figure over runs.
type FloatQuantiles struct{ P5, P50, P95 float64 }

func floatQuantiles(xs []float64) FloatQuantiles {
	if len(xs) == 0 {
		return FloatQuantiles{}
	}
	slices.Sort(xs)
	at := func(p int) float64 { return xs[max((p*len(xs)+99)/100-1, 0)] }
	return FloatQuantiles{P5: at(5), P50: at(50), P95: at(95)}
}

// RecordsPerBatch is the quantiles of partition p's mean records per batch
// over the runs (p < 0: the topic's).
func (r *ReplayResult) RecordsPerBatch(p int) FloatQuantiles {
	return r.ratio(p, func(l *RunLayout, p int) int64 { return l.Records[p] })
}

// BytesPerBatch is the same for the stored bytes per batch.
func (r *ReplayResult) BytesPerBatch(p int) FloatQuantiles {
	return r.ratio(p, func(l *RunLayout, p int) int64 { return l.Bytes[p] })
}

func (r *ReplayResult) ratio(p int, num func(*RunLayout, int) int64) FloatQuantiles {
	xs := make([]float64, 0, len(r.Runs))
	for i := range r.Runs {
		l := &r.Runs[i]
		var n, b int64
		for q := range l.Batches {
			if p < 0 || q == p {
				n += num(l, q)
				b += l.Batches[q]
			}
		}
		if b > 0 {
			xs = append(xs, float64(n)/float64(b))
		}
	}
	return floatQuantiles(xs)
}

// Requests is the quantiles of partition p's produce requests (one
// request holds at most one batch of a partition, so these are its
// batches; p < 0: the topic's requests, which carry several partitions'
// batches).
func (r *ReplayResult) Requests(p int) Quantiles {
	if p >= 0 {
		return r.Batches(p)
	}
	xs := make([]int, len(r.Runs))
	for i := range r.Runs {
		xs[i] = int(r.Runs[i].Requests)
	}
	return quantiles(xs)
}

// Cuts is the median run's batches of partition p by cut reason (the run
// whose topic total is the median).
func (r *ReplayResult) Cuts(p int) map[string]int64 {
	idx := make([]int, len(r.Runs))
	for i := range idx {
		idx[i] = i
	}
	slices.SortStableFunc(idx, func(a, b int) int {
		return int(r.Runs[a].TotalBatches() - r.Runs[b].TotalBatches())
	})
	med := &r.Runs[idx[max((50*len(idx)+99)/100-1, 0)]]
	out := map[string]int64{}
	for c, n := range med.Cuts[p] {
		if n > 0 {
			out[CutNames[c]] = n
		}
	}
	return out
}
