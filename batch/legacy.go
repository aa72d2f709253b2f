package batch

import (
	"encoding/binary"
	"hash/crc32"
)

// LegacyMessage is a magic v0 or v1 message with its 12-byte log overhead.
// Key and Value alias the input; nil means null.
type LegacyMessage struct {
	Offset     int64
	Size       int32 // message bytes after the log overhead
	CRC        uint32
	Magic      int8
	Attributes int8
	Timestamp  int64 // -1 for v0
	Key        []byte
	Value      []byte
	valid      bool
}

const (
	legacyHeaderV0 = 6  // crc + magic + attributes
	legacyHeaderV1 = 14 // + timestamp
)

// ParseLegacy decodes one legacy entry: offset, size and the message of
// size bytes. entry must hold at least 12+size bytes.
func ParseLegacy(entry []byte) (LegacyMessage, error) {
	m, p, err := parseLegacyHeader(entry)
	if err != nil {
		return m, err
	}
	msg := entry[LogOverhead : LogOverhead+int(m.Size)]
	var ok bool
	if m.Key, p, ok = readInt32Bytes(msg, p); !ok {
		return m, formatErr(LogOverhead+p, ErrTruncated, "legacy message key runs past the message")
	}
	if m.Value, _, ok = readInt32Bytes(msg, p); !ok {
		return m, formatErr(LogOverhead+p, ErrTruncated, "legacy message value runs past the message")
	}
	return m, nil
}

// ParseLegacyHeader decodes a legacy entry up to its timestamp and checks
// its CRC, leaving key and value alone: what Kafka's shallow iteration
// reads for the batch line. A key or value length that overruns the
// message only fails ParseLegacy (Kafka's deep iteration).
func ParseLegacyHeader(entry []byte) (LegacyMessage, error) {
	m, _, err := parseLegacyHeader(entry)
	return m, err
}

// LegacySizes reads a legacy message's key and value length fields as
// Kafka's LegacyRecord.keySize and valueSize do, without checking them
// against the message. ok is false when the header does not parse or a
// length field itself lies outside the message.
func LegacySizes(entry []byte) (keySize, valueSize int32, ok bool) {
	m, p, err := parseLegacyHeader(entry)
	if err != nil {
		return 0, 0, false
	}
	msg := entry[LogOverhead : LogOverhead+int(m.Size)]
	if len(msg)-p < 4 {
		return 0, 0, false
	}
	keySize = int32(binary.BigEndian.Uint32(msg[p:]))
	q := int64(p) + 4 + int64(max(keySize, 0))
	if int64(len(msg))-q < 4 {
		return keySize, 0, false
	}
	return keySize, int32(binary.BigEndian.Uint32(msg[q:])), true
}

func parseLegacyHeader(entry []byte) (LegacyMessage, int, error) {
	m, err := legacyHeader(entry)
	p := legacyHeaderV0
	if m.Magic == MagicV1 {
		p = legacyHeaderV1
	}
	return m, p, err
}

func legacyHeader(entry []byte) (LegacyMessage, error) {
	var m LegacyMessage
	if len(entry) < LogOverhead {
		return m, formatErr(len(entry), ErrTruncated, "legacy message needs 12 bytes of log overhead")
	}
	m.Offset = int64(binary.BigEndian.Uint64(entry))
	m.Size = int32(binary.BigEndian.Uint32(entry[8:]))
	if m.Size < MinEntrySize {
		return m, formatErr(8, ErrCorrupt, "Record size is less than the minimum record overhead (14)")
	}
	if int64(len(entry)) < LogOverhead+int64(m.Size) {
		return m, formatErr(len(entry), ErrTruncated, "legacy message of %d bytes runs past the end of its buffer", m.Size)
	}
	msg := entry[LogOverhead : LogOverhead+int(m.Size)]
	m.CRC = binary.BigEndian.Uint32(msg)
	m.Magic = int8(msg[4])
	m.Attributes = int8(msg[5])
	m.Timestamp = NoTimestamp
	if m.Magic == MagicV1 {
		if len(msg) < legacyHeaderV1+8 {
			return m, formatErr(LogOverhead+len(msg), ErrTruncated, "v1 message shorter than its 22-byte overhead")
		}
		m.Timestamp = int64(binary.BigEndian.Uint64(msg[6:]))
	} else if m.Magic != MagicV0 {
		return m, formatErr(LogOverhead+4, ErrCorrupt, "legacy message with magic %d", m.Magic)
	}
	m.valid = crc32.ChecksumIEEE(msg[4:]) == m.CRC
	return m, nil
}

func readInt32Bytes(b []byte, p int) ([]byte, int, bool) {
	if len(b)-p < 4 {
		return nil, p, false
	}
	l := int32(binary.BigEndian.Uint32(b[p:]))
	p += 4
	if l < 0 {
		return nil, p, true
	}
	if int(l) > len(b)-p {
		return nil, p, false
	}
	return b[p : p+int(l) : p+int(l)], p + int(l), true
}

// Valid is Kafka's isValid: the CRC-32 (IEEE) over magic..end matches.
func (m *LegacyMessage) Valid() bool { return m.valid }

// Codec is the wrapper codec (zstd is not legal in legacy messages).
func (m *LegacyMessage) Codec() Codec { return Codec(m.Attributes & attrCodecMask) }

// TimestampType is NoTimestampType for v0, else from attribute bit 3.
func (m *LegacyMessage) TimestampType() TimestampType {
	if m.Magic == MagicV0 {
		return NoTimestampType
	}
	if m.Attributes&attrLogAppendTime != 0 {
		return LogAppendTime
	}
	return CreateTime
}

// EntrySize is the whole entry: log overhead plus message.
func (m *LegacyMessage) EntrySize() int64 { return LogOverhead + int64(m.Size) }

// LegacyInner decompresses a compressed wrapper and returns its inner
// messages with absolute offsets, as AbstractLegacyRecordBatch's deep
// iterator does. The messages alias d's buffer until d is used again.
// A wrapper of many tiny messages makes a long slice: LegacyIter walks
// them one at a time instead.
func LegacyInner(w *LegacyMessage, d *Decompressor, dst []LegacyMessage) ([]LegacyMessage, error) {
	dst = dst[:0]
	var it LegacyIter
	if err := it.Open(w, d); err != nil {
		return nil, err
	}
	for it.Next() {
		dst = append(dst, *it.Message())
	}
	return dst, nil
}

// LegacyIter walks a legacy entry's messages (a compressed wrapper's inner
// messages, or the message itself) one at a time, holding none of them:
// memory is the decompressed bytes, however many messages they hold. Open
// checks every inner message first, so it fails exactly where and how
// LegacyInner does, before any message is seen.
//
//	var it LegacyIter
//	if err := it.Open(w, d); err != nil { ... }
//	for it.Next() { m := it.Message(); ... }
type LegacyIter struct {
	w         *LegacyMessage
	raw       []byte // decompressed inner entries; nil for an uncompressed entry
	n, i      int    // messages, messages returned
	p         int    // next inner entry in raw
	base      int64  // added to inner offsets (v1 relative offsets)
	first     int64
	innerSize int64
	cur       LegacyMessage
}

// Open decompresses w (a compressed wrapper) and checks its inner
// messages; the messages alias d's buffer until d is used again.
func (it *LegacyIter) Open(w *LegacyMessage, d *Decompressor) error {
	*it = LegacyIter{w: w}
	codec := w.Codec()
	if codec == CodecNone {
		it.n, it.first = 1, w.Offset
		return nil
	}
	if codec == CodecZstd || !codec.Valid() {
		return formatErr(LogOverhead+5, ErrUnknownCodec, "Invalid wrapper compressionType found in legacy deep record iterator %d", w.Magic)
	}
	if w.Value == nil {
		return formatErr(LogOverhead, ErrInvalidRecord, "Found invalid compressed record set with null value (magic = %d)", w.Magic)
	}
	raw, err := d.Decompress(codec, w.Value, w.Magic)
	if err != nil {
		return err
	}
	n, p := 0, 0
	var first, last int64
	for len(raw)-p >= LogOverhead {
		size := int32(binary.BigEndian.Uint32(raw[p+8:]))
		if size < MinEntrySize {
			return formatErr(p, ErrCorrupt, "Record size is less than the minimum record overhead (14)")
		}
		if int64(len(raw)-p) < LogOverhead+int64(size) {
			break // a truncated final inner entry is ignored
		}
		inner, err := ParseLegacy(raw[p:])
		if err != nil {
			return err
		}
		if inner.Codec() != CodecNone {
			return formatErr(p, ErrInvalidRecord, "Inner messages must not be compressed")
		}
		if n == 0 {
			first = inner.Offset
		}
		last = inner.Offset
		n++
		p += int(inner.EntrySize())
	}
	if n == 0 {
		return formatErr(LogOverhead, ErrInvalidRecord, "Found invalid compressed record set with no inner records")
	}
	if w.Magic == MagicV1 && w.Offset != 0 {
		if w.Offset < last {
			return formatErr(0, ErrInvalidRecord, "Found invalid wrapper offset in compressed v1 message set, wrapper offset '%d' is less than the last inner message offset '%d' and it is not zero.", w.Offset, last)
		}
		it.base = w.Offset - last
	}
	it.raw, it.n, it.first, it.innerSize = raw, n, first+it.base, int64(p)
	return nil
}

// Len is the number of messages.
func (it *LegacyIter) Len() int { return it.n }

// FirstOffset is the first message's absolute offset.
func (it *LegacyIter) FirstOffset() int64 { return it.first }

// InnerSize is the bytes of a wrapper's inner entries (log overhead
// included), 0 for an uncompressed entry.
func (it *LegacyIter) InnerSize() int64 { return it.innerSize }

// Next advances to the next message.
func (it *LegacyIter) Next() bool {
	if it.i >= it.n {
		return false
	}
	it.i++
	if it.raw == nil {
		it.cur = *it.w
		return true
	}
	it.cur, _ = ParseLegacy(it.raw[it.p:]) // checked by Open
	it.p += int(it.cur.EntrySize())
	if it.w.TimestampType() == LogAppendTime {
		it.cur.Timestamp = it.w.Timestamp
		it.cur.Attributes |= attrLogAppendTime
	}
	it.cur.Offset += it.base
	return true
}

// Rewind starts the messages over (Open's checks and decompression are
// not repeated).
func (it *LegacyIter) Rewind() { it.i, it.p = 0, 0 }

// Message is the current message, valid until Next.
func (it *LegacyIter) Message() *LegacyMessage { return &it.cur }

// LegacyCRC is the CRC-32 (IEEE) a legacy entry stores: over its message
// from the magic byte to the end. entry must be exactly the whole entry.
func LegacyCRC(entry []byte) uint32 { return crc32.ChecksumIEEE(entry[LogOverhead+4:]) }
