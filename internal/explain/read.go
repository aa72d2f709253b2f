// Package explain infers, from the batches of a log, why each batch was cut
// and which producer settings made the log: batch.size and linger.ms
// intervals, compression and the ratio the producer estimated, idempotence,
// partitioner, sync sends. It reads batches through package segment and
// applies the sizing rules of the Java producer (docs/producer-model.md);
// rendering is in report (report/explain.go).
package explain

import (
	"github.com/kseg/kseg/batch"
	"github.com/kseg/kseg/segment"
)

// Cut reasons (the same words as producer.Cut*).
const (
	CutSize        = "size"
	CutLargeRecord = "large-record"
	CutSync        = "sync"
	CutLinger      = "linger"
	CutFlush       = "flush"
	CutDrain       = "drain"
	CutUnknown     = "unknown"
)

// Cuts lists the reasons in output order.
var Cuts = []string{CutSize, CutLinger, CutSync, CutDrain, CutFlush, CutLargeRecord, CutUnknown}

// Batch is one data batch of the log and its inferred cut. Its fields are
// ordered to pack (TestExplainBytesPerBatch measures what a batch costs).
type Batch struct {
	BaseOffset int64
	LastOffset int64
	Records    int
	Bytes      int64 // stored size of the batch
	ProducerID int64

	FirstTs int64 // baseTimestamp: the first record's timestamp
	LastTs  int64 // the last record's timestamp
	MaxStep int64 // the longest wait between two consecutive records of the batch

	prod *Producer
	next *Batch // the next batch of the same producer in this partition
	// succ is the batch whose first record was the producer's next record
	// after b's last: next, or with a sticky partitioner possibly another
	// partition's (the record that did not fit went there).
	succ  *Batch
	first sample // the first record, to size it as the next record of the previous batch
	ratio [2]float32

	Partition    int32
	BaseSequence int32
	Uncompressed int32 // Σ record sizes as the producer counted them
	LastSize     int32 // size of the last record
	FirstUB      int32 // upper-bound batch size of the first record (its buffer, if above batch.size)
	KeysAgree    int32 // records whose key hashes (murmur2) to this partition
	KeysDisagree int32
	NullKeys     int32
	idx          int32

	ProducerEpoch int16
	Codec         batch.Codec
	Legacy        bool // magic 0/1: no record timestamps or sizes to reason with
	// ev is the batch's cut and the evidence for it (Cut, Evidence): the
	// sentence is built from the batch's fields and its producer's (prod)
	// when asked for, so a batch holds no string of its own.
	ev          evidenceKind
	firstHasKey bool // first.keyHash is a key's
}

// sample is what it takes to size a record at another position, and no
// more: the record's bytes are not kept, so a log of large records costs
// a few words per batch, not its values.
type sample struct {
	ts       int64
	keyHash  uint64 // FNV-1a of the key, when there is one (Like counts distinct keys)
	body     int32  // DefaultRecord body size at offset and timestamp delta 0
	valueLen int32  // -1: a null value
}

// newSample samples rec; hasKey tells that it has a key.
func newSample(ts int64, rec *batch.Record) (s sample, hasKey bool) {
	s = sample{ts: ts, body: int32(batch.RecordBodySize(0, 0, rec.Key, rec.Value, rec.Headers)), valueLen: -1}
	if rec.Value != nil {
		s.valueLen = int32(len(rec.Value))
	}
	if rec.Key != nil {
		h := uint64(14695981039346656037) // FNV-1a, as hash/fnv's New64a
		for _, c := range rec.Key {
			h = (h ^ uint64(c)) * 1099511628211
		}
		s.keyHash, hasKey = h, true
	}
	return s, hasKey
}

// nextSize is the size the successor's first record would have had as
// record number b.Records of b (DefaultRecord.sizeInBytes with its real
// deltas: the body at delta 0 has one-byte varints for both).
func (b *Batch) nextSize() int {
	n := b.succ.first
	body := int(n.body) - 2 + batch.SizeOfVarlong(n.ts-b.FirstTs) + batch.SizeOfVarint(int32(b.Records))
	return body + batch.SizeOfVarint(int32(body))
}

// gap is the time from b's first record to the next batch's first record.
func (b *Batch) gap() int64 { return b.succ.first.ts - b.FirstTs }

// prompt: the next record came no later after b's last than b's records
// came after each other (at least 1 ms of slack). A size cut whose next
// record was not prompt may as well have been an explicit flush().
func (b *Batch) prompt() bool { return b.succ.first.ts-b.LastTs <= max(1, b.MaxStep) }

// span is the time b's records cover.
func (b *Batch) span() int64 { return b.LastTs - b.FirstTs }

// readPartition reads the data batches of p (control batches are skipped:
// the producer does not form them). numPartitions is the topic's partition
// count for the key check (0: no check).
//
// locs[i] is where out[i] is: its segment (an index into p.Segments) and
// byte position, for the producer model to read its producer's records
// again without reading every other producer's (readSpan).
//
// At most limit data batches holding records are read: when another
// follows them, unreadFrom is its base offset (else -1) and the rest of p
// is not read.
func readPartition(p *segment.Partition, numPartitions int, partitionFor func([]byte, int) int, limit int) (out []*Batch, locs []batchLoc, unreadFrom int64, err error) {
	unreadFrom = -1
	counted := 0
	var slab []Batch // batches are allocated a slab at a time: no per-batch object
	st := &segment.Stream{}
	defer st.Close()
	var rec batch.Record
	for k, seg := range p.Segments {
		if err := st.OpenSegment(seg, 0); err != nil {
			return out, locs, unreadFrom, err
		}
		for st.Next() {
			sb := st.Batch()
			info, err := sb.Info()
			if err != nil {
				return out, locs, unreadFrom, err
			}
			if info.Control {
				continue
			}
			if info.Records > 0 { // as segment.CountData counts them
				if counted == limit {
					return out, locs, info.BaseOffset, nil
				}
				counted++
			}
			locs = append(locs, batchLoc{seg: int32(k), pos: sb.Pos})
			if len(slab) == cap(slab) {
				slab = make([]Batch, 0, min(4096, max(64, 2*cap(slab))))
			}
			slab = append(slab, Batch{Partition: p.Partition, BaseOffset: info.BaseOffset, LastOffset: info.LastOffset,
				Records: info.Records, Bytes: info.Size, Codec: info.Codec, ProducerID: info.ProducerID,
				ProducerEpoch: info.ProducerEpoch, BaseSequence: info.BaseSequence})
			b := &slab[len(slab)-1]
			out = append(out, b)
			if sb.IsLegacy() {
				b.Legacy = true
				b.ev = evLegacy
				continue
			}
			b.FirstTs = sb.Header.BaseTimestamp
			br, err := sb.Records()
			if err != nil {
				return out, locs, unreadFrom, err
			}
			i := 0
			for {
				ok, err := br.Next(&rec)
				if err != nil {
					// br's positions are the batch's own: name the file
					// and the absolute byte, as dump does.
					return out, locs, unreadFrom, segment.Locate(sb.File, sb.Pos, err)
				}
				if !ok {
					break
				}
				ts := b.FirstTs + rec.TimestampDelta
				if i > 0 {
					b.MaxStep = max(b.MaxStep, ts-b.LastTs)
				}
				b.Uncompressed += int32(rec.Size)
				b.LastSize = int32(rec.Size)
				b.LastTs = ts
				if i == 0 {
					b.first, b.firstHasKey = newSample(ts, &rec)
					b.FirstUB = int32(batch.EstimateSizeUpperBound(rec.Key, rec.Value, rec.Headers))
				}
				switch {
				case rec.Key == nil:
					b.NullKeys++
				case numPartitions > 0 && partitionFor(rec.Key, numPartitions) == int(p.Partition):
					b.KeysAgree++
				default:
					b.KeysDisagree++
				}
				i++
			}
			b.Records = i
		}
		if err := st.Err(); err != nil {
			return out, locs, unreadFrom, err
		}
	}
	return out, locs, unreadFrom, nil
}

// batchLoc is where a batch is: a segment of its partition and a byte.
type batchLoc struct {
	seg int32
	pos int64
}

// readSpan is the bytes [lo, hi] (hi: the last batch's position) of one
// segment of a producer's source (Producer.sources) that hold the
// producer's batches there.
type readSpan struct {
	src, seg int32
	lo, hi   int64
}
