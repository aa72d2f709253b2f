package index

import (
	"encoding/binary"
	"fmt"
	"io"
	"math"
)

// TimeEntry is one .timeindex entry: every record with a timestamp greater
// than Timestamp comes after Offset.
type TimeEntry struct {
	Timestamp int64
	Relative  int32 // as stored
	Offset    int64 // baseOffset + Relative
}

// AppendTo appends the 12-byte encoding of e relative to baseOffset.
func (e TimeEntry) AppendTo(dst []byte, baseOffset int64) ([]byte, error) {
	rel := e.Offset - baseOffset
	if rel < 0 || rel > math.MaxInt32 {
		return dst, fmt.Errorf("%w: offset %d does not fit relative to base %d", ErrCorruptIndex, e.Offset, baseOffset)
	}
	dst = binary.BigEndian.AppendUint64(dst, uint64(e.Timestamp))
	return binary.BigEndian.AppendUint32(dst, uint32(rel)), nil
}

// DecodeTimeEntry decodes 12 bytes as a time-index entry.
func DecodeTimeEntry(b []byte, baseOffset int64) TimeEntry {
	rel := int32(binary.BigEndian.Uint32(b[8:12]))
	return TimeEntry{Timestamp: int64(binary.BigEndian.Uint64(b[0:8])), Relative: rel, Offset: baseOffset + int64(rel)}
}

// TimeIndex reads a time index (.timeindex).
type TimeIndex struct {
	f    slotFile
	base int64
}

// NewTimeIndex reads a time index of size bytes from r; see NewOffsetIndex.
func NewTimeIndex(r io.ReaderAt, size, baseOffset int64, path string) *TimeIndex {
	return &TimeIndex{f: slotFile{r: r, size: max(size, 0), width: TimeEntrySize, path: path}, base: baseOffset}
}

// OpenTimeIndex opens a .timeindex file read-only; the base offset comes
// from its name. Close it when done.
func OpenTimeIndex(path string) (*TimeIndex, error) {
	base, err := BaseOffsetFromName(baseName(path))
	if err != nil {
		return nil, err
	}
	f, err := openSlotFile(path, TimeEntrySize)
	if err != nil {
		return nil, err
	}
	return &TimeIndex{f: f, base: base}, nil
}

// Close closes the file if the index was opened by OpenTimeIndex.
func (x *TimeIndex) Close() error { return x.f.close() }

// BaseOffset returns the segment base offset.
func (x *TimeIndex) BaseOffset() int64 { return x.base }

// Size returns the file length in bytes.
func (x *TimeIndex) Size() int64 { return x.f.size }

// Path returns the path used in messages.
func (x *TimeIndex) Path() string { return x.f.path }

// Entries returns file length / 12, rounded down, padding included.
func (x *TimeIndex) Entries() int64 { return x.f.slots() }

// Entry reads slot i.
func (x *TimeIndex) Entry(i int64) (TimeEntry, error) {
	var b [TimeEntrySize]byte
	if err := x.f.readSlot(i, b[:]); err != nil {
		return TimeEntry{}, err
	}
	return DecodeTimeEntry(b[:], x.base), nil
}

func (x *TimeIndex) decode(b []byte, _ int64) (TimeEntry, error) {
	return DecodeTimeEntry(b, x.base), nil
}

// Iter iterates like kafka-dump-log's dumpTimeIndex: it stops at the first
// slot i > 0 whose offset equals the base offset, whatever its timestamp
// (a zero slot has offset == base). Slot 0 is always yielded, even if it
// is all zeros. An empty file yields nothing (and the tool prints nothing:
// unlike .index there is no "is empty" line).
func (x *TimeIndex) Iter() *Iterator[TimeEntry] {
	return newIterator(&x.f, x.decode, func(i int64, e TimeEntry) bool { return i > 0 && e.Offset == x.base })
}

// Lookup is Kafka's TimeIndex.lookup: the entry with the largest timestamp
// <= target, or (timestamp -1, baseOffset) if none (found false).
func (x *TimeIndex) Lookup(target int64) (e TimeEntry, found bool, err error) {
	buf := make([]byte, TimeEntrySize)
	slot, err := largestLowerBound(x.Entries(), TimeEntrySize, target, func(i int64) (int64, error) {
		if err := x.f.readSlot(i, buf); err != nil {
			return 0, err
		}
		return DecodeTimeEntry(buf, x.base).Timestamp, nil
	})
	if err != nil || slot < 0 {
		return TimeEntry{Timestamp: -1, Offset: x.base}, false, err
	}
	e, err = x.Entry(slot)
	return e, err == nil, err
}

// SanityCheck is TimeIndex.sanityCheck. The last entry is the last slot,
// so a zero-padded (preallocated) time index with real entries fails the
// timestamp check, as it does in Kafka.
func (x *TimeIndex) SanityCheck(absPath string) error {
	n := x.Entries()
	if n != 0 {
		last, err := x.Entry(n - 1)
		if err != nil {
			return err
		}
		first, err := x.Entry(0)
		if err != nil {
			return err
		}
		if last.Timestamp < first.Timestamp {
			return errAt(x.f.path, (n-1)*TimeEntrySize, corruptIndex("Corrupt time index found, time index file ("+absPath+
				") has non-zero size but the last timestamp is "+itoa(last.Timestamp)+
				" which is less than the first timestamp "+itoa(first.Timestamp)))
		}
		if last.Offset < x.base {
			return errAt(x.f.path, (n-1)*TimeEntrySize, corruptIndex("Corrupt time index found, time index file ("+absPath+
				") has non-zero size but the last offset is "+itoa(last.Offset)+
				" which is less than the first offset "+itoa(x.base)))
		}
	}
	if x.f.size%TimeEntrySize != 0 {
		msg := "Time index file " + absPath + " is corrupt, found " + itoa(x.f.size) +
			" bytes which is neither positive nor a multiple of 12"
		return errAt(x.f.path, n*TimeEntrySize, corruptIndex(msg))
	}
	return nil
}
