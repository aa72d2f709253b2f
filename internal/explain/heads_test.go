package explain

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// heads answers what a scan of every partition answers (the replay's
// definition): the earliest due head, lowest partition among equals, and
// the partitions a drain at T visits.
func TestHeadsMatchLinearScan(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for trial := range 200 {
		nParts := 1 + rng.IntN(40)
		parts := make([][]*Batch, nParts)
		idx := int32(0)
		for p := range parts {
			ts := int64(rng.IntN(5))
			for range rng.IntN(8) {
				first := ts + int64(rng.IntN(4))
				b := &Batch{FirstTs: first, LastTs: first + int64(rng.IntN(3)), idx: idx}
				b.first.ts = first
				idx++
				if n := len(parts[p]); n > 0 {
					parts[p][n-1].next, parts[p][n-1].succ = b, b
				}
				parts[p] = append(parts[p], b)
				ts = b.LastTs
			}
		}
		cand := newCandSet(int(idx))
		for p := range parts {
			for _, b := range parts[p] {
				if rng.IntN(3) == 0 {
					cand.set(b)
				}
			}
		}
		L := int64(rng.IntN(6))
		h := newHeads(newReplayLog(parts, cand), L)
		lastAt := int64(math.MinInt64)
		for step := 0; ; step++ {
			// the scan
			wantT, wantK := int64(math.MaxInt64), -1
			for p, bs := range parts {
				if h.cur[p] < len(bs) {
					b := bs[h.cur[p]]
					d := b.FirstTs + L
					if cand.has(b) && b.succ != nil && b.succ.first.ts < d {
						d = b.succ.first.ts
					}
					if d < wantT {
						wantT, wantK = d, p
					}
				}
			}
			T, k := h.earliest()
			if k != wantK || k >= 0 && T != wantT {
				t.Fatalf("trial %d step %d: earliest %d@%d, scan %d@%d", trial, step, k, T, wantK, wantT)
			}
			if k < 0 {
				break
			}
			at := T + int64(rng.IntN(3))
			at = max(at, lastAt) // drains never go back
			lastAt = at
			var want []int
			for p, bs := range parts {
				if h.cur[p] < len(bs) {
					b := bs[h.cur[p]]
					if p == k || startedBy(b.FirstTs, b.LastTs, at) {
						want = append(want, p)
					}
				}
			}
			got := slices.Clone(h.draining(k, at, false))
			slices.Sort(got)
			if !slices.Equal(got, want) {
				t.Fatalf("trial %d step %d: draining at %d: %v, scan %v", trial, step, at, got, want)
			}
			for _, p := range got {
				h.advance(p)
			}
		}
	}
}
