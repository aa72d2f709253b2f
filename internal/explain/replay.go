package explain

import (
	"math"
	"slices"
	"sort"
)

// replay runs the sender's timeline over the batches for one linger.ms
// value, as docs/producer-model.md (Accumulator and sender) has it with every partition led by
// one broker: the earliest event — a size cut (the next record arrived,
// within the linger window, and did not fit: the new batch makes the old
// one ready), a linger expiry (first record + linger.ms) or the producer's
// close at its last record — drains the head batch of every partition
// that has one, and the sender goes round again while a head is sendable.
// With rtt > 0 the node answers each request rtt ms after it was sent and
// takes at most inFlight unanswered ones
// (max.in.flight.requests.per.connection): a drain waits for the response
// that frees a slot, and a batch that filled up meanwhile is cut by size.
// Batches begun and due in one millisecond count as one request each.
// It returns each batch's cut, how many batches the log contradicts
// (records after the batch was drained, or a next record that came before
// it yet is not in it) and how many drains waited for a response; once
// the contradictions exceed limit it stops (and the cuts are incomplete).
func replay(lg *replayLog, L, tEnd int64, cuts []string, rtt int64, limit int) (violations, blocked int) {
	h := newHeads(lg, L, true)
	cand := lg.cand
	var drains []int64
	last := int64(math.MinInt64)
	for {
		T, k := h.earliest()
		if k < 0 {
			return violations, blocked
		}
		// The close makes every batch sendable; drains never go back.
		T = max(min(T, tEnd), last)
		held := false
		if rtt > 0 && len(drains) >= inFlight {
			if free := drains[len(drains)-inFlight] + rtt; free > T {
				T, held = free, true
				blocked++
			}
		}
		closed := T >= tEnd
		extra := 0
		for _, p := range h.draining(k, T, closed) {
			b := h.head(p)
			d, why := lg.ownDue(b, L)
			full := cand.has(b) && b.succ != nil && (b.succ.first.ts < T ||
				b.succ.first.ts == T && (why == CutSize && d == T || held && cand.has(b.succ)))
			// A successor begun in a held drain's millisecond counts only
			// when it filled up in turn (a run of full batches queued
			// behind a busy node).
			switch {
			case full:
				why = CutSize
			case b.FirstTs+L <= T:
				why = CutLinger
			case closed:
				why = CutFlush
			default:
				why = CutDrain
			}
			if b.LastTs > T || why != CutSize && b.next != nil && (b.next.first.ts < T || closed) {
				if closed && b.LastTs <= T {
					why = CutUnknown // a queued batch that is not full has no successor
				}
				violations++
			}
			cuts[b.idx] = why
			h.advance(p)
			if p != k && b.FirstTs == T && d <= T && !closed {
				// Begun and due in the drain's millisecond: the sender
				// took it when it came, in a request of its own (at
				// linger.ms=0 every batch goes as soon as it is made).
				extra++
			}
		}
		if violations > limit {
			return violations, blocked // worse than a story already found
		}
		drains = append(drains, T)
		for ; extra > 0; extra-- {
			drains = append(drains, T)
		}
		last = T
	}
}

// inFlight is max.in.flight.requests.per.connection as the replay
// assumes it: the default, and the most idempotence allows.
const inFlight = 5

// lingerCandidates are the linger.ms values worth replaying: every value
// up to 100 ms, then the spans and gaps the log holds (where the replay
// can change), and one value beyond every gap (no linger cut at all).
func lingerCandidates(data []*Batch, tEnd int64, steps int) []int64 {
	set := map[int64]bool{}
	var top int64
	add := func(x int64) {
		if x >= 0 {
			set[x] = true
			top = max(top, x)
		}
	}
	for _, b := range data {
		add(b.span())
		add(tEnd - b.FirstTs)
		add(tEnd - b.FirstTs + 1)
		if b.succ != nil {
			add(b.gap())
			add(b.gap() + 1)
		}
	}
	for x := int64(0); x <= min(top, 100); x++ {
		set[x] = true
	}
	set[top+1] = true
	out := make([]int64, 0, len(set))
	for x := range set {
		out = append(out, x)
	}
	sort.Slice(out, func(i, j int) bool { return out[i] < out[j] })
	// Each candidate is one replay over every batch: keep the work near
	// steps batch steps on large logs.
	budget := min(800, max(60, steps/max(1, len(data))))
	if len(out) > budget {
		small := int64(min(100, budget/3))
		var keep, rest []int64
		for _, x := range out {
			if x <= small {
				keep = append(keep, x)
			} else {
				rest = append(rest, x)
			}
		}
		room := budget - len(keep)
		for i := 0; i < room; i++ {
			keep = append(keep, rest[i*(len(rest)-1)/max(1, room-1)])
		}
		out = slices.Compact(keep)
	}
	return out
}

// rttCandidates are the round trips worth replaying a busy node with:
// every whole millisecond up to the log's span, at most 100 ms, and on a
// large log no more than a pass of replays can try with 60 linger.ms
// values.
func rttCandidates(data []*Batch, tEnd int64) []int64 {
	t0 := tEnd
	for _, b := range data {
		t0 = min(t0, b.FirstTs)
	}
	n := min(100, tEnd-t0, int64(max(10, replaySteps/(60*max(1, len(data))))))
	out := make([]int64, 0, max(0, n))
	for r := int64(1); r <= n; r++ {
		out = append(out, r)
	}
	return out
}

// replaySteps bounds one pass of replays on a large log: replays times
// batches.
const replaySteps = 4000000

// replayJitter is replay with a busy node whose round trips vary: a drain
// whose batches took records after it was due (the node had inFlight
// requests unanswered) is held until their last record, when it takes
// every head begun by then, if that contradicts the log less. A held
// drain implies a round trip of at least its time less that of the
// inFlight-th drain before it; a drain not held, one of at most the time
// until a next record of its partitions. One round trip must fit them
// all, or the holds count as contradictions. It returns what replay does
// and stops as it does.
func replayJitter(lg *replayLog, L, tEnd int64, cuts []string, limit int) (violations, blocked int) {
	r := &jitterReplay{heads: newHeads(lg, L, false), cuts: cuts}
	floor := int64(math.MinInt64) // the last drain held up by a busy node
	// A held drain needs inFlight requests unanswered: it implies a round
	// trip of at least its time less that of the inFlight-th drain before
	// it; a drain not held implies one of at most that. One round trip
	// must fit them all, or the holds are contradictions.
	var drains []int64
	rttLo, rttHi := int64(0), int64(math.MaxInt64)
	settle := func() {
		if blocked > 0 && rttLo > rttHi {
			violations += blocked
		}
	}
	for {
		T, k := r.earliest()
		if k < 0 {
			settle()
			return violations, blocked
		}
		T = max(T, floor)
		held := false
		if T < tEnd {
			// Records after the batch was due: the node may have been
			// busy (max.in.flight.requests.per.connection requests
			// unanswered), holding the drain until the next response.
			// The held drain takes every head started by then.
			if v, last, _ := r.drain(k, T, false, false); v > 0 && last > T && len(drains) >= inFlight {
				U := r.holdUntil(k, last)
				if vU, _, _ := r.drain(k, U, false, true); vU < v {
					rttLo = max(rttLo, U-drains[len(drains)-inFlight])
					T, floor, held = U, U, true
					blocked++
				}
			}
		}
		if T >= tEnd {
			violations += r.close(tEnd)
			settle()
			return violations, blocked
		}
		v, _, nextAt := r.drain(k, T, true, held)
		violations += v
		if violations > limit {
			return violations, blocked
		}
		if len(drains) >= inFlight && nextAt < math.MaxInt64 {
			// held or not, the drain came before a next record of its
			// partitions went into a new batch
			rttHi = min(rttHi, nextAt-drains[len(drains)-inFlight])
		}
		drains = append(drains, T)
	}
}

// jitterReplay is the state of one replayJitter: the head batch of each
// partition and the cuts given so far.
type jitterReplay struct {
	*heads
	cuts []string
}

// drain takes, at T, the head batch of partition k and of every
// partition whose head has started; it returns how many of them the log
// contradicts, the last record time among them and the first next record
// of their partitions. Only with apply does it cut them and move on.
func (r *jitterReplay) drain(k int, T int64, apply, held bool) (v int, last, nextAt int64) {
	last, nextAt = T, math.MaxInt64
	for _, p := range r.draining(k, T, false) {
		b := r.head(p)
		d, why := r.ownDue(b, r.L)
		switch {
		case held && r.cand.has(b) && b.succ != nil && (b.succ.first.ts < T || b.succ.first.ts == T && r.cand.has(b.succ)):
			// Full while the drain was held: a full batch is sendable
			// before an expired one. A successor begun in the drain's
			// millisecond counts only when it filled up in turn (a
			// run of full batches queued behind a busy node).
			why = CutSize
		case d > T:
			why = CutDrain
		}
		if b.LastTs > T || why != CutSize && b.next != nil && b.next.first.ts < T {
			v++
		}
		last = max(last, b.LastTs)
		if why != CutSize && b.next != nil {
			nextAt = min(nextAt, b.next.first.ts)
		}
		if apply {
			r.cuts[b.idx] = why
			r.advance(p)
		}
	}
	return v, last, nextAt
}

// holdUntil is when a drain of partition k held until U takes place:
// the heads started by then may hold records later still, so it moves
// on to their last record until no head does.
func (r *jitterReplay) holdUntil(k int, U int64) int64 {
	for {
		_, l, _ := r.drain(k, U, false, true)
		if l <= U {
			return U
		}
		U = l
	}
}

// close cuts every batch still queued at the producer's close, which
// comes after its last record: each head is drained in turn. It returns
// the contradictions.
func (r *jitterReplay) close(tEnd int64) (violations int) {
	for p, bs := range r.parts {
		for _, b := range bs[r.cur[p]:] {
			d, why := r.ownDue(b, r.L)
			switch {
			case why == CutSize && d <= tEnd:
			case b.next != nil:
				why = CutUnknown // a queued batch that is not full has no successor
				violations++
			case b.FirstTs+r.L <= tEnd:
				why = CutLinger
			default:
				why = CutFlush
			}
			r.cuts[b.idx] = why
		}
	}
	return violations
}
