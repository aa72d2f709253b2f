package producer

import (
	"math"

	"github.com/kseg/kseg/batch"
)

// compressionFactor is MemoryRecordsBuilder's
// COMPRESSION_RATE_ESTIMATION_FACTOR (1.05f).
const compressionFactor float32 = 1.05

// pbatch is a ProducerBatch: an open or closed batch in a partition's deque.
type pbatch struct {
	part       int
	b          *batch.Builder
	createdMs  int64
	writeLimit int
	ratio      float32 // estimatedCompressionRatio copied at creation
	closed     bool    // closedForAppends
	bufSize    int64   // buffer.memory held until the batch completes
	syncWait   bool    // the application waits for this batch's ack
	created    int64   // creation order
	stick      int64   // sticky period (switch count) at creation, -1 keyed

	closedBefore int64 // batches closed before this one was created
	first        int64 // the record that created it

	// light: a counting trace replay keeps no record bytes, only the
	// count, the uncompressed size and the base timestamp (b is nil); a
	// compressed one also keeps which records it holds, to build them once
	// at close for their compressed size. Open batches holding their bytes
	// took hundreds of megabytes when a slow sender let them queue.
	light bool
	codec batch.Codec
	ln    int32
	lunc  int
	lbase int64
	held  []heldRecord
}

// heldRecord is a record of a light compressed batch: its index in the
// simulation's records and its timestamp.
type heldRecord struct {
	i, ts int64
}

func (p *pbatch) numRecords() int {
	if p.light {
		return int(p.ln)
	}
	return p.b.NumRecords()
}

func (p *pbatch) uncBytes() int {
	if p.light {
		return p.lunc
	}
	return p.b.UncompressedBytes()
}

func (p *pbatch) sizeOfNext(ts int64, key, value []byte, hdr []batch.RecordHeader) int {
	if !p.light {
		return p.b.SizeOfNext(ts, key, value, hdr)
	}
	delta := int64(0)
	if p.ln > 0 {
		delta = ts - p.lbase
	}
	return batch.RecordSizeInBytes(p.ln, delta, key, value, hdr)
}

// add appends record i.
func (p *pbatch) add(i, ts int64, key, value []byte, hdr []batch.RecordHeader) {
	if !p.light {
		p.b.Append(ts, key, value, hdr)
		return
	}
	p.lunc += p.sizeOfNext(ts, key, value, hdr)
	if p.ln == 0 {
		p.lbase = ts
	}
	p.ln++
	if p.codec != batch.CodecNone {
		p.held = append(p.held, heldRecord{i, ts})
	}
}

// estimatedBytes is MemoryRecordsBuilder.estimatedBytesWritten, in Java's
// float32 arithmetic for compressed batches.
func (p *pbatch) estimatedBytes() int {
	unc := p.uncBytes()
	if p.light && p.codec == batch.CodecNone || !p.light && p.b.Codec() == batch.CodecNone {
		return batch.HeaderSize + unc
	}
	f := float32(float32(unc) * p.ratio)
	f = float32(f * compressionFactor)
	return batch.HeaderSize + int(f)
}

// isFull is MemoryRecordsBuilder.isFull.
func (p *pbatch) isFull() bool {
	return p.closed || (p.numRecords() > 0 && p.writeLimit <= p.estimatedBytes())
}

// hasRoomFor is MemoryRecordsBuilder.hasRoomFor with the record's real
// offset and timestamp deltas.
func (p *pbatch) hasRoomFor(ts int64, key, value []byte, hdr []batch.RecordHeader) bool {
	if p.isFull() {
		return false
	}
	if p.numRecords() == 0 {
		return true
	}
	return p.writeLimit >= p.estimatedBytes()+p.sizeOfNext(ts, key, value, hdr)
}

// deque is a partition's queue of batches (oldest first).
type deque struct {
	q []*pbatch
	h int
}

func (d *deque) len() int { return len(d.q) - d.h }

func (d *deque) first() *pbatch {
	if d.len() == 0 {
		return nil
	}
	return d.q[d.h]
}

func (d *deque) last() *pbatch {
	if d.len() == 0 {
		return nil
	}
	return d.q[len(d.q)-1]
}

func (d *deque) push(p *pbatch) { d.q = append(d.q, p) }

func (d *deque) pop() *pbatch {
	p := d.q[d.h]
	d.q[d.h] = nil
	d.h++
	if d.h == len(d.q) {
		d.q, d.h = d.q[:0], 0
	} else if d.h > 1024 && d.h > len(d.q)/2 {
		n := copy(d.q, d.q[d.h:])
		clear(d.q[n:])
		d.q, d.h = d.q[:n], 0
	}
	return p
}

// allFull is RecordAccumulator.allBatchesFull: no batch, or the last one is
// full.
func (d *deque) allFull() bool {
	l := d.last()
	return l == nil || l.isFull()
}

// estimator is CompressionRatioEstimator for one topic and codec.
type estimator struct{ e float32 }

const (
	ratioDeteriorateStep float32 = 0.05
	ratioImprovingStep   float32 = 0.005
)

// update is CompressionRatioEstimator.updateEstimation.
func (s *estimator) update(observed float32) {
	switch {
	case observed > s.e:
		s.e = float32(math.Max(float64(float32(s.e+ratioDeteriorateStep)), float64(observed)))
	case observed < s.e:
		s.e = float32(math.Max(float64(float32(s.e-ratioImprovingStep)), float64(observed)))
	}
}

// stickyPartitioner is BuiltInPartitioner for one topic (KIP-794), with a
// seeded generator in place of ThreadLocalRandom.
type stickyPartitioner struct {
	n         int
	batchSize int
	part      int // current sticky partition, -1 before first use
	produced  int
	rnd       func() uint32
	cft       []int // cumulative frequency table, nil without load stats
	ids       []int
	switches  int64
}

// nextPartition is BuiltInPartitioner.nextPartition. Every partition has a
// leader in the model, so "available" is all of them.
func (sp *stickyPartitioner) nextPartition() int {
	r := int(toPositive(int32(sp.rnd())))
	if sp.cft == nil {
		return r % sp.n
	}
	x := r % sp.cft[len(sp.cft)-1]
	for i, c := range sp.cft {
		if c > x {
			return sp.ids[i]
		}
	}
	return sp.ids[len(sp.ids)-1]
}

func (sp *stickyPartitioner) current() int {
	if sp.part < 0 {
		sp.part = sp.nextPartition()
		sp.produced = 0
	}
	return sp.part
}

// update is BuiltInPartitioner.updatePartitionInfo; it reports whether the
// sticky partition switched.
func (sp *stickyPartitioner) update(appended int, enableSwitch bool) bool {
	sp.produced += appended
	if (sp.produced >= sp.batchSize && enableSwitch) || sp.produced >= 2*sp.batchSize {
		sp.part = sp.nextPartition()
		sp.produced = 0
		sp.switches++
		return true
	}
	return false
}

// updateLoadStats is BuiltInPartitioner.updatePartitionLoadStats, fed the
// deque sizes of every partition (ascending), or nil when stats are off.
func (sp *stickyPartitioner) updateLoadStats(queue []int) {
	if len(queue) < 2 {
		sp.cft = nil
		return
	}
	maxPlus1 := queue[0]
	allEqual := true
	for _, q := range queue[1:] {
		if q != queue[0] {
			allEqual = false
		}
		maxPlus1 = max(maxPlus1, q)
	}
	maxPlus1++
	if allEqual {
		sp.cft = nil
		return
	}
	if cap(sp.cft) < len(queue) {
		sp.cft = make([]int, len(queue))
		sp.ids = make([]int, len(queue))
	}
	sp.cft, sp.ids = sp.cft[:len(queue)], sp.ids[:len(queue)]
	sum := 0
	for i, q := range queue {
		sum += maxPlus1 - q
		sp.cft[i] = sum
		sp.ids[i] = i
	}
}
