package producer

import (
	"cmp"
	"container/heap"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strconv"
	"time"

	"github.com/kseg/kseg/batch"
)

// A Trace is one producer session's records as a log holds them: when
// send() stamped each (CreateTime, in milliseconds), its partition when
// it was keyed (-1 when the sticky partitioner chose it), and the sizes of
// its key, value and headers. The model's application thread replays it
// (trace-driven simulation) in place of the synthetic schedule.
//
// A record costs 20 bytes (traceRec); its bytes are not kept. Compression
// needs real bytes, so the trace keeps a sample of them (at most
// MaxSampleBytes): every record's bytes while they fit, else those of every
// s-th record in read order (s doubles each time the sample is full, and
// the sample is thinned to match). A record whose bytes were not kept
// takes those of the nearest kept record before it in read order (the
// same partition, a few records earlier), cut or continued into the next
// kept record's bytes to its own lengths: sizes are always the record's
// own, and the content that compresses is the log's own, from its
// neighbourhood.
type Trace struct {
	Topic      string
	Partitions int   // the topic's partition count
	StartMs    int64 // the first record's timestamp
	// ProducerID and Epoch are the session's (-1 for records of
	// non-idempotent producers, which cannot be told apart).
	ProducerID int64
	Epoch      int16

	recs    recStore
	first   []uint64 // bit i: record i began a batch in the log
	ring    []byte   // the sample of record bytes
	entries []uint32 // ring offset of kept record k*stride (read order)
	stride  uint32
	shapes  [][]hdrLen // header layouts; 0 is none
	// the log's own layout: per partition batches, records and bytes
	// the log's own layout per partition the session wrote (a map: a
	// topic of many partitions written by many short sessions)
	logLayout map[int32]*[3]int64
	logHist   []int64 // batches by records per batch (log2 buckets)
	// peakPerMs is the most records of one millisecond in the session:
	// the application thread sends back to back at least that fast.
	// densePerMs is the fewest records of a millisecond of a burst: more
	// than arrivals at random at the session's mean rate put in one
	// millisecond but by a three-sigma chance.
	peakPerMs, densePerMs int
	// burstPace is the records a millisecond at which the session's
	// bursts were sent (burstPaceOf), at least peakPerMs.
	burstPace float64
}

// measureBursts sets t's peakPerMs and densePerMs.
func (t *Trace) measureBursts() {
	n := t.Len()
	if n == 0 {
		return
	}
	peak, k := 0, 0
	for i := range n {
		if i > 0 && t.rec(i).ms == t.rec(i-1).ms {
			k++
		} else {
			k = 1
		}
		peak = max(peak, k)
	}
	mean := float64(n) / float64(int64(t.rec(n-1).ms)-int64(t.rec(0).ms)+1)
	t.peakPerMs = peak
	t.densePerMs = max(3, int(math.Floor(mean+3*math.Sqrt(mean)))+1)
	t.burstPace = max(float64(peak), t.burstPaceOf())
}

// dense tells a millisecond of n records that is part of a burst
// (measureBursts): the burst placement and the burst pace share it.
func (t *Trace) dense(n int64) bool { return t.densePerMs > 0 && n >= int64(t.densePerMs) }

// burstPaceOf is the pace of the session's bursts, in records a
// millisecond, from how many millisecond boundaries they cross. A burst
// of d ms that starts at a random point of a millisecond crosses d
// boundaries on average, whatever its phase, so over the bursts (runs of
// consecutive milliseconds each next to a dense one, or a dense
// millisecond alone) the records over the boundaries crossed is the
// pace. The most records of one millisecond is only a floor: a burst of
// 100 records sent in 0.3 ms has at most 100 in a millisecond, and at
// that pace it would last 1 ms. With fewer than one boundary crossed,
// half of one is taken.
func (t *Trace) burstPaceOf() float64 {
	n := t.Len()
	dense := func(k int) bool { return t.dense(int64(k)) }
	var records, crossed float64
	inBurst, prevMs, prevK := false, uint32(0), 0
	burstN, burstMs := 0, 0
	flush := func() {
		if inBurst {
			records += float64(burstN)
			crossed += float64(burstMs - 1)
		}
		inBurst, burstN, burstMs = false, 0, 0
	}
	for i := 0; i < n; {
		ms := t.rec(i).ms
		j := i
		for j < n && t.rec(j).ms == ms {
			j++
		}
		k := j - i
		next := i > 0 && prevMs+1 == ms
		if inBurst && next && (dense(k) || dense(prevK)) {
			burstN += k
			burstMs++
		} else {
			flush()
			if dense(k) {
				inBurst, burstN, burstMs = true, k, 1
				if next && !dense(prevK) {
					// its first millisecond was the one before
					burstN += prevK
					burstMs++
				}
			}
		}
		prevMs, prevK = ms, k
		i = j
	}
	flush()
	if records == 0 {
		return 0
	}
	return records / max(0.5, crossed)
}

// traceRec is one record: 20 bytes.
type traceRec struct {
	ms     uint32 // since StartMs
	keyLen int32  // -1: null key
	valLen int32  // -1: null value
	num    uint32 // read order, for the sample
	part   int16  // -1: unkeyed (the partitioner chooses)
	shape  uint16 // header layout
}

type hdrLen struct{ k, v int32 }

// recStore holds a trace's records in chunks of 64 Ki (a large trace
// grows without copying) and is a view of records [off, off+n) of them.
// The first chunk starts small and grows to 64 Ki as a slice does: a log
// of many short producer sessions (a producer per request) holds a trace
// per session, and a full chunk each cost 1.3 MB.
type recStore struct {
	chunks [][]traceRec
	off, n int
}

const chunkBits = 16

func (s *recStore) len() int { return s.n }

func (s *recStore) at(i int) *traceRec {
	j := s.off + i
	return &s.chunks[j>>chunkBits][j&(1<<chunkBits-1)]
}

func (s *recStore) append(r traceRec) {
	switch k := len(s.chunks); {
	case k == 0:
		s.chunks = append(s.chunks, make([]traceRec, 0, 4))
	case len(s.chunks[k-1]) == 1<<chunkBits:
		s.chunks = append(s.chunks, make([]traceRec, 0, 1<<chunkBits))
	}
	k := len(s.chunks) - 1
	s.chunks[k] = append(s.chunks[k], r)
	s.n++
}

func (s *recStore) view(lo, hi int) recStore {
	return recStore{chunks: s.chunks, off: s.off + lo, n: hi - lo}
}

func (s *recStore) clone() recStore {
	var c recStore
	for i := range s.n {
		c.append(*s.at(i))
	}
	return c
}

// MaxSampleBytes bounds the record bytes a trace keeps (a var for tests).
var MaxSampleBytes = 32 << 20

// maxSampleEntries bounds the kept records of the sample.
const maxSampleEntries = 1 << 20

// maxShapes is how many distinct header layouts a trace keeps; later
// layouts take the kept one of the nearest total size.
const maxShapes = math.MaxUint16

// TraceBuilder collects a session's records partition by partition (each
// partition's in offset order) and sorts them into a Trace.
type TraceBuilder struct {
	t        *Trace
	n        uint32
	minMs    int64
	base     int64 // record ms are kept as uint32(ts - base) until Build
	bounds   []int // where each partition's records start
	shapeIdx map[string]uint16
	shapeTot []struct {
		tot int32
		idx uint16
	}
	key       []byte
	inBatch   bool
	lastPart  int
	batchRecs int64
}

// histBuckets is the number of records-per-batch buckets (powers of 2).
const histBuckets = 33

// histBucket is the bucket of a batch of n records: floor(log2 n).
func histBucket(n int64) int {
	b := 0
	for n > 1 && b < histBuckets-1 {
		n >>= 1
		b++
	}
	return b
}

// NewTraceBuilder starts a trace of topic with partitions partitions.
func NewTraceBuilder(topic string, partitions int, pid int64, epoch int16) *TraceBuilder {
	t := &Trace{Topic: topic, Partitions: partitions, ProducerID: pid, Epoch: epoch, stride: 1, shapes: [][]hdrLen{nil},
		logHist: make([]int64, histBuckets)}
	return &TraceBuilder{t: t, minMs: math.MaxInt64, shapeIdx: map[string]uint16{}, lastPart: -1}
}

// Len is how many records the builder holds.
func (tb *TraceBuilder) Len() int { return tb.t.recs.len() }

// Batch starts a batch of the log in partition part with bytes stored
// bytes; the records Add gets next belong to it.
func (tb *TraceBuilder) Batch(part int, bytes int64) {
	tb.endBatch()
	t := tb.t
	if part != tb.lastPart {
		tb.bounds = append(tb.bounds, t.recs.len())
		tb.lastPart = part
	}
	if t.logLayout == nil {
		t.logLayout = map[int32]*[3]int64{}
	}
	l := t.logLayout[int32(part)]
	if l == nil {
		l = new([3]int64)
		t.logLayout[int32(part)] = l
	}
	l[0]++
	l[2] += bytes
	tb.inBatch = true
	tb.batchRecs = 0
}

func (tb *TraceBuilder) endBatch() {
	if tb.inBatch && tb.batchRecs > 0 {
		tb.t.logHist[histBucket(tb.batchRecs)]++
	}
	tb.inBatch = false
}

// Add adds a record of the current batch: its timestamp, partition (-1:
// unkeyed, the partitioner chose it), key, value and headers.
func (tb *TraceBuilder) Add(tsMs int64, part int, key, value []byte, hdr []batch.RecordHeader) error {
	t := tb.t
	if t.recs.len() >= math.MaxUint32-1 {
		return fmt.Errorf("a session of more than %d records", math.MaxUint32-1)
	}
	if t.recs.len() == 0 {
		tb.base = tsMs - 1<<31
	}
	if d := tsMs - tb.base; d < 0 || d > math.MaxUint32 {
		return fmt.Errorf("the session's timestamps span more than 49 days (%d after %d)", tsMs, tb.base+1<<31)
	}
	if tb.batchRecs == 0 {
		i := t.recs.len()
		for len(t.first) <= i/64 {
			t.first = append(t.first, 0)
		}
		t.first[i/64] |= 1 << (i % 64)
	}
	tb.batchRecs++
	if tb.lastPart >= 0 {
		t.logLayout[int32(tb.lastPart)][1]++
	}
	r := traceRec{ms: uint32(tsMs - tb.base), keyLen: lenOrNull(key), valLen: lenOrNull(value), num: tb.n, part: int16(part), shape: tb.shape(hdr)}
	tb.n++
	t.recs.append(r)
	tb.minMs = min(tb.minMs, tsMs)
	tb.sample(r.num, key, value, hdr)
	return nil
}

func lenOrNull(b []byte) int32 {
	if b == nil {
		return -1
	}
	return int32(len(b))
}

// shape is the index of hdr's layout.
func (tb *TraceBuilder) shape(hdr []batch.RecordHeader) uint16 {
	if len(hdr) == 0 {
		return 0
	}
	tb.key = tb.key[:0]
	var tot int32
	lens := make([]hdrLen, len(hdr))
	for i, h := range hdr {
		lens[i] = hdrLen{lenOrNull(h.Key), lenOrNull(h.Value)}
		tb.key = strconv.AppendInt(tb.key, int64(lens[i].k), 10)
		tb.key = append(tb.key, ':')
		tb.key = strconv.AppendInt(tb.key, int64(lens[i].v), 10)
		tb.key = append(tb.key, ',')
		tot += int32(batch.RecordBodySize(0, 0, nil, nil, hdr[i:i+1]))
	}
	if i, ok := tb.shapeIdx[string(tb.key)]; ok {
		return i
	}
	t := tb.t
	if len(t.shapes) >= maxShapes {
		// the kept layout nearest in encoded size
		j, _ := slices.BinarySearchFunc(tb.shapeTot, tot, func(e struct {
			tot int32
			idx uint16
		}, x int32) int {
			return cmp.Compare(e.tot, x)
		})
		return tb.shapeTot[min(j, len(tb.shapeTot)-1)].idx
	}
	i := uint16(len(t.shapes))
	t.shapes = append(t.shapes, lens)
	tb.shapeIdx[string(tb.key)] = i
	e := struct {
		tot int32
		idx uint16
	}{tot, i}
	j, _ := slices.BinarySearchFunc(tb.shapeTot, tot, func(e struct {
		tot int32
		idx uint16
	}, x int32) int {
		return cmp.Compare(e.tot, x)
	})
	tb.shapeTot = slices.Insert(tb.shapeTot, j, e)
	return i
}

// sample keeps record num's bytes when num is a multiple of the stride,
// thinning the sample when it is full.
func (tb *TraceBuilder) sample(num uint32, key, value []byte, hdr []batch.RecordHeader) {
	t := tb.t
	if num%t.stride != 0 {
		return
	}
	n := max(0, len(key)) + max(0, len(value))
	for _, h := range hdr {
		n += len(h.Key) + len(h.Value)
	}
	for len(t.ring)+n > MaxSampleBytes || len(t.entries) >= maxSampleEntries {
		tb.thin()
		if num%t.stride != 0 {
			return
		}
	}
	t.entries = append(t.entries, uint32(len(t.ring)))
	t.ring = append(t.ring, key...)
	t.ring = append(t.ring, value...)
	for _, h := range hdr {
		t.ring = append(t.ring, h.Key...)
		t.ring = append(t.ring, h.Value...)
	}
}

// thin doubles the stride: every other kept record goes.
func (tb *TraceBuilder) thin() {
	t := tb.t
	w := 0
	var ring []byte
	for k := 0; k < len(t.entries); k += 2 {
		end := len(t.ring)
		if k+1 < len(t.entries) {
			end = int(t.entries[k+1])
		}
		off := len(ring)
		ring = append(ring, t.ring[t.entries[k]:end]...)
		t.entries[w] = uint32(off)
		w++
	}
	t.entries = t.entries[:w]
	t.ring = append(t.ring[:0], ring...)
	t.stride *= 2
}

// Build sorts the records into arrival order (by timestamp; a
// partition's records keep their offset order, partitions merge by time)
// and returns the trace. A session spanning more than 49 days is an
// error (its times are kept as uint32 milliseconds).
func (tb *TraceBuilder) Build() (*Trace, error) {
	tb.endBatch()
	t := tb.t
	n := t.recs.len()
	if n == 0 {
		return t, nil
	}
	t.StartMs = tb.minMs
	for len(t.first) < (n+63)/64 {
		t.first = append(t.first, 0)
	}
	shift := uint32(tb.minMs - tb.base)
	for i := range n {
		t.recs.at(i).ms -= shift
	}
	bounds := append(tb.bounds, n)
	for k := 0; k+1 < len(bounds); k++ {
		for i := bounds[k] + 1; i < bounds[k+1]; i++ {
			if t.recs.at(i).ms < t.recs.at(i-1).ms {
				tb.sortStable(bounds[k], bounds[k+1])
				break
			}
		}
	}
	if len(bounds) > 2 {
		tb.merge(bounds)
	}
	t.measureBursts()
	// each record's partition in the log is no longer needed past here
	return t, nil
}

// sortStable sorts recs[lo:hi] by time, keeping the order of ties, and
// moves the batch-start bits with them.
func (tb *TraceBuilder) sortStable(lo, hi int) {
	t := tb.t
	type pair struct {
		r     traceRec
		first bool
	}
	ps := make([]pair, hi-lo)
	for i := range ps {
		ps[i] = pair{*t.recs.at(lo + i), t.isFirst(lo + i)}
	}
	slices.SortStableFunc(ps, func(a, b pair) int { return cmp.Compare(a.r.ms, b.r.ms) })
	for i, p := range ps {
		*t.recs.at(lo + i) = p.r
		t.setFirst(lo+i, p.first)
	}
}

// merge merges the sorted runs recs[bounds[k]:bounds[k+1]] by time (ties
// in run order) in place: a k-way merge gives the permutation, which is
// then applied by following its cycles.
func (tb *TraceBuilder) merge(bounds []int) {
	t := tb.t
	n := t.recs.len()
	h := &runHeap{recs: &t.recs}
	for k := 0; k+1 < len(bounds); k++ {
		if bounds[k] < bounds[k+1] {
			h.runs = append(h.runs, [2]int{bounds[k], bounds[k+1]})
		}
	}
	heap.Init(h)
	src := make([]uint32, n) // src[i]: the record that goes to position i
	for i := 0; i < n; i++ {
		r := &h.runs[0]
		src[i] = uint32(r[0])
		r[0]++
		if r[0] == r[1] {
			heap.Pop(h)
		} else {
			heap.Fix(h, 0)
		}
	}
	firsts := make([]uint64, len(t.first))
	for i := range n {
		if t.isFirst(int(src[i])) {
			firsts[i/64] |= 1 << (i % 64)
		}
	}
	t.first = firsts
	// apply: position i takes src[i]; cycles, marking done with MaxUint32
	for i := range n {
		if src[i] == math.MaxUint32 || int(src[i]) == i {
			continue
		}
		tmp := *t.recs.at(i)
		j := i
		for {
			k := int(src[j])
			src[j] = math.MaxUint32
			if k == i {
				*t.recs.at(j) = tmp
				break
			}
			*t.recs.at(j) = *t.recs.at(k)
			j = k
		}
	}
}

type runHeap struct {
	recs *recStore
	runs [][2]int
}

func (h *runHeap) Len() int { return len(h.runs) }
func (h *runHeap) Less(i, j int) bool {
	a, b := h.recs.at(h.runs[i][0]).ms, h.recs.at(h.runs[j][0]).ms
	if a != b {
		return a < b
	}
	return h.runs[i][0] < h.runs[j][0]
}
func (h *runHeap) Swap(i, j int) { h.runs[i], h.runs[j] = h.runs[j], h.runs[i] }
func (h *runHeap) Push(x any)    { h.runs = append(h.runs, x.([2]int)) }
func (h *runHeap) Pop() any {
	x := h.runs[len(h.runs)-1]
	h.runs = h.runs[:len(h.runs)-1]
	return x
}

// view is records [lo, hi) of t (sharing its sample).
func (t *Trace) view(lo, hi int) *Trace {
	c := *t
	c.recs = t.recs.view(lo, hi)
	return &c
}

func (t *Trace) isFirst(i int) bool { return t.first[i/64]&(1<<(i%64)) != 0 }
func (t *Trace) setFirst(i int, v bool) {
	if v {
		t.first[i/64] |= 1 << (i % 64)
	} else {
		t.first[i/64] &^= 1 << (i % 64)
	}
}

// Len is the number of records.
func (t *Trace) Len() int { return t.recs.len() }

// rec is record i.
func (t *Trace) rec(i int) *traceRec { return t.recs.at(i) }

// Sampled reports whether some records take another record's bytes (the
// log's bytes exceeded MaxSampleBytes).
func (t *Trace) Sampled() bool { return t.stride > 1 }

// SpanMs is the time from the first record to the last.
func (t *Trace) SpanMs() int64 {
	if t.recs.len() == 0 {
		return 0
	}
	return int64(t.rec(t.recs.len() - 1).ms)
}

// Keyed is how many records keep their partition (had a key).
func (t *Trace) Keyed() int64 {
	var n int64
	for i := range t.recs.len() {
		if t.rec(i).part >= 0 {
			n++
		}
	}
	return n
}

// LogLayout is the log's own layout of the trace's records: per partition
// of the topic batches, records and stored bytes.
func (t *Trace) LogLayout() (batches, records, bytes []int64) {
	batches, records, bytes = make([]int64, t.Partitions), make([]int64, t.Partitions), make([]int64, t.Partitions)
	t.AddLogLayout(batches, records, bytes)
	return batches, records, bytes
}

// AddLogLayout adds the trace's LogLayout to batches, records and bytes
// (each of the topic's partition count).
func (t *Trace) AddLogLayout(batches, records, bytes []int64) {
	for p, l := range t.logLayout {
		batches[p] += l[0]
		records[p] += l[1]
		bytes[p] += l[2]
	}
}

// Evenly returns a copy of t whose arrivals are spread evenly over
// spanMs (0: all at once, a burst) in the log's order: the synthetic
// workload of a log whose timestamps are not arrivals.
func (t *Trace) Evenly(spanMs int64) *Trace {
	c := *t
	c.recs = t.recs.clone()
	n := int64(c.recs.len())
	for i := range c.recs.len() {
		if n > 1 {
			c.rec(i).ms = uint32(int64(i) * spanMs / (n - 1))
		} else {
			c.rec(i).ms = 0
		}
	}
	c.measureBursts()
	return &c
}

// record is record i's key, value and headers: the lengths are its own,
// the bytes its own or its stand-in's from the sample. They alias buffers
// valid until the next call.
func (t *Trace) record(i int64, buf *traceBuf) (key, value []byte, hdr []batch.RecordHeader) {
	r := t.rec(int(i))
	var off int
	if len(t.entries) > 0 {
		off = int(t.entries[min(int(r.num/t.stride), len(t.entries)-1)])
	}
	need := max(0, int(r.keyLen)) + max(0, int(r.valLen))
	sh := t.shapes[r.shape]
	for _, h := range sh {
		need += max(0, int(h.k)) + max(0, int(h.v))
	}
	var b []byte
	switch {
	case need == 0:
		b = nil
	case off+need <= len(t.ring):
		b = t.ring[off : off+need]
	case len(t.ring) == 0:
		if cap(buf.zero) < need {
			buf.zero = make([]byte, need)
		}
		b = buf.zero[:need]
	default:
		buf.wrap = buf.wrap[:0]
		for len(buf.wrap) < need {
			k := min(len(t.ring)-off, need-len(buf.wrap))
			buf.wrap = append(buf.wrap, t.ring[off:off+k]...)
			off = 0
		}
		b = buf.wrap
	}
	take := func(n int32) []byte {
		if n < 0 {
			return nil
		}
		x := b[:n:n]
		b = b[n:]
		return x
	}
	key = take(r.keyLen)
	if key == nil && r.keyLen == 0 {
		key = []byte{}
	}
	value = take(r.valLen)
	if value == nil && r.valLen == 0 {
		value = []byte{}
	}
	if len(sh) == 0 {
		return key, value, nil
	}
	buf.hdr = buf.hdr[:0]
	for _, h := range sh {
		k := take(h.k)
		if k == nil {
			k = []byte{}
		}
		v := take(h.v)
		if v == nil && h.v == 0 {
			v = []byte{}
		}
		buf.hdr = append(buf.hdr, batch.RecordHeader{Key: k, Value: v})
	}
	return key, value, buf.hdr
}

type traceBuf struct {
	wrap, zero []byte
	hdr        []batch.RecordHeader
}

// Spread is how the records of one millisecond are placed in it (a log
// keeps milliseconds; the model's clock has nanoseconds).
type Spread int

const (
	// SpreadBursts places the k records of a millisecond at j/k of it
	// (j = 0..k-1), as SpreadEven, but for the milliseconds of a burst
	// (a millisecond of at least Trace.densePerMs records, or one next to
	// it): their records follow each other at the session's peak rate
	// (Trace.peakPerMs a millisecond), packed against the burst's
	// neighbouring millisecond, or centred in a burst's only millisecond.
	// Spread evenly, a burst that crosses a millisecond boundary would last
	// up to two milliseconds where the application sent it in a fraction
	// of one.
	SpreadBursts Spread = iota
	// SpreadEven places the k records of a millisecond at j/k of it
	// (j = 0..k-1): a sender at a fixed rate is replayed as it sent.
	SpreadEven
	// SpreadRandom places them at sorted uniform random points of it, drawn
	// per run.
	SpreadRandom
)

// placement is where a millisecond's records go under SpreadBursts.
type placement uint8

const (
	placeEven   placement = iota // at j/k of the millisecond
	placeFirst                   // from its start, at the peak rate
	placeLast                    // up to its end, at the peak rate
	placeCentre                  // centred, at the peak rate
)

// arrivals is the application thread's schedule over a trace: record i's
// arrival in ns since the epoch.
type arrivals struct {
	t          *Trace
	spread     Spread
	rng        *rand.Rand
	runLo      int64 // the current millisecond's records: [runLo, runHi)
	runHi      int64
	place      placement // SpreadBursts: the current millisecond's
	lastMs     uint32    // the millisecond before it and its records
	lastK      int64
	pos        []float64 // SpreadRandom: the run's positions in [0, 1)
	baseNs     int64
	traceStart int64
	// early are the first records' arrivals in ns without the log's codec
	// load (Trace.withoutFirstUse), where they differ from the log's
	early []int64
}

func newArrivals(t *Trace, spread Spread, seed uint64, run int) *arrivals {
	a := &arrivals{t: t, spread: spread, baseNs: t.StartMs * 1e6}
	if spread == SpreadRandom {
		a.rng = rand.New(rand.NewPCG(seed, 0x737072656164+uint64(run))) // "spread"
	}
	return a
}

// at is record i's arrival; calls come with i increasing.
func (a *arrivals) at(i int64) int64 {
	if i < int64(len(a.early)) {
		return a.early[i]
	}
	t := a.t
	ms := t.rec(int(i)).ms
	if i >= a.runHi {
		if a.runHi > a.runLo {
			a.lastMs, a.lastK = t.rec(int(a.runLo)).ms, a.runHi-a.runLo
		}
		a.runLo, a.runHi = i, i+1
		for a.runHi < int64(t.Len()) && t.rec(int(a.runHi)).ms == ms {
			a.runHi++
		}
		if a.spread == SpreadBursts {
			a.place = a.placement(ms)
		}
		if a.spread == SpreadRandom {
			k := int(a.runHi - a.runLo)
			a.pos = a.pos[:0]
			sum := 0.0
			for range k + 1 {
				sum += a.rng.ExpFloat64()
				a.pos = append(a.pos, sum)
			}
			for j := range a.pos {
				a.pos[j] /= sum
			}
		}
	}
	k := a.runHi - a.runLo
	j := i - a.runLo
	var off int64
	switch a.spread {
	case SpreadRandom:
		off = int64(a.pos[j] * 1e6)
		off = min(off, 999999)
	default: // SpreadEven, and SpreadBursts (a.place stays placeEven under SpreadEven)
		off = j * 1e6 / k
		if a.place != placeEven {
			step := int64(1e6 / max(1, t.burstPace))
			switch a.place {
			case placeFirst:
				off = j * step
			case placeLast:
				off = 1e6 - (k-j)*step
			case placeCentre:
				off = (1e6-(k-1)*step)/2 + j*step
			}
			off = min(max(off, 0), 999999)
		}
	}
	return a.baseNs + int64(ms)*1e6 + off
}

// placement is where the records of millisecond ms, [runLo, runHi),
// go under SpreadBursts: a millisecond next to another of a burst holds
// the burst's start (packed against its end) or its end (packed against
// its start); one between two holds its middle, spread evenly; a burst's
// only millisecond is centred. The millisecond before the trace's (a
// window's) first is not known.
func (a *arrivals) placement(ms uint32) placement {
	t := a.t
	dense := t.dense
	k := a.runHi - a.runLo
	var prevK, nextK int64
	if a.runLo > 0 && a.lastK > 0 && a.lastMs+1 == ms {
		prevK = a.lastK
	}
	for i := a.runHi; i < int64(t.Len()) && t.rec(int(i)).ms == ms+1; i++ {
		nextK++
	}
	before := prevK > 0 && (dense(k) || dense(prevK))
	after := nextK > 0 && (dense(k) || dense(nextK))
	switch {
	case before && after:
		return placeEven
	case before:
		return placeFirst
	case after:
		return placeLast
	case dense(k):
		return placeCentre
	}
	return placeEven
}

// withoutFirstUse returns the arrivals of t's first records as they would
// have been without load, the first use of the codec the log was written
// with: Java loads a codec in the application thread's first send() that
// uses it, so the sends due meanwhile wait and then go out back to back.
// The log shows it as a gap after its first record (nil is returned when
// the gap is under half the load: the codec was loaded before, by another
// producer of the same JVM). Each waiting record moves back by the load,
// no further than the log's own pace allows: its typical spacing (the
// median over 16-record stretches, so that a burst, sent back to back
// anyway, moves back whole, and a fixed-rate sender returns to its
// schedule) from the first record. The waiting records end where the
// log's arrivals meet that pace again or the application paused (2 ms
// without a record: a burst ended).
func (t *Trace) withoutFirstUse(load time.Duration) []int64 {
	const stretch = 16
	n := t.Len()
	if load <= 0 || n < 2 {
		return nil
	}
	gapMs := int64(t.rec(1).ms) - int64(t.rec(0).ms)
	if time.Duration(gapMs)*time.Millisecond < load/2 {
		return nil
	}
	d := min(int64(load), gapMs*1e6)
	var spans []int64
	for i := 0; i+stretch < min(n, 20000); i += stretch / 2 {
		spans = append(spans, int64(t.rec(i+stretch).ms)-int64(t.rec(i).ms))
	}
	var pace float64 // ns between records
	if len(spans) > 0 {
		slices.Sort(spans)
		pace = float64(spans[len(spans)/2]) * 1e6 / stretch
	}
	base := t.StartMs * 1e6
	a0 := base + int64(t.rec(0).ms)*1e6
	out := []int64{a0}
	for i := 1; i < n; i++ {
		ms := int64(t.rec(i).ms)
		if i > 1 && ms-int64(t.rec(i-1).ms) >= 2 {
			break
		}
		ai := base + ms*1e6
		due := a0 + int64(float64(i)*pace)
		if due >= ai {
			break
		}
		out = append(out, max(ai-d, due))
	}
	if len(out) == 1 {
		return nil
	}
	return out
}
