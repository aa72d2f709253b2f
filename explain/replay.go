package explain

import (
	"math"
	"slices"
	"sort"
)

// replay runs the sender's timeline over the batches for one linger.ms
// value, as PRODUCER-MODEL.md §3.4–3.6 has it with every partition led by
// one broker: the earliest event — a size cut (the next record arrived,
// within the linger window, and did not fit: the new batch makes the old
// one ready) or a linger expiry (first record + linger.ms) — drains the
// head batch of every partition that has one; the producer's close, at its
// last record, drains the rest. A drain whose batches took records after
// the event is held (the node had max.in.flight.requests.per.connection
// requests unanswered) until their last record, when it takes every head
// begun by then, if that contradicts the log less. It returns each batch's
// cut, how many batches the log contradicts (records after the batch was
// drained, or a next record that came before it yet is not in it) and how
// many drains were held.
func replay(parts [][]*Batch, cand map[*Batch]bool, L, tEnd int64, cuts []string, hold bool) (violations, blocked int) {
	cur := make([]int, len(parts))
	own := func(b *Batch) (int64, string) {
		d, why := b.FirstTs+L, CutLinger
		if cand[b] && b.succ != nil && b.succ.first.ts < d {
			d, why = b.succ.first.ts, CutSize
		}
		return d, why
	}
	// drain takes, at T, the head batch of partition k and of every
	// partition whose head has started; it returns how many of them the
	// log contradicts and the last record time among them.
	drain := func(k int, T int64, apply, held bool) (v int, last, nextAt int64) {
		last, nextAt = T, math.MaxInt64
		for p, bs := range parts {
			if cur[p] >= len(bs) {
				continue
			}
			b := bs[cur[p]]
			if p != k && (b.FirstTs > T || b.FirstTs == T && b.LastTs > T) {
				// not started: not in the deque yet (in the event's
				// millisecond it may have started just after the drain)
				continue
			}
			d, why := own(b)
			switch {
			case held && cand[b] && b.succ != nil && (b.succ.first.ts < T || b.succ.first.ts == T && cand[b.succ]):
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
				cuts[b.idx] = why
				cur[p]++
			}
		}
		return v, last, nextAt
	}
	floor := int64(math.MinInt64) // the last drain held up by a busy node
	// A held drain needs inFlight requests unanswered: it implies a round
	// trip of at least its time less that of the inFlight-th drain before
	// it; a drain not held implies one of at most that. One round trip
	// must fit them all, or the holds are contradictions.
	var drains []int64
	rttLo, rttHi := int64(0), int64(math.MaxInt64)
	settle := func() {
		if blocked > 0 && rttLo > rttHi+rttSlackMs {
			violations += blocked
		}
	}
	for {
		T, k := int64(math.MaxInt64), -1
		for p, bs := range parts {
			if cur[p] < len(bs) {
				if d, _ := own(bs[cur[p]]); d < T {
					T, k = d, p
				}
			}
		}
		if k < 0 {
			settle()
			return violations, blocked
		}
		T = max(T, floor)
		held := false
		if hold && T < tEnd {
			// Records after the batch was due: the node may have been
			// busy (max.in.flight.requests.per.connection requests
			// unanswered), holding the drain until the next response.
			// The held drain takes every head started by then.
			if v, last, _ := drain(k, T, false, false); v > 0 && last > T && len(drains) >= inFlight {
				U := last
				for {
					_, l, _ := drain(k, U, false, true)
					if l <= U {
						break
					}
					U = l
				}
				if vU, _, _ := drain(k, U, false, true); vU < v {
					rttLo = max(rttLo, U-drains[len(drains)-inFlight])
					T, floor, held = U, U, true
					blocked++
				}
			}
		}
		if T >= tEnd {
			// The producer's close comes after its last record: every
			// batch still queued is drained, each head in turn.
			for p, bs := range parts {
				for _, b := range bs[cur[p]:] {
					d, why := own(b)
					switch {
					case why == CutSize && d <= tEnd:
					case b.next != nil:
						why = CutUnknown // a queued batch that is not full has no successor
						violations++
					case b.FirstTs+L <= tEnd:
						why = CutLinger
					default:
						why = CutFlush
					}
					cuts[b.idx] = why
				}
			}
			settle()
			return violations, blocked
		}
		v, _, nextAt := drain(k, T, true, held)
		violations += v
		if hold && len(drains) >= inFlight && nextAt < math.MaxInt64 {
			// held or not, the drain came before a next record of its
			// partitions went into a new batch
			rttHi = min(rttHi, nextAt-drains[len(drains)-inFlight])
		}
		drains = append(drains, T)
	}
}

// inFlight is max.in.flight.requests.per.connection as the replay
// assumes it: the default, and the most idempotence allows.
const inFlight = 5

// rttSlackMs: the replay's drain times are lower bounds (a drain held with
// no record to show it looks prompt) on millisecond timestamps, so the
// round trips the holds imply may disagree by this much.
const rttSlackMs = 5

// lingerCandidates are the linger.ms values worth replaying: every value
// up to 100 ms, then the spans and gaps the log holds (where the replay
// can change), and one value beyond every gap (no linger cut at all).
func lingerCandidates(data []*Batch, tEnd int64) []int64 {
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
	// 4 million batch steps on large logs.
	budget := 800
	if n := len(data); n > 5000 {
		budget = max(60, 4000000/n)
	}
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
