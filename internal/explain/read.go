// Package explain infers, from the batches of a log, why each batch was cut
// and which producer settings made the log: batch.size and linger.ms
// intervals, compression and the ratio the producer estimated, idempotence,
// partitioner, sync sends. It reads batches through package segment and
// applies the sizing rules of the Java producer (docs/producer-model.md);
// rendering is in report (report/explain.go).
package explain

import (
	"hash/fnv"

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

// Batch is one data batch of the log and its inferred cut.
type Batch struct {
	Topic         string
	Partition     int32
	BaseOffset    int64
	LastOffset    int64
	Records       int
	Bytes         int64 // stored size of the batch
	Codec         batch.Codec
	ProducerID    int64
	ProducerEpoch int16
	BaseSequence  int32
	Legacy        bool // magic 0/1: no record timestamps or sizes to reason with

	FirstTs      int64 // baseTimestamp: the first record's timestamp
	LastTs       int64 // the last record's timestamp
	Uncompressed int   // Σ record sizes as the producer counted them
	LastSize     int   // size of the last record
	MaxStep      int64 // the longest wait between two consecutive records of the batch
	FirstUB      int   // upper-bound batch size of the first record (its buffer, if above batch.size)
	KeysAgree    int   // records whose key hashes (murmur2) to this partition
	KeysDisagree int
	NullKeys     int

	Cut      string
	Evidence string

	first sample // the first record, to size it as the next record of the previous batch
	next  *Batch // the next batch of the same producer in this partition
	// succ is the batch whose first record was the producer's next record
	// after b's last: next, or with a sticky partitioner possibly another
	// partition's (the record that did not fit went there).
	succ  *Batch
	ratio [2]float32
	idx   int
}

// sample is what it takes to size a record at another position, and no
// more: the record's bytes are not kept, so a log of large records costs
// a few words per batch, not its values.
type sample struct {
	ts       int64
	body     int    // DefaultRecord body size at offset and timestamp delta 0
	valueLen int    // -1: a null value
	keyHash  uint64 // of the key, when hasKey (Like counts distinct keys)
	hasKey   bool
}

func newSample(ts int64, rec *batch.Record) sample {
	s := sample{ts: ts, body: batch.RecordBodySize(0, 0, rec.Key, rec.Value, rec.Headers), valueLen: -1}
	if rec.Value != nil {
		s.valueLen = len(rec.Value)
	}
	if rec.Key != nil {
		h := fnv.New64a()
		h.Write(rec.Key)
		s.keyHash, s.hasKey = h.Sum64(), true
	}
	return s
}

// nextSize is the size the successor's first record would have had as
// record number b.Records of b (DefaultRecord.sizeInBytes with its real
// deltas: the body at delta 0 has one-byte varints for both).
func (b *Batch) nextSize() int {
	n := b.succ.first
	body := n.body - 2 + batch.SizeOfVarlong(n.ts-b.FirstTs) + batch.SizeOfVarint(int32(b.Records))
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
func readPartition(p *segment.Partition, numPartitions int, partitionFor func([]byte, int) int) ([]*Batch, error) {
	var out []*Batch
	st := &segment.Stream{}
	defer st.Close()
	var rec batch.Record
	for _, seg := range p.Segments {
		if err := st.OpenSegment(seg, 0); err != nil {
			return out, err
		}
		for st.Next() {
			sb := st.Batch()
			info, err := sb.Info()
			if err != nil {
				return out, err
			}
			if info.Control {
				continue
			}
			b := &Batch{Topic: p.Topic, Partition: p.Partition, BaseOffset: info.BaseOffset, LastOffset: info.LastOffset,
				Records: info.Records, Bytes: info.Size, Codec: info.Codec, ProducerID: info.ProducerID,
				ProducerEpoch: info.ProducerEpoch, BaseSequence: info.BaseSequence}
			out = append(out, b)
			if sb.IsLegacy() {
				b.Legacy = true
				b.Cut, b.Evidence = CutUnknown, "legacy (magic 0/1) entry: no producer batching to reason with"
				continue
			}
			b.FirstTs = sb.Header.BaseTimestamp
			br, err := sb.Records()
			if err != nil {
				return out, err
			}
			i := 0
			for {
				ok, err := br.Next(&rec)
				if err != nil {
					// br's positions are the batch's own: name the file
					// and the absolute byte, as dump does.
					return out, segment.Locate(sb.File, sb.Pos, err)
				}
				if !ok {
					break
				}
				ts := b.FirstTs + rec.TimestampDelta
				if i > 0 {
					b.MaxStep = max(b.MaxStep, ts-b.LastTs)
				}
				b.Uncompressed += rec.Size
				b.LastSize = rec.Size
				b.LastTs = ts
				if i == 0 {
					b.first = newSample(ts, &rec)
					b.FirstUB = batch.EstimateSizeUpperBound(rec.Key, rec.Value, rec.Headers)
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
			return out, err
		}
	}
	return out, nil
}
