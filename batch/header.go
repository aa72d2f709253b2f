package batch

import (
	"encoding/binary"
	"hash/crc32"
)

// Sizes and sentinels from Kafka's RecordBatch/Records.
const (
	LogOverhead         = 12 // baseOffset int64 + length int32
	HeaderSize          = 61 // RECORD_BATCH_OVERHEAD, magic v2
	HeaderSizeUpToMagic = 17
	MinEntrySize        = 14 // LegacyRecord.RECORD_OVERHEAD_V0: smallest legal length field

	NoProducerID    int64 = -1
	NoProducerEpoch int16 = -1
	NoSequence      int32 = -1
	NoTimestamp     int64 = -1
	NoLeaderEpoch   int32 = -1

	MagicV0 = 0
	MagicV1 = 1
	MagicV2 = 2
)

// Attribute bits of a v2 batch (only the low byte is meaningful).
const (
	attrCodecMask        = 0x07
	attrLogAppendTime    = 0x08
	attrTransactional    = 0x10
	attrControl          = 0x20
	attrHasDeleteHorizon = 0x40
)

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// CRC32C is Kafka's v2 batch and producer-snapshot checksum.
func CRC32C(b []byte) uint32 { return crc32.Checksum(b, castagnoli) }

// TimestampType is how a batch's timestamps were assigned.
type TimestampType int8

const (
	NoTimestampType TimestampType = -1
	CreateTime      TimestampType = 0
	LogAppendTime   TimestampType = 1
)

func (t TimestampType) String() string {
	switch t {
	case CreateTime:
		return "CreateTime"
	case LogAppendTime:
		return "LogAppendTime"
	default:
		return "NoTimestampType"
	}
}

// Header is the fixed 61-byte front of a magic-v2 record batch, decoded
// without touching the records.
type Header struct {
	BaseOffset           int64
	Length               int32 // bytes after the length field; the batch is Length+12 bytes
	PartitionLeaderEpoch int32
	Magic                int8
	CRC                  uint32
	Attributes           int16
	LastOffsetDelta      int32
	BaseTimestamp        int64 // or the delete horizon when HasDeleteHorizon
	MaxTimestamp         int64
	ProducerID           int64
	ProducerEpoch        int16
	BaseSequence         int32
	RecordCount          int32
}

// ParseHeader decodes the v2 header at the start of b, which must hold at
// least HeaderSize bytes. It does no validation beyond the length: callers
// decide what a strange field means.
func ParseHeader(b []byte) (Header, error) {
	var h Header
	err := ParseHeaderInto(&h, b)
	return h, err
}

// ParseHeaderInto is ParseHeader into *h (left alone on error), for a
// caller that keeps the header in a larger struct: a Header returned and
// copied there is read back a word or two at a time just after its fields
// were written one by one, and each such load waits for the stores to
// reach the cache (no store forwarding across stores).
func ParseHeaderInto(h *Header, b []byte) error {
	if len(b) < HeaderSize {
		return &FormatError{Pos: int64(len(b)), Err: ErrTruncated, Detail: "batch header needs 61 bytes"}
	}
	_ = b[60]
	h.BaseOffset = int64(binary.BigEndian.Uint64(b[0:]))
	h.Length = int32(binary.BigEndian.Uint32(b[8:]))
	h.PartitionLeaderEpoch = int32(binary.BigEndian.Uint32(b[12:]))
	h.Magic = int8(b[16])
	h.CRC = binary.BigEndian.Uint32(b[17:])
	h.Attributes = int16(binary.BigEndian.Uint16(b[21:]))
	h.LastOffsetDelta = int32(binary.BigEndian.Uint32(b[23:]))
	h.BaseTimestamp = int64(binary.BigEndian.Uint64(b[27:]))
	h.MaxTimestamp = int64(binary.BigEndian.Uint64(b[35:]))
	h.ProducerID = int64(binary.BigEndian.Uint64(b[43:]))
	h.ProducerEpoch = int16(binary.BigEndian.Uint16(b[51:]))
	h.BaseSequence = int32(binary.BigEndian.Uint32(b[53:]))
	h.RecordCount = int32(binary.BigEndian.Uint32(b[57:]))
	return nil
}

// AppendHeader encodes h in the 61-byte v2 layout. The CRC field is written
// as h.CRC; use SetCRC after the records are in place.
func AppendHeader(dst []byte, h *Header) []byte {
	var b [HeaderSize]byte
	binary.BigEndian.PutUint64(b[0:], uint64(h.BaseOffset))
	binary.BigEndian.PutUint32(b[8:], uint32(h.Length))
	binary.BigEndian.PutUint32(b[12:], uint32(h.PartitionLeaderEpoch))
	b[16] = byte(h.Magic)
	binary.BigEndian.PutUint32(b[17:], h.CRC)
	binary.BigEndian.PutUint16(b[21:], uint16(h.Attributes))
	binary.BigEndian.PutUint32(b[23:], uint32(h.LastOffsetDelta))
	binary.BigEndian.PutUint64(b[27:], uint64(h.BaseTimestamp))
	binary.BigEndian.PutUint64(b[35:], uint64(h.MaxTimestamp))
	binary.BigEndian.PutUint64(b[43:], uint64(h.ProducerID))
	binary.BigEndian.PutUint16(b[51:], uint16(h.ProducerEpoch))
	binary.BigEndian.PutUint32(b[53:], uint32(h.BaseSequence))
	binary.BigEndian.PutUint32(b[57:], uint32(h.RecordCount))
	return append(dst, b[:]...)
}

// SetCRC fills the length and CRC fields of a complete v2 batch in place.
func SetCRC(batch []byte) {
	binary.BigEndian.PutUint32(batch[8:], uint32(len(batch)-LogOverhead))
	binary.BigEndian.PutUint32(batch[17:], CRC32C(batch[21:]))
}

// Size is the whole batch in bytes, log overhead included.
func (h *Header) Size() int64 { return int64(h.Length) + LogOverhead }

// LastOffset is the offset of the batch's last record (or last offset it
// covered before compaction).
func (h *Header) LastOffset() int64 { return h.BaseOffset + int64(h.LastOffsetDelta) }

// Codec is the compression codec in the attributes.
func (h *Header) Codec() Codec { return Codec(h.Attributes & attrCodecMask) }

func (h *Header) TimestampType() TimestampType {
	if h.Attributes&attrLogAppendTime != 0 {
		return LogAppendTime
	}
	return CreateTime
}

func (h *Header) IsTransactional() bool  { return h.Attributes&attrTransactional != 0 }
func (h *Header) IsControl() bool        { return h.Attributes&attrControl != 0 }
func (h *Header) HasDeleteHorizon() bool { return h.Attributes&attrHasDeleteHorizon != 0 }

// DeleteHorizon returns the cleaner's delete horizon when the batch has one.
func (h *Header) DeleteHorizon() (int64, bool) {
	if h.HasDeleteHorizon() {
		return h.BaseTimestamp, true
	}
	return 0, false
}

// LastSequence follows DefaultRecordBatch.lastSequence: -1 stays -1, and the
// sequence wraps past MaxInt32 to 0, never negative.
func (h *Header) LastSequence() int32 {
	if h.BaseSequence == NoSequence {
		return NoSequence
	}
	return IncrementSequence(h.BaseSequence, h.LastOffsetDelta)
}

// ComputeCRC returns the CRC-32C of a whole v2 batch's covered bytes
// (attributes to end). b must be the complete batch.
func ComputeCRC(b []byte) uint32 {
	if len(b) < HeaderSize {
		return 0
	}
	return CRC32C(b[21:])
}

// ValidCRC reports Kafka's isValid for a complete v2 batch.
func ValidCRC(b []byte) bool {
	if len(b) < HeaderSize {
		return false
	}
	return binary.BigEndian.Uint32(b[17:]) == CRC32C(b[21:])
}
