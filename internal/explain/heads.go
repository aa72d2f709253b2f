package explain

import (
	"math"
	"sort"
)

// replayLog is what every replay of one producer's batches shares,
// computed once per inference: the batches of each partition, the size-cut
// candidates, each batch's successor's first record when a size cut may
// have closed it (so ownDue follows no pointer), and every batch in the
// order it started, for the drains of a replay whose time only grows.
type replayLog struct {
	parts  [][]*Batch
	cand   candSet
	succTs []int64 // by Batch.idx: the successor's first record if cand, else MaxInt64
	order  []int32 // Batch.idx in (first record, last record) order
	rank   []int32 // by Batch.idx: its place in order
	partOf []int32 // by Batch.idx: its partition (index into parts)
	posIn  []int32 // by Batch.idx: its place in its partition
}

func newReplayLog(parts [][]*Batch, cand candSet) *replayLog {
	n := 0
	for _, bs := range parts {
		n += len(bs)
	}
	lg := &replayLog{parts: parts, cand: cand, succTs: make([]int64, n), order: make([]int32, 0, n),
		rank: make([]int32, n), partOf: make([]int32, n), posIn: make([]int32, n)}
	all := make([]*Batch, 0, n)
	for p, bs := range parts {
		for i, b := range bs {
			lg.partOf[b.idx], lg.posIn[b.idx] = int32(p), int32(i)
			lg.succTs[b.idx] = math.MaxInt64
			if cand.has(b) && b.succ != nil {
				lg.succTs[b.idx] = b.succ.first.ts
			}
			all = append(all, b)
		}
	}
	sort.SliceStable(all, func(i, j int) bool {
		if all[i].FirstTs != all[j].FirstTs {
			return all[i].FirstTs < all[j].FirstTs
		}
		return all[i].LastTs < all[j].LastTs
	})
	for r, b := range all {
		lg.order = append(lg.order, b.idx)
		lg.rank[b.idx] = int32(r)
	}
	return lg
}

// ownDue is when b becomes sendable by itself at linger.ms L, and why: at
// its linger expiry, or earlier when a next record arrived that did not
// fit (cand: the batches a size cut may have closed).
func (lg *replayLog) ownDue(b *Batch, L int64) (int64, string) {
	d, why := b.FirstTs+L, CutLinger
	if s := lg.succTs[b.idx]; s < d {
		d, why = s, CutSize
	}
	return d, why
}

// heads is the head batch of every partition during one replay, indexed so
// that a replay costs about the same per batch over one partition or
// thousands: by when each head is due (an indexed heap: moving a partition
// on is one sift) and by when it started. The replay's drains only go
// forward in time, so it finds the started heads with a cursor over the
// batches in start order.
type heads struct {
	*replayLog
	L        int64
	cur      []int
	due      idxHeap // (due time, 0, p)
	next     int     // order[:next] have started by the last drain
	ready    []int   // partitions whose new head started before the last drain
	stamp    []uint32
	stampGen uint32
	scratch  []int
}

func newHeads(lg *replayLog, L int64) *heads {
	np := len(lg.parts)
	h := &heads{replayLog: lg, L: L, cur: make([]int, np), due: newIdxHeap(np), stamp: make([]uint32, np)}
	for p := range lg.parts {
		h.place(p)
	}
	return h
}

// head is partition p's head batch, nil once all are sent.
func (h *heads) head(p int) *Batch {
	if bs := h.parts[p]; h.cur[p] < len(bs) {
		return bs[h.cur[p]]
	}
	return nil
}

// place files partition p's head, or takes p out once its batches are
// all sent.
func (h *heads) place(p int) {
	b := h.head(p)
	if b == nil {
		h.due.remove(p)
		return
	}
	d, _ := h.ownDue(b, h.L)
	h.due.set(p, d, 0)
	if int(h.rank[b.idx]) < h.next {
		h.ready = append(h.ready, p) // started before the last drain: the next one takes it
	}
}

// advance moves partition p on to its next batch.
func (h *heads) advance(p int) {
	h.cur[p]++
	h.place(p)
}

// earliest is the partition whose head is due first (the lowest partition
// among equals), and when; k is -1 once every batch is sent.
func (h *heads) earliest() (T int64, k int) {
	if len(h.due.e) == 0 {
		return 0, -1
	}
	return h.due.e[0].k1, int(h.due.e[0].p)
}

// startedBy: a head has started by a drain at T when its first record came
// before T, or at T with its last (in the event's millisecond a batch may
// have started just after the drain).
func startedBy(first, last, T int64) bool { return first < T || first == T && last <= T }

// draining lists the partitions a drain at T visits: k, and every partition
// whose head has started by T; every partition with a head when closed.
// The slice is valid until the next call. T must not be earlier than the
// last call's.
func (h *heads) draining(k int, T int64, closed bool) []int {
	out := h.scratch[:0]
	defer func() { h.scratch = out }()
	if closed {
		for p := range h.parts {
			if h.head(p) != nil {
				out = append(out, p)
			}
		}
		return out
	}
	h.stampGen++
	add := func(p int) {
		if h.stamp[p] != h.stampGen {
			h.stamp[p] = h.stampGen
			out = append(out, p)
		}
	}
	for _, p := range h.ready {
		add(p)
	}
	h.ready = h.ready[:0]
	for ; h.next < len(h.order); h.next++ {
		idx := h.order[h.next]
		b := h.parts[h.partOf[idx]][h.posIn[idx]]
		if !startedBy(b.FirstTs, b.LastTs, T) {
			break
		}
		if p := int(h.partOf[idx]); h.cur[p] == int(h.posIn[idx]) {
			add(p)
		}
	}
	if k >= 0 && h.head(k) != nil {
		add(k)
	}
	return out
}

// arity of idxHeap: four children a node halve the depth of a binary heap
// and sit in adjacent memory; a head moved on mostly sinks to the bottom.
const arity = 4

// idxHeap is a 4-ary min-heap of one entry per partition, ordered by (k1,
// k2, p), that knows where each partition's entry is.
type idxHeap struct {
	e   []headEntry
	pos []int32 // by partition: its index in e, -1 when absent
}

type headEntry struct {
	k1, k2 int64
	p      int32
}

func newIdxHeap(n int) idxHeap {
	h := idxHeap{e: make([]headEntry, 0, n), pos: make([]int32, n)}
	for i := range h.pos {
		h.pos[i] = -1
	}
	return h
}

func (a headEntry) less(b headEntry) bool {
	if a.k1 != b.k1 {
		return a.k1 < b.k1
	}
	if a.k2 != b.k2 {
		return a.k2 < b.k2
	}
	return a.p < b.p
}

// set gives partition p the key (k1, k2), adding it if absent.
func (h *idxHeap) set(p int, k1, k2 int64) {
	i := int(h.pos[p])
	if i < 0 {
		i = len(h.e)
		h.e = append(h.e, headEntry{k1, k2, int32(p)})
		h.pos[p] = int32(i)
		h.up(i)
		return
	}
	h.e[i].k1, h.e[i].k2 = k1, k2
	if !h.up(i) {
		h.down(i)
	}
}

// remove takes partition p out (nothing when absent).
func (h *idxHeap) remove(p int) {
	i := int(h.pos[p])
	if i < 0 {
		return
	}
	n := len(h.e) - 1
	last := h.e[n]
	h.e = h.e[:n]
	h.pos[p] = -1
	if i < n {
		h.e[i] = last
		h.pos[last.p] = int32(i)
		if !h.up(i) {
			h.down(i)
		}
	}
}

// up and down move the entry at i with a hole, writing each entry they
// pass and its position once.
func (h *idxHeap) up(i int) (moved bool) {
	x := h.e[i]
	for i > 0 {
		parent := (i - 1) / arity
		if !x.less(h.e[parent]) {
			break
		}
		h.e[i] = h.e[parent]
		h.pos[h.e[i].p] = int32(i)
		i, moved = parent, true
	}
	h.e[i] = x
	h.pos[x.p] = int32(i)
	return moved
}

func (h *idxHeap) down(i int) {
	n := len(h.e)
	x := h.e[i]
	for {
		c := arity*i + 1
		if c >= n {
			break
		}
		for j, end := c+1, min(c+arity, n); j < end; j++ {
			if h.e[j].less(h.e[c]) {
				c = j
			}
		}
		if !h.e[c].less(x) {
			break
		}
		h.e[i] = h.e[c]
		h.pos[h.e[i].p] = int32(i)
		i = c
	}
	h.e[i] = x
	h.pos[x.p] = int32(i)
}

// candSet marks the size-cut candidates by batch index (Batch.idx): a bit
// each, no map lookup on the replay's hot path.
type candSet []uint64

func newCandSet(n int) candSet { return make(candSet, (n+63)/64) }

func (c candSet) set(b *Batch) { c[b.idx/64] |= 1 << (uint(b.idx) % 64) }

func (c candSet) has(b *Batch) bool {
	i := int(b.idx / 64)
	return i < len(c) && c[i]&(1<<(uint(b.idx)%64)) != 0
}
