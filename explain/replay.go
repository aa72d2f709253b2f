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
// last record, drains the rest. It returns each batch's cut and how many
// batches the log contradicts (records after the batch was drained, or a
// next record that came before it yet is not in it).
func replay(parts [][]*Batch, cand map[*Batch]bool, L, tEnd int64, cuts []string) (violations int) {
	cur := make([]int, len(parts))
	own := func(b *Batch) (int64, string) {
		d, why := b.FirstTs+L, CutLinger
		if cand[b] && b.succ != nil && b.succ.first.ts < d {
			d, why = b.succ.first.ts, CutSize
		}
		return d, why
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
			return violations
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
			return violations
		}
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
			if d != T {
				why = CutDrain
			}
			cuts[b.idx] = why
			if b.LastTs > T || why != CutSize && b.next != nil && b.next.first.ts < T {
				violations++
			}
			cur[p]++
		}
	}
}

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
