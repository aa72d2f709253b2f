package explain

import (
	"math"
	"slices"
	"sort"
)

// replay runs the sender's timeline over the batches for one linger.ms
// value, to name each batch's cut (the linger.ms interval is the producer
// model's: inferLinger). As docs/producer-model.md (Accumulator and
// sender) has it with every partition led by one broker: the earliest
// event — a size cut (the next record arrived, within the linger window,
// and did not fit: the new batch makes the old one ready), a linger expiry
// (first record + linger.ms) or the producer's close at its last record —
// drains the head batch of every partition that has one, and the sender
// goes round again while a head is sendable. With rtt > 0 (the round trip
// of the sender the producer model fitted to the log, never one of
// explain's own) the node answers each request rtt ms after it was sent
// and takes at most inFlight unanswered ones: a drain waits for the
// response that frees a slot, and a batch that filled up meanwhile is cut
// by size. Batches begun and due in one millisecond count as one request
// each. It returns each batch's cut, how many batches the log contradicts
// (records after the batch was drained, or a next record that came before
// it yet is not in it) and how many drains waited for a response; once
// the contradictions exceed limit it stops (and the cuts are incomplete).
func replay(lg *replayLog, L, tEnd int64, cuts []string, rtt int64, limit int) (violations, blocked int) {
	h := newHeads(lg, L)
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

// rttCandidates are the round trips worth replaying a busy node with to
// name the cuts, after the fitted senders' (inferBatching): every whole
// millisecond up to the log's span, at most 100 ms, and on a large log no
// more than a pass of replays can try with 60 linger.ms values. The
// producer model's fit does not identify the round trip of a log cut by
// linger.ms (its score is the batch count and records per batch, which a
// busy node moves little), so the holds a busy node leaves in the log
// are read here; the round trip found names cuts only, never linger.ms.
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
