package index

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"path/filepath"

	"github.com/kseg/kseg/batch"
	"github.com/kseg/kseg/internal/rfile"
)

// Producer snapshot layout (Kafka's ProducerSnapshot version 1; docs/producer-model.md, Broker write path).
const (
	SnapshotVersion      = 1
	snapshotHeaderSize   = 10 // version(2) crc(4) count(4)
	snapshotCRCStart     = 6  // the CRC covers [6, len)
	ProducerEntrySize    = 46
	snapshotCountOffset  = 6
	snapshotEntriesStart = 10
)

// MaxSnapshotSize is the largest producer snapshot kseg reads: 64 MiB, the
// header and 1,458,888 producer entries of 46 bytes (docs/limits.md). Kafka
// reads a snapshot whole too, so its size is all that bounds the memory;
// a partition with more live producer ids than this is not one kseg can
// expect. A larger file, or anything that is not a regular file (a symlink
// to /dev/zero, a FIFO), is refused before its bytes are read, with an
// error matching ErrTooLarge (or rfile's not-a-regular-file error). The
// header's entry count is then checked against the bytes present before
// the entries are allocated (ParseSnapshot).
const MaxSnapshotSize = snapshotHeaderSize + 1458888*ProducerEntrySize

// ProducerEntry is one producer in a snapshot, as stored.
type ProducerEntry struct {
	ProducerID   int64
	Epoch        int16
	LastSequence int32
	// LastOffset is the last offset written by this producer; < 0 means
	// there is no batch metadata (Kafka writes -1).
	LastOffset       int64
	OffsetDelta      int32
	Timestamp        int64
	CoordinatorEpoch int32
	// CurrentTxnFirstOffset is the first offset of the open transaction;
	// < 0 means none (Kafka writes -1).
	CurrentTxnFirstOffset int64
}

// HasBatchMetadata reports whether Kafka would build batch metadata
// (lastOffset >= 0) and print the firstSequence... part of the dump line.
func (e ProducerEntry) HasBatchMetadata() bool { return e.LastOffset >= 0 }

// FirstSequence is BatchMetadata.firstSeq: decrementSequence(lastSeq, offsetDelta).
func (e ProducerEntry) FirstSequence() int32 {
	return batch.DecrementSequence(e.LastSequence, e.OffsetDelta)
}

// TxnFirstOffset returns the open transaction's first offset, if any
// (Kafka: present iff >= 0).
func (e ProducerEntry) TxnFirstOffset() (int64, bool) {
	return e.CurrentTxnFirstOffset, e.CurrentTxnFirstOffset >= 0
}

// FormatOptionalLong renders like Java's OptionalLong.toString.
func FormatOptionalLong(v int64, ok bool) string {
	if !ok {
		return "OptionalLong.empty"
	}
	return "OptionalLong[" + itoa(v) + "]"
}

// Snapshot is a decoded producer state snapshot (.snapshot).
type Snapshot struct {
	Version int16
	// CRC is the stored CRC-32C of bytes [6, len).
	CRC     uint32
	Entries []ProducerEntry
	// Trailing holds bytes after the last entry. Kafka's reader does not
	// reject them, but they are covered by the CRC.
	Trailing []byte
}

// NewSnapshot returns a version-1 snapshot of entries, ready to encode.
func NewSnapshot(entries []ProducerEntry) *Snapshot {
	return &Snapshot{Version: SnapshotVersion, Entries: entries}
}

// entry field names and end offsets, as Kafka's schema names them; used to
// reproduce its schema-validation messages on truncated entries.
var entryFields = [...]struct {
	name string
	end  int
}{
	{"producer_id", 8}, {"epoch", 10}, {"last_sequence", 14}, {"last_offset", 22},
	{"offset_delta", 26}, {"timestamp", 34}, {"coordinator_epoch", 38}, {"current_txn_first_offset", 46},
}

const bufferUnderflow = "java.nio.BufferUnderflowException"

// ParseSnapshot decodes a producer snapshot the way Kafka's readSnapshot
// does. The checks run in Kafka's order: schema (structure), then version,
// then CRC. Errors carry Kafka's CorruptSnapshotException text
// (KafkaMessage); the unknown-version message is wrapped in "Snapshot
// failed schema validation: " as in 3.5+.
//
// On a version or CRC error the decoded snapshot is returned together with
// the error, for forensic use; on a structural error the snapshot is nil.
// The entry count is checked against the bytes present before anything is
// allocated.
func ParseSnapshot(b []byte) (*Snapshot, error) {
	schemaErr := func(off int, cause string) error {
		return errAt("", int64(off), snapshotErr("Snapshot failed schema validation: "+cause, ErrTruncated))
	}
	malformed := func(off int, cause string) error {
		return errAt("", int64(off), snapshotErr("Snapshot failed schema validation: "+cause, ErrMalformed))
	}
	if len(b) < 2 {
		return nil, schemaErr(len(b), "Error reading field 'version': "+bufferUnderflow)
	}
	if len(b) < 6 {
		return nil, schemaErr(len(b), "Error reading field 'crc': "+bufferUnderflow)
	}
	if len(b) < 10 {
		return nil, schemaErr(len(b), "Error reading field 'producer_entries': "+bufferUnderflow)
	}
	s := &Snapshot{
		Version: int16(binary.BigEndian.Uint16(b[0:2])),
		CRC:     binary.BigEndian.Uint32(b[2:6]),
	}
	n := int32(binary.BigEndian.Uint32(b[snapshotCountOffset:]))
	remaining := len(b) - snapshotEntriesStart
	if n < 0 {
		return nil, malformed(snapshotCountOffset, "Error reading field 'producer_entries': Array size "+itoa(int64(n))+" cannot be negative")
	}
	if int64(n) > int64(remaining) {
		return nil, schemaErr(snapshotCountOffset, "Error reading field 'producer_entries': Error reading array of size "+
			itoa(int64(n))+", only "+itoa(int64(remaining))+" bytes available")
	}
	if need := int64(n) * ProducerEntrySize; need > int64(remaining) {
		// Kafka reads entry by entry and underflows inside entry k.
		left := remaining % ProducerEntrySize
		field := entryFields[len(entryFields)-1].name
		for _, f := range entryFields {
			if f.end > left {
				field = f.name
				break
			}
		}
		return nil, schemaErr(len(b), "Error reading field 'producer_entries': Error reading field '"+field+"': "+bufferUnderflow)
	}
	s.Entries = make([]ProducerEntry, n)
	p := b[snapshotEntriesStart:]
	for i := range s.Entries {
		s.Entries[i] = decodeProducerEntry(p[i*ProducerEntrySize:])
	}
	if end := snapshotEntriesStart + int(n)*ProducerEntrySize; end < len(b) {
		s.Trailing = b[end:len(b):len(b)]
	}
	if s.Version != SnapshotVersion {
		msg := "Snapshot failed schema validation: Snapshot contained an unknown file version " + itoa(int64(s.Version))
		return s, errAt("", 0, snapshotErr(msg, ErrUnknownVersion))
	}
	if c := batch.CRC32C(b[snapshotCRCStart:]); c != s.CRC {
		return s, errAt("", 2, snapshotErr(fmt.Sprintf("Snapshot is corrupt (CRC is no longer valid). Stored crc: %d. Computed crc: %d", s.CRC, c), ErrBadCRC))
	}
	return s, nil
}

func snapshotErr(msg string, kind error) error {
	return &KafkaError{Exception: "CorruptSnapshotException", Msg: msg, Kind: kinds(kind.Error(), ErrCorruptSnapshot, kind)}
}

func decodeProducerEntry(b []byte) ProducerEntry {
	return ProducerEntry{
		ProducerID:            int64(binary.BigEndian.Uint64(b[0:8])),
		Epoch:                 int16(binary.BigEndian.Uint16(b[8:10])),
		LastSequence:          int32(binary.BigEndian.Uint32(b[10:14])),
		LastOffset:            int64(binary.BigEndian.Uint64(b[14:22])),
		OffsetDelta:           int32(binary.BigEndian.Uint32(b[22:26])),
		Timestamp:             int64(binary.BigEndian.Uint64(b[26:34])),
		CoordinatorEpoch:      int32(binary.BigEndian.Uint32(b[34:38])),
		CurrentTxnFirstOffset: int64(binary.BigEndian.Uint64(b[38:46])),
	}
}

// AppendTo appends the 46-byte encoding of e.
func (e ProducerEntry) AppendTo(dst []byte) []byte {
	dst = binary.BigEndian.AppendUint64(dst, uint64(e.ProducerID))
	dst = binary.BigEndian.AppendUint16(dst, uint16(e.Epoch))
	dst = binary.BigEndian.AppendUint32(dst, uint32(e.LastSequence))
	dst = binary.BigEndian.AppendUint64(dst, uint64(e.LastOffset))
	dst = binary.BigEndian.AppendUint32(dst, uint32(e.OffsetDelta))
	dst = binary.BigEndian.AppendUint64(dst, uint64(e.Timestamp))
	dst = binary.BigEndian.AppendUint32(dst, uint32(e.CoordinatorEpoch))
	return binary.BigEndian.AppendUint64(dst, uint64(e.CurrentTxnFirstOffset))
}

// AppendTo appends the encoded snapshot to dst: s.Version, a freshly
// computed CRC-32C (s.CRC is ignored), the entries and s.Trailing. The
// broker writes version 1 and no trailing bytes.
func (s *Snapshot) AppendTo(dst []byte) []byte {
	start := len(dst)
	dst = binary.BigEndian.AppendUint16(dst, uint16(s.Version))
	dst = binary.BigEndian.AppendUint32(dst, 0)
	dst = binary.BigEndian.AppendUint32(dst, uint32(len(s.Entries)))
	for _, e := range s.Entries {
		dst = e.AppendTo(dst)
	}
	dst = append(dst, s.Trailing...)
	c := batch.CRC32C(dst[start+snapshotCRCStart:])
	binary.BigEndian.PutUint32(dst[start+2:], c)
	return dst
}

// MarshalBinary encodes s; see AppendTo.
func (s *Snapshot) MarshalBinary() ([]byte, error) {
	if int64(len(s.Entries)) > math.MaxInt32 {
		return nil, fmt.Errorf("index: %d producer entries do not fit a snapshot", len(s.Entries))
	}
	return s.AppendTo(make([]byte, 0, snapshotHeaderSize+len(s.Entries)*ProducerEntrySize+len(s.Trailing))), nil
}

// UnmarshalBinary decodes b into s (ParseSnapshot's checks). s is left
// unchanged on error.
func (s *Snapshot) UnmarshalBinary(b []byte) error {
	d, err := ParseSnapshot(b)
	if err != nil {
		return err
	}
	d.Trailing = append([]byte(nil), d.Trailing...)
	*s = *d
	return nil
}

// ReadSnapshotFile reads and decodes a .snapshot file (Kafka reads the
// whole file too). Errors carry the file's absolute path.
func ReadSnapshotFile(path string) (*Snapshot, error) {
	// Errors name the absolute path, found only when there is one
	// (filepath.Abs costs a getwd: two stats per snapshot audited).
	abs := func() string {
		if a, err := filepath.Abs(path); err == nil {
			return a
		}
		return path
	}
	b, err := rfile.ReadFile(path, MaxSnapshotSize)
	if err != nil {
		if errors.Is(err, rfile.ErrTooLarge) {
			// Located where kseg stops reading: the first byte past the limit.
			return nil, errAt(abs(), MaxSnapshotSize, fmt.Errorf("producer snapshot %w: %w (index.MaxSnapshotSize)", ErrTooLarge, err))
		}
		return nil, errAt(abs(), -1, err)
	}
	s, err := ParseSnapshot(b)
	if e, ok := err.(*Error); ok {
		e.File = abs()
	}
	return s, err
}
