package producer

import (
	"cmp"
	"math"
	"slices"
	"time"
)

// Fit is a sender fitted to a log (FitSender).
type Fit struct {
	Sender Sender
	// BatchError is (replay's median batches − the log's) / the log's,
	// over the records the fit replayed, under the log's own settings;
	// HistError is how far the replay's records-per-batch distribution
	// is from the log's (half the L1 distance of the two, in powers of 2:
	// 0 the same, 1 disjoint).
	BatchError, HistError float64
	// Plausible are the senders tried that reproduce the log about as
	// well as Sender (their score within plausibleTolerance of the best):
	// the best, and those with the smallest and largest round trip, then
	// lag, then close cost, four at most. The senders tried include, past
	// the search, each parameter raised alone from the best while the
	// replay still reproduces the log (the slow end of what the log
	// allows). Where the log cannot tell its sender they differ, and a
	// prediction should mix them (ReplayMix). Sender is the first.
	Plausible []Sender
	// Near are every sender tried that scores within the tolerance of
	// the best: what the log cannot tell apart, e.g. the round trips of a
	// log cut by linger.ms.
	Near []Sender
	// Records is how many records the fit replayed (its windows: all of
	// the log's records, or a sample of windows spread over a large log),
	// Evaluations how many senders it tried, Runs the runs of each try
	// and Windows the windows each run replays.
	Records     int
	Evaluations int
	Runs        int
	Windows     int
	// LogBatches is the log's batches begun in the windows the fit
	// replayed (the denominator of BatchError).
	LogBatches int
	// Objective is Score plus the prior's penalty on the fitted sender
	// (what the fit minimised).
	Objective float64
}

// Score is how far the fitted sender's replay is from the log: the
// median batch count's relative error plus histWeight times the
// records-per-batch distance (0: the log's own layout).
func (f *Fit) Score() float64 { return math.Abs(f.BatchError) + histWeight*f.HistError }

// Tolerance is how much worse than the best a fit's Score may be and
// still reproduce the log as well (plausibleTolerance plus one batch of
// the windows fitted): the same rule as Plausible's.
func (f *Fit) Tolerance() float64 { return plausibleTolerance + 1/float64(max(1, f.LogBatches)) }

// FitOptions bound a fit's work.
type FitOptions struct {
	Runs       int // runs per sender tried (0: 7 to 25, fewer the more records a try replays)
	MaxRecords int // records replayed per try (0: 40,000)
	Seed       uint64
	Workers    int
	// BestOnly skips the search for the slower senders that reproduce
	// the log as well (Fit.Plausible then holds the best alone): for a
	// caller that only wants the best fit's story.
	BestOnly bool
	// Rounds is how many of the search's rounds of steps (coarse to
	// fine) a fit takes (0: all five); fewer is a coarser, cheaper fit.
	Rounds int
	// PollGranularity is the senders' (Sender.PollGranularity): what-if
	// replays take Java's (DefaultTiming), explain's backward fits none
	// (docs/calibration.md, "The sender's whole-millisecond poll
	// timeout in the replay").
	PollGranularity time.Duration
	// SplitClose is the senders' (Sender.SplitClose): what-if replays
	// take Java's split of a batch's work between the drain and after it,
	// explain's backward fits all of it in the drain (docs/calibration.md,
	// "The sender's work inside the drain and after it").
	SplitClose bool
	// WindowRecords is the records of one window when the fit replays the
	// whole log (0: MaxRecords/8, at least 1000; a larger log is sampled
	// in windows of that size). A fit whose sender a Replay then uses
	// passes the Replay's (DefaultWindowRecords): a window's run draws
	// its own sender speed (Sender.RunJitter), so a log cut into more
	// windows than the Replay cuts it has a narrower, less skewed spread
	// of batch counts, and a sender whose median fits there misses the
	// log's own count in the Replay (by 14% on a
	// max.in.flight.requests.per.connection=1 log of 12,000 records).
	WindowRecords int
	// Spread places the records of a millisecond in the fit's replays
	// (zero: SpreadBursts, as a Replay does). Explain's backward fits
	// take SpreadEven (docs/calibration.md, "A burst's records at the
	// session's peak pace").
	Spread Spread
	// SerialBroker gives the senders a broker that answers one request
	// of a connection at a time (Sender.BrokerSerialShare) and starts the
	// fit from the measured round trip (priorRTT): what-if replays take
	// both, as they were scored on the what-if data; explain's backward
	// fits keep the overlapping broker and the 3 ms start they were
	// validated with (docs/calibration.md, "A broker that answers one
	// request at a time").
	SerialBroker bool
	// RandomSpeeds draws each run's sender speed at random instead of
	// from its own stratum of the run-to-run spread (as a Replay does).
	// Explain's backward fits take it: they were validated with random
	// draws, and stratified, a model-written log of a lagging sender
	// (TestExplainLingerFromModel) got a linger.ms interval without its
	// true value (docs/calibration.md, "Stratified sender speeds, scored
	// again on five sets").
	RandomSpeeds bool
	// RunJitter is the senders' run-to-run spread (Sender.RunJitter; 0:
	// senderRunJitter, as explain's backward fits were validated).
	// What-if replays take WhatifRunJitter.
	RunJitter float64
	// Draws is, when Runs is 0, the fewest sender speeds the median batch
	// count of a try rests on: a run of a try replays each of the fit's
	// windows with its own draw, so a log replayed in one window takes
	// Draws runs and one sampled in eight a few (0: the runs rule alone).
	// What-if fits take WhatifFitDraws.
	Draws int
	// RunHist compares the log's records-per-batch distribution with
	// that of the middle fifth of the runs by batch count, not of all
	// runs pooled: the log is one run, and with a wide run-to-run spread
	// the pooled distribution of a log cut by the sender's pace is a
	// mixture of fast runs' small batches and slow runs' large ones that
	// no single run lays out. What-if fits take it.
	RunHist bool
	// GridStart runs the coordinate searches again from the best of a
	// grid of lags and round trips (gridLags, gridRTTFactors) where those
	// from the prior end without reproducing the log within the
	// tolerance. What-if fits take it; explain's backward fits were
	// validated from the prior alone.
	GridStart bool
}

// TraceTiming is the fitted sender as a producer Timing and round trip,
// as `kseg produce` takes them (its application thread's costs are
// zero: a trace's send times are the log's).
func (f *Fit) TraceTiming() (Timing, time.Duration) { return f.Sender.Timing(), f.Sender.RTT }

// priorWeight is the score a fit gives up per decade a parameter moves
// from its prior (lag 0.5 ms, close 0.1 ms, round trip 3 ms, or 2 ms with
// FitOptions.SerialBroker).
const priorWeight = 0.01

// maxPlausible bounds the plausible senders (a composed replay
// simulates each window at least this many times).
const maxPlausible = minSimRuns

// plausibleTolerance (plus one batch) is how much worse than the best a
// sender may score and still be plausible.
const plausibleTolerance = 0.03

// valleySteps bounds how far (doublings) a parameter is followed up from
// the best fit while the replay still reproduces the log.
const valleySteps = 8

// farStep tells a search step that looks 100 times or more further
// than where the search is.
func farStep(m float64) bool { return m >= 100 }

// farReach tells the parameters a far step moves: the lag and the round
// trip, the waits a stall lengthens. A close cost is CPU work per batch,
// which every batch of a log shows; a far step there found a 10 ms
// close for a 64 KiB lz4 batch (a log cut by linger.ms fits it as well
// as 0.1 ms) and predicted a fifth of the batches at linger.ms=1.
func farReach(i int, m float64) bool { return i != 1 || !farStep(m) }

// gridLags (ns) and gridRTTFactors (of the prior round trip) are the
// grid a fit scores when its searches from the prior end short, to
// search again from its best point (FitOptions.GridStart): a lag from
// 50 µs to 50 ms, four steps a decade, and a round trip from a third of
// the prior to ten times it.
var (
	gridLags       = []float64{50e3, 90e3, 160e3, 280e3, 500e3, 890e3, 1.6e6, 2.8e6, 5e6, 8.9e6, 16e6, 28e6, 50e6}
	gridRTTFactors = []float64{0.3, 1, 3, 10}
)

// histWeight weighs the records-per-batch distribution against the
// batch count in a fit's score.
const histWeight = 0.2

// FitSender fits the sender's lag, close cost and round trip to traces
// (the sessions of one topic) so that their replay under cfg (the
// settings that wrote the log) reproduces the log's own layout: its
// batch count and its records-per-batch distribution. The jitters are
// fixed (senderJitter and the others). The search is a coordinate
// descent over the three in a log scale, from coarse steps to fine (the
// score is the median batch count's relative error plus histWeight times
// the distribution's distance); every
// try replays the same windows with the same seeds (common random
// numbers), so the score is a deterministic function of the sender.
// With FitOptions.GridStart a fit whose searches end without reproducing
// the log searches again from the best of a fixed grid of senders.
func FitSender(traces []*Trace, cfg Config, opts FitOptions) (*Fit, error) {
	if opts.MaxRecords <= 0 {
		opts.MaxRecords = 40000
	}
	if len(traces) == 0 {
		return nil, configErr("nothing to fit")
	}
	parts := traces[0].Partitions
	cfg.Partitions = parts
	cfg.TimestampStepMs = -1
	cfg.Seed = opts.Seed
	cfg.spread = opts.Spread
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	wins, logBatches, logHist := fitWindows(traces, cfg, opts.MaxRecords, opts.WindowRecords)
	fit := &Fit{LogBatches: logBatches}
	var work int64
	for w := range wins {
		fit.Records += wins[w].countHi - wins[w].countLo
		work += windowCost(&wins[w])
	}
	if opts.Runs <= 0 {
		// more runs where they are cheap: the score's noise is the runs'
		opts.Runs = int(min(25, max(7, 400000/max(work, 1))))
		if opts.Draws > 0 && len(wins) > 0 {
			opts.Runs = max(opts.Runs, min(opts.Draws, (opts.Draws+len(wins)-1)/len(wins)))
		}
	}
	fit.Runs, fit.Windows = opts.Runs, len(wins)
	if logBatches == 0 {
		return fit, nil
	}
	scoreOnce := func(s Sender) (float64, float64, float64, error) {
		c := cfg
		s.Apply(&c)
		fit.Evaluations++
		sims, err := simulateWindows(wins, []Config{c}, opts.Runs, opts.Workers, !opts.RandomSpeeds)
		if err != nil {
			return 0, 0, 0, err
		}
		totals := make([]int, opts.Runs)
		hist := make([]float64, histBuckets)
		var all float64
		var logAll float64
		for _, n := range logHist {
			logAll += float64(n)
		}
		// distance is the records-per-batch distance of h (all batches)
		// from the log's
		distance := func(h []float64, all float64) float64 {
			d := 0.0
			for k := range h {
				d += math.Abs(h[k]/max(all, 1) - float64(logHist[k])/max(logAll, 1))
			}
			return d / 2
		}
		for r := range opts.Runs {
			for j := range sims {
				totals[r] += int(sims[j][r].TotalBatches())
			}
		}
		// the runs whose histograms are pooled: all, or the middle fifth
		// by batch count (RunHist)
		pool := make([]int, opts.Runs)
		for r := range pool {
			pool[r] = r
		}
		if opts.RunHist {
			slices.SortStableFunc(pool, func(a, b int) int { return cmp.Compare(totals[a], totals[b]) })
			n := max(1, (len(pool)+4)/5)
			lo := (len(pool) - n) / 2
			pool = pool[lo : lo+n]
		}
		for _, r := range pool {
			for j := range sims {
				for k, n := range sims[j][r].Hist {
					hist[k] += float64(n)
					all += float64(n)
				}
			}
		}
		be := float64(quantiles(totals).P50-logBatches) / float64(logBatches)
		he := distance(hist, all)
		return math.Abs(be) + histWeight*he, be, he, nil
	}
	// A sender's score is a deterministic function of its parameters (the
	// same records, the same seeds), and the search comes back to a
	// sender often (a move undone, a walk from the best): it is scored
	// once.
	type scored struct{ sc, be, he float64 }
	memo := map[Sender]scored{}
	score := func(s Sender) (float64, float64, float64, error) {
		if r, ok := memo[s]; ok {
			return r.sc, r.be, r.he, nil
		}
		sc, be, he, err := scoreOnce(s)
		if err == nil {
			memo[s] = scored{sc, be, he}
		}
		return sc, be, he, err
	}
	// lag, close, rtt in ns, with their floors (a zero value steps up
	// from its floor) and ceilings
	p := [3]float64{500e3, 100e3, 3e6}
	share, runJitter := 0.0, senderRunJitter
	if opts.RunJitter > 0 {
		runJitter = opts.RunJitter
	}
	if opts.SerialBroker {
		p[2], share = priorRTT, brokerSerialShare
	}
	floor := [3]float64{20e3, 5e3, 200e3}
	ceil := [3]float64{2e9, 20e6, 2e9}
	mk := func(p [3]float64) Sender {
		return Sender{Lag: time.Duration(p[0]), Close: time.Duration(p[1]), RTT: time.Duration(p[2]),
			Jitter: senderJitter, RunJitter: runJitter, RTTJitter: senderRTTJitter, PollGranularity: opts.PollGranularity,
			BrokerSerialShare: share,
			SplitClose:        opts.SplitClose}
	}
	prior := p
	// A log often cannot tell a parameter (a log cut by linger.ms says
	// little of the round trip): a move away from the prior costs
	// priorWeight per decade, so only a parameter the log shows moves.
	penalty := func(q [3]float64) float64 {
		x := 0.0
		for i := range q {
			x += math.Abs(math.Log10(max(q[i], floor[i]) / prior[i]))
		}
		return priorWeight * x
	}
	type tried struct {
		p  [3]float64
		sc float64
	}
	var all []tried
	best, be, he, err := score(mk(p))
	if err != nil {
		return nil, err
	}
	all = append(all, tried{p, best})
	// The first round also looks 100 and 1,000 times away (farStep): a
	// sender that stalled for far longer than linger.ms (a loaded
	// machine) changes no batch count between the prior and ten times
	// it, and a search that only looks near the prior never leaves that
	// plateau.
	rounds := [][]float64{{0, 0.1, 0.3, 3, 10, 100, 1000}, {0.5, 2}, {0.5, 2}, {0.7, 1.4}, {0.7, 1.4}}
	if opts.Rounds > 0 && opts.Rounds < len(rounds) {
		rounds = rounds[:opts.Rounds]
	}
	// move is p with parameter i moved from cur by the factor m (0 sets
	// it to 0, and a 0 steps up from its floor); false if that does not
	// move it.
	move := func(p [3]float64, i int, cur, m float64) ([3]float64, bool) {
		q := p
		switch {
		case m == 0:
			if i == 2 || cur == 0 {
				return q, false // a round trip is never 0
			}
			q[i] = 0
		case cur == 0:
			q[i] = floor[i] * m
		default:
			q[i] = min(ceil[i], max(floor[i], cur*m))
		}
		return q, q[i] != p[i]
	}
	// try scores q and keeps it among the senders tried, from which the
	// plausible mix is drawn. A far step's sender is kept only where the
	// search moves to it: on a plateau it scores as well as the best,
	// and a mix holding it would predict every other setting with a
	// sender the log never asked for.
	try := func(q [3]float64, m float64) (sc, be, he float64, err error) {
		if sc, be, he, err = score(mk(q)); err == nil && !farStep(m) {
			all = append(all, tried{q, sc})
		}
		return sc, be, he, err
	}
	moveTo := func(q [3]float64, sc float64, m float64) {
		if farStep(m) {
			all = append(all, tried{q, sc})
		}
	}
	// search walks the coordinates in order from start, round by round,
	// and returns where it settles.
	search := func(order []int, start [3]float64) (p [3]float64, best, be, he float64, err error) {
		p = start
		if best, be, he, err = score(mk(p)); err != nil {
			return
		}
		for _, steps := range rounds {
			for _, i := range order {
				cur := p[i]
				for _, m := range steps {
					q, ok := move(p, i, cur, m)
					if !ok || !farReach(i, m) {
						continue
					}
					sc, b, h, err := try(q, m)
					if err != nil {
						return p, 0, 0, 0, err
					}
					if sc+penalty(q) < best+penalty(p)-1e-9 {
						moveTo(q, sc, m)
						best, be, he, p = sc, b, h, q
					}
				}
				// A move that helped is followed further the same way (a
				// pattern search): a log written by a slow sender on a loaded
				// machine needs a lag many times the first steps' reach.
				for f, n := p[i]/cur, 0; cur > 0 && p[i] > 0 && f != 1 && n < 8; n++ {
					q := p
					q[i] = min(ceil[i], max(floor[i], p[i]*f))
					if q[i] == p[i] {
						break
					}
					sc, b, h, err := try(q, f)
					if err != nil {
						return p, 0, 0, 0, err
					}
					if sc+penalty(q) >= best+penalty(p)-1e-9 {
						break
					}
					moveTo(q, sc, f)
					best, be, he, p = sc, b, h, q
				}
			}
		}
		return p, best, be, he, nil
	}
	// A coordinate search settles where its first coordinate leads. In
	// the fixed order the lag moves first: a loaded in-flight-1 log
	// settled at lag 0.03 ms and the prior's 3 ms round trip, its replay
	// 5% short of the log, where a search that moves the round trip and
	// close cost first reproduces it within 1%. The other order loses
	// on other logs (a busy broker's, in TestFitSender). So the search
	// runs twice: in the fixed order, and in the order of the best first
	// move each coordinate offers from the prior; the better end wins.
	order := []int{0, 1, 2} // lag, close, rtt
	var gain [3]float64
	for i := range p {
		for _, m := range rounds[0] {
			q, ok := move(p, i, p[i], m)
			if !ok || !farReach(i, m) {
				continue
			}
			sc, _, _, err := try(q, m)
			if err != nil {
				return nil, err
			}
			gain[i] = max(gain[i], best+penalty(p)-sc-penalty(q))
		}
	}
	p, best, be, he, err = search(order, prior)
	if err != nil {
		return nil, err
	}
	steep := slices.Clone(order)
	slices.SortStableFunc(steep, func(a, b int) int { return cmp.Compare(gain[b], gain[a]) })
	if !slices.Equal(steep, order) {
		q, sc, b, h, err := search(steep, prior)
		if err != nil {
			return nil, err
		}
		if sc+penalty(q) < best+penalty(p)-1e-9 {
			p, best, be, he = q, sc, b, h
		}
	}
	tol := plausibleTolerance + 1/float64(logBatches)
	// A coordinate search from the prior also settles where its first
	// steps happen to land: on a small loaded log the valley at a lag of
	// 2-3 ms lay between the prior's ×3 and ×10 steps, and a change of a
	// tenth of a microsecond in the close cost decided whether the search
	// found it. Where the searches end without reproducing the log within
	// the tolerance, they run again from the best of a fixed grid of lags
	// and round trips, and the better end wins.
	if opts.GridStart && best > tol {
		start, startObj := prior, math.Inf(1)
		for _, lag := range gridLags {
			for _, f := range gridRTTFactors {
				q := [3]float64{lag, prior[1], prior[2] * f}
				sc, _, _, err := score(mk(q))
				if err != nil {
					return nil, err
				}
				if sc+penalty(q) < startObj-1e-9 {
					start, startObj = q, sc+penalty(q)
				}
			}
		}
		if start != prior {
			all = append(all, tried{start, startObj - penalty(start)})
		}
		for _, o := range [][]int{order, steep} {
			q, sc, b, h, err := search(o, start)
			if err != nil {
				return nil, err
			}
			if sc+penalty(q) < best+penalty(p)-1e-9 {
				p, best, be, he = q, sc, b, h
			}
		}
	}
	fit.Sender, fit.BatchError, fit.HistError = mk(p), be, he
	fit.Objective = best + penalty(p)
	// The search starts from a fast prior and moves a parameter only as
	// far as the log demands, so it ends at the fast end of what the log
	// allows. A log that never loads its sender (a long linger.ms, few
	// requests) cannot show how slow it may be: follow each parameter up
	// from the best, doubling, while the replay still reproduces the log
	// (plausible, and its own batch count no further off than the best's
	// or the tolerance), so that the valley's far end is among the
	// senders tried.
	for _, i := range []int{1, 0, 2} { // close cost, lag, round trip
		if opts.BestOnly {
			break
		}
		q := p
		for n := 0; n < valleySteps; n++ {
			prev := q[i]
			q[i] = min(ceil[i], max(floor[i], q[i]*2))
			if q[i] == prev {
				break
			}
			sc, b, _, err := score(mk(q))
			if err != nil {
				return nil, err
			}
			if sc > best+tol || math.Abs(b) > max(math.Abs(be), tol) {
				break
			}
			all = append(all, tried{q, sc})
		}
	}
	// the plausible set: the senders tried within the tolerance of the
	// best; of them the best, then those with the smallest and largest
	// round trip, lag and close cost
	var near []tried
	for _, t := range all {
		if t.sc <= best+tol {
			near = append(near, t)
			fit.Near = append(fit.Near, mk(t.p))
		}
	}
	fit.Plausible = []Sender{fit.Sender}
	seen := map[[3]float64]bool{p: true}
	for _, i := range []int{2, 0, 1} { // round trip, lag, close
		lo, hi := near[0], near[0]
		for _, t := range near {
			if t.p[i] < lo.p[i] {
				lo = t
			}
			if t.p[i] > hi.p[i] {
				hi = t
			}
		}
		for _, t := range []tried{lo, hi} {
			if !seen[t.p] && len(fit.Plausible) < maxPlausible {
				seen[t.p] = true
				fit.Plausible = append(fit.Plausible, mk(t.p))
			}
		}
	}
	return fit, nil
}

// fitWindows picks the windows a fit replays: every window while their
// records stay within maxRecords, else windows spread evenly over the
// traces; and the log's batches begun in them and its records-per-batch
// histogram.
func fitWindows(traces []*Trace, cfg Config, maxRecords, windowRecords int) (wins []window, logBatches int, logHist []int64) {
	gap := uint32(min(cfg.LingerMs+1000+10*cfg.RTT.Milliseconds(), math.MaxUint32/2))
	size := 0
	for _, t := range traces {
		size += t.Len()
	}
	w := max(1000, maxRecords/8)
	if size <= maxRecords && windowRecords > 0 {
		w = windowRecords
	}
	var all []window
	for _, t := range traces {
		if t.Len() > 0 {
			all = append(all, planWindows(t, w, gap)...)
		}
	}
	// the work of a window: its records, or a simulation's setup for a
	// window of a few, and its partitions' state (windowCost, counting
	// the records begun in the window)
	total := 0
	for w := range all {
		total += int(max(int64(all[w].countHi-all[w].countLo), windowOverhead) + int64(all[w].t.Partitions)/8)
	}
	wins = all
	if total > maxRecords {
		keep := max(1, len(all)*maxRecords/total)
		wins = nil
		for k := range keep {
			wins = append(wins, all[k*len(all)/keep])
		}
	}
	logHist = make([]int64, histBuckets)
	for _, t := range traces {
		for k, n := range t.logHist {
			logHist[k] += n
		}
	}
	for _, w := range wins {
		for i := w.countLo; i < w.countHi; i++ {
			if w.t.isFirst(i) {
				logBatches++
			}
		}
	}
	return slices.Clip(wins), logBatches, logHist
}
