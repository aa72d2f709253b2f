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
func LegacyInner(w *LegacyMessage, d *Decompressor, dst []LegacyMessage) ([]LegacyMessage, error) {
	dst = dst[:0]
	codec := w.Codec()
	if codec == CodecNone {
		return append(dst, *w), nil
	}
	if codec == CodecZstd || !codec.Valid() {
		return nil, formatErr(LogOverhead+5, ErrUnknownCodec, "Invalid wrapper compressionType found in legacy deep record iterator %d", w.Magic)
	}
	if w.Value == nil {
		return nil, formatErr(LogOverhead, ErrInvalidRecord, "Found invalid compressed record set with null value (magic = %d)", w.Magic)
	}
	raw, err := d.Decompress(codec, w.Value, w.Magic)
	if err != nil {
		return nil, err
	}
	for p := 0; len(raw)-p >= LogOverhead; {
		size := int32(binary.BigEndian.Uint32(raw[p+8:]))
		if size < MinEntrySize {
			return nil, formatErr(p, ErrCorrupt, "Record size is less than the minimum record overhead (14)")
		}
		if int64(len(raw)-p) < LogOverhead+int64(size) {
			break // a truncated final inner entry is ignored
		}
		inner, err := ParseLegacy(raw[p:])
		if err != nil {
			return nil, err
		}
		if inner.Codec() != CodecNone {
			return nil, formatErr(p, ErrInvalidRecord, "Inner messages must not be compressed")
		}
		if w.TimestampType() == LogAppendTime {
			inner.Timestamp = w.Timestamp
			inner.Attributes |= attrLogAppendTime
		}
		dst = append(dst, inner)
		p += int(inner.EntrySize())
	}
	if len(dst) == 0 {
		return nil, formatErr(LogOverhead, ErrInvalidRecord, "Found invalid compressed record set with no inner records")
	}
	if w.Magic == MagicV1 && w.Offset != 0 {
		last := dst[len(dst)-1].Offset
		if w.Offset < last {
			return nil, formatErr(0, ErrInvalidRecord, "Found invalid wrapper offset in compressed v1 message set, wrapper offset '%d' is less than the last inner message offset '%d' and it is not zero.", w.Offset, last)
		}
		base := w.Offset - last
		for i := range dst {
			dst[i].Offset += base
		}
	}
	return dst, nil
}

// LegacyCRC is the CRC-32 (IEEE) a legacy entry stores: over its message
// from the magic byte to the end. entry must be exactly the whole entry.
func LegacyCRC(entry []byte) uint32 { return crc32.ChecksumIEEE(entry[LogOverhead+4:]) }
