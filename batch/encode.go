package batch

import (
	"encoding/binary"
	"fmt"
)

// RecordBodySize is DefaultRecord.sizeOfBodyInBytes: the record without its
// length prefix. A nil key or value is null (one byte, varint -1); a header
// with a nil Value has a null value.
func RecordBodySize(offsetDelta int32, tsDelta int64, key, value []byte, headers []RecordHeader) int {
	n := 1 + SizeOfVarlong(tsDelta) + SizeOfVarint(offsetDelta)
	n += sizeOfBytes(key)
	n += sizeOfBytes(value)
	n += SizeOfVarint(int32(len(headers)))
	for i := range headers {
		h := &headers[i]
		n += SizeOfVarint(int32(len(h.Key))) + len(h.Key)
		n += sizeOfBytes(h.Value)
	}
	return n
}

// RecordSizeInBytes is DefaultRecord.sizeInBytes: the encoded size of a
// record including its length prefix.
func RecordSizeInBytes(offsetDelta int32, tsDelta int64, key, value []byte, headers []RecordHeader) int {
	body := RecordBodySize(offsetDelta, tsDelta, key, value, headers)
	return body + SizeOfVarint(int32(body))
}

// MaxRecordOverhead is DefaultRecord.MAX_RECORD_OVERHEAD: length (5),
// timestamp delta (10), offset delta (5) and attributes (1) at their widest.
const MaxRecordOverhead = 21

// EstimateSizeUpperBound is AbstractRecords.estimateSizeInBytesUpperBound for
// magic v2: the most a batch holding just this record can take. The
// producer sizes a new batch's buffer with it and rejects records whose
// bound exceeds max.request.size.
func EstimateSizeUpperBound(key, value []byte, headers []RecordHeader) int {
	n := HeaderSize + MaxRecordOverhead + sizeOfBytes(key) + sizeOfBytes(value)
	n += SizeOfVarint(int32(len(headers)))
	for i := range headers {
		h := &headers[i]
		n += SizeOfVarint(int32(len(h.Key))) + len(h.Key)
		n += sizeOfBytes(h.Value)
	}
	return n
}

func sizeOfBytes(b []byte) int {
	if b == nil {
		return 1
	}
	return SizeOfVarint(int32(len(b))) + len(b)
}

func appendBytes(dst, b []byte) []byte {
	if b == nil {
		return AppendVarint(dst, -1)
	}
	dst = AppendVarint(dst, int32(len(b)))
	return append(dst, b...)
}

// AppendRecord appends r in the magic-v2 DefaultRecord layout: length,
// attributes, timestamp delta, offset delta, key, value, headers. r.Size is
// ignored; the length is computed.
func AppendRecord(dst []byte, r *Record) []byte {
	body := RecordBodySize(r.OffsetDelta, r.TimestampDelta, r.Key, r.Value, r.Headers)
	dst = AppendVarint(dst, int32(body))
	dst = append(dst, byte(r.Attributes))
	dst = AppendVarlong(dst, r.TimestampDelta)
	dst = AppendVarint(dst, r.OffsetDelta)
	dst = appendBytes(dst, r.Key)
	dst = appendBytes(dst, r.Value)
	dst = AppendVarint(dst, int32(len(r.Headers)))
	for i := range r.Headers {
		h := &r.Headers[i]
		dst = AppendVarint(dst, int32(len(h.Key)))
		dst = append(dst, h.Key...)
		dst = appendBytes(dst, h.Value)
	}
	return dst
}

// Builder accumulates the records of one magic-v2 batch, as
// MemoryRecordsBuilder does, and produces the finished batch bytes. The
// records are kept uncompressed; Build compresses them in one stream.
// The zero Builder is not usable; call Reset first.
type Builder struct {
	codec         Codec
	records       []byte // uncompressed records, back to back
	n             int32
	baseTimestamp int64
	maxTimestamp  int64
}

// NewBuilder returns an empty builder for codec.
func NewBuilder(codec Codec) *Builder {
	b := &Builder{}
	b.Reset(codec)
	return b
}

// Reset empties the builder for a new batch, keeping its buffer.
func (b *Builder) Reset(codec Codec) {
	b.codec = codec
	b.records = b.records[:0]
	b.n = 0
	b.baseTimestamp = NoTimestamp
	b.maxTimestamp = NoTimestamp
}

// Codec is the codec the batch will be written with.
func (b *Builder) Codec() Codec { return b.codec }

// NumRecords is the number of records appended so far.
func (b *Builder) NumRecords() int { return int(b.n) }

// UncompressedBytes is the sum of the appended records' sizes
// (MemoryRecordsBuilder.uncompressedRecordsSizeInBytes).
func (b *Builder) UncompressedBytes() int { return len(b.records) }

// RecordBytes is the uncompressed records section as appended so far
// (valid until the next Append or Reset).
func (b *Builder) RecordBytes() []byte { return b.records }

// SizeOfNext is the size the next record would take with its real deltas
// (the recordSize of MemoryRecordsBuilder.hasRoomFor).
func (b *Builder) SizeOfNext(ts int64, key, value []byte, headers []RecordHeader) int {
	delta := int64(0)
	if b.n > 0 {
		delta = ts - b.baseTimestamp
	}
	return RecordSizeInBytes(b.n, delta, key, value, headers)
}

// Append adds a record with timestamp ts and returns its encoded size.
func (b *Builder) Append(ts int64, key, value []byte, headers []RecordHeader) int {
	if b.n == 0 {
		b.baseTimestamp = ts
	}
	if ts > b.maxTimestamp {
		b.maxTimestamp = ts
	}
	before := len(b.records)
	r := Record{TimestampDelta: ts - b.baseTimestamp, OffsetDelta: b.n, Key: key, Value: value, Headers: headers}
	b.records = AppendRecord(b.records, &r)
	b.n++
	return len(b.records) - before
}

// Build appends the finished batch to dst. From h it takes BaseOffset,
// PartitionLeaderEpoch, ProducerID, ProducerEpoch, BaseSequence and the
// attribute bits other than the codec (timestamp type, transactional,
// control); for LogAppendTime batches h.MaxTimestamp is kept, otherwise the
// largest record timestamp is written. Length, CRC, codec bits, counts and
// timestamps are filled in. c may be nil for CodecNone.
func (b *Builder) Build(dst []byte, h Header, c *Compressor) ([]byte, error) {
	if b.n == 0 {
		return dst, fmt.Errorf("batch: Build of an empty batch")
	}
	h.Magic = MagicV2
	h.Attributes = h.Attributes&^attrCodecMask | int16(b.codec)&attrCodecMask
	h.LastOffsetDelta = b.n - 1
	h.RecordCount = b.n
	h.BaseTimestamp = b.baseTimestamp
	if h.Attributes&attrLogAppendTime == 0 {
		h.MaxTimestamp = b.maxTimestamp
	}
	h.CRC = 0
	h.Length = 0
	start := len(dst)
	dst = AppendHeader(dst, &h)
	if b.codec == CodecNone {
		dst = append(dst, b.records...)
	} else {
		if c == nil {
			c = &Compressor{}
		}
		var err error
		dst, err = c.Compress(b.codec, dst, b.records)
		if err != nil {
			return dst[:start], err
		}
	}
	SetCRC(dst[start:])
	return dst, nil
}

// SetBaseOffset rewrites a finished batch's base offset, as the broker does
// on append. The CRC does not cover it.
func SetBaseOffset(batch []byte, base int64) {
	binary.BigEndian.PutUint64(batch[0:], uint64(base))
}

// SetPartitionLeaderEpoch rewrites the leader epoch (not covered by the CRC).
func SetPartitionLeaderEpoch(batch []byte, epoch int32) {
	binary.BigEndian.PutUint32(batch[12:], uint32(epoch))
}

// SetLogAppendTime marks a finished batch LogAppendTime with maxTimestamp
// ts and recomputes its CRC, as LogValidator does in place.
func SetLogAppendTime(batch []byte, ts int64) {
	a := binary.BigEndian.Uint16(batch[21:])
	binary.BigEndian.PutUint16(batch[21:], a|attrLogAppendTime)
	binary.BigEndian.PutUint64(batch[35:], uint64(ts))
	SetCRC(batch)
}

// SetProducerState rewrites producer id, epoch and base sequence of a
// finished batch and recomputes its CRC.
func SetProducerState(batch []byte, pid int64, epoch int16, baseSeq int32) {
	binary.BigEndian.PutUint64(batch[43:], uint64(pid))
	binary.BigEndian.PutUint16(batch[51:], uint16(epoch))
	binary.BigEndian.PutUint32(batch[53:], uint32(baseSeq))
	SetCRC(batch)
}

// AttrLogAppendTime is the attribute bit callers may set in the Header
// handed to Build.
const AttrLogAppendTime int16 = attrLogAppendTime
