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
// one ready), a linger expiry (first record + linger.ms) or the producer's
// close at its last record — drains the head batch of every partition
// that has one, and the sender goes round again while a head is sendable.
// With rtt > 0 the node answers each request rtt ms after it was sent and
// takes at most inFlight unanswered ones
// (max.in.flight.requests.per.connection): a drain waits for the response
// that frees a slot, and a batch that filled up meanwhile is cut by size.
// It returns each batch's cut, how many batches the log contradicts
// (records after the batch was drained, or a next record that came before
// it yet is not in it) and how many drains waited for a response.
func replay(parts [][]*Batch, cand map[*Batch]bool, L, tEnd int64, cuts []string, rtt int64) (violations, blocked int) {
	cur := make([]int, len(parts))
	own := func(b *Batch) (int64, string) {
		d, why := b.FirstTs+L, CutLinger
		if cand[b] && b.succ != nil && b.succ.first.ts < d {
			d, why = b.succ.first.ts, CutSize
		}
		return d, why
	}
	var drains []int64
	last := int64(math.MinInt64)
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
		for p, bs := range parts {
			if cur[p] >= len(bs) {
				continue
			}
			b := bs[cur[p]]
			if p != k && !closed && (b.FirstTs > T || b.FirstTs == T && b.LastTs > T) {
				// not started: not in the deque yet (in the event's
				// millisecond it may have started just after the drain)
				continue
			}
			d, why := own(b)
			full := cand[b] && b.succ != nil && (b.succ.first.ts < T ||
				b.succ.first.ts == T && (why == CutSize && d == T || held && cand[b.succ]))
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
				v := 1
				if closed && b.LastTs <= T {
					why = CutUnknown // a queued batch that is not full has no successor
				}
				violations += v
			}
			cuts[b.idx] = why
			cur[p]++
		}
		drains = append(drains, T)
		last = T
	}
}

// inFlight is max.in.flight.requests.per.connection as the replay
// assumes it: the default, and the most idempotence allows.
const inFlight = 5

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

// rttCandidates are the round trips worth replaying a busy node with:
// every whole millisecond up to the log's span (at most 100 ms), fewer on
// large logs so that the replays stay near 40 million batch steps.
func rttCandidates(data []*Batch, tEnd int64, nL int) []int64 {
	t0 := tEnd
	for _, b := range data {
		t0 = min(t0, b.FirstTs)
	}
	n := min(100, tEnd-t0)
	if room := int64(40000000 / max(1, nL*len(data))); n > room {
		n = max(1, room)
	}
	out := make([]int64, 0, n)
	for r := int64(1); r <= n; r++ {
		out = append(out, r)
	}
	return out
}
