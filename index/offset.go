package index

import (
	"encoding/binary"
	"fmt"
	"io"
	"math"
	"strconv"
)

// Entry sizes of the fixed-width files.
const (
	OffsetEntrySize = 8
	TimeEntrySize   = 12
	TxnEntrySize    = 34
)

// warmEntries is AbstractIndex.warmEntries: 8192 bytes worth of entries at
// the end of an index are searched first.
func warmEntries(width int) int64 { return int64(8192 / width) }

// OffsetEntry is one .index entry.
type OffsetEntry struct {
	Relative int32 // as stored: offset - baseOffset
	Offset   int64 // baseOffset + Relative
	Position int32 // byte position in the .log
}

// AppendTo appends the 8-byte encoding of (offset, position) relative to
// baseOffset. It fails if offset-baseOffset does not fit an int32, as
// Kafka's IndexOffsetOverflowException would.
func (e OffsetEntry) AppendTo(dst []byte, baseOffset int64) ([]byte, error) {
	rel := e.Offset - baseOffset
	if rel < 0 || rel > math.MaxInt32 {
		return dst, fmt.Errorf("%w: offset %d does not fit relative to base %d", ErrCorruptIndex, e.Offset, baseOffset)
	}
	dst = binary.BigEndian.AppendUint32(dst, uint32(rel))
	return binary.BigEndian.AppendUint32(dst, uint32(e.Position)), nil
}

// DecodeOffsetEntry decodes 8 bytes as an offset-index entry.
func DecodeOffsetEntry(b []byte, baseOffset int64) OffsetEntry {
	rel := int32(binary.BigEndian.Uint32(b[0:4]))
	return OffsetEntry{Relative: rel, Offset: baseOffset + int64(rel), Position: int32(binary.BigEndian.Uint32(b[4:8]))}
}

// OffsetIndex reads an offset index (.index).
type OffsetIndex struct {
	f    slotFile
	base int64
}

// NewOffsetIndex reads an offset index of size bytes from r. baseOffset is
// the segment's base offset (from the file name). path is used in errors
// and sanity-check messages and may be empty.
func NewOffsetIndex(r io.ReaderAt, size, baseOffset int64, path string) *OffsetIndex {
	return &OffsetIndex{f: slotFile{r: r, size: max(size, 0), width: OffsetEntrySize, path: path}, base: baseOffset}
}

// OpenOffsetIndex opens a .index file read-only; the base offset comes from
// its name. Close it when done.
func OpenOffsetIndex(path string) (*OffsetIndex, error) {
	base, err := BaseOffsetFromName(baseName(path))
	if err != nil {
		return nil, err
	}
	f, err := openSlotFile(path, OffsetEntrySize)
	if err != nil {
		return nil, err
	}
	return &OffsetIndex{f: f, base: base}, nil
}

// Close closes the file if the index was opened by OpenOffsetIndex.
func (x *OffsetIndex) Close() error { return x.f.close() }

// BaseOffset returns the segment base offset.
func (x *OffsetIndex) BaseOffset() int64 { return x.base }

// Path returns the path used in messages.
func (x *OffsetIndex) Path() string { return x.f.path }

// Entries returns the number of slots: file length / 8, rounded down.
// Zero padding counts, as it does in Kafka.
func (x *OffsetIndex) Entries() int64 { return x.f.slots() }

// Entry reads slot i.
func (x *OffsetIndex) Entry(i int64) (OffsetEntry, error) {
	var b [OffsetEntrySize]byte
	if err := x.f.readSlot(i, b[:]); err != nil {
		return OffsetEntry{}, err
	}
	return DecodeOffsetEntry(b[:], x.base), nil
}

func (x *OffsetIndex) decode(b []byte, _ int64) (OffsetEntry, error) {
	return DecodeOffsetEntry(b, x.base), nil
}

// Iter iterates like kafka-dump-log: it stops at the first slot i > 0 whose
// offset equals the base offset (the start of zero padding); Stopped
// reports that slot. A fully zero file yields its slot 0.
func (x *OffsetIndex) Iter() *Iterator[OffsetEntry] {
	return newIterator(&x.f, x.decode, func(i int64, e OffsetEntry) bool { return i > 0 && e.Offset == x.base })
}

// IterAll iterates every slot, padding included.
func (x *OffsetIndex) IterAll() *Iterator[OffsetEntry] {
	return newIterator(&x.f, x.decode, nil)
}

// Lookup is Kafka's OffsetIndex.lookup: the entry with the largest offset
// <= target, or (baseOffset, position 0) if there is none. It reproduces
// the warm/hot binary search exactly, so results on zero-padded or
// unsorted files match the broker's. found is false in the "none" case.
func (x *OffsetIndex) Lookup(target int64) (e OffsetEntry, found bool, err error) {
	buf := make([]byte, OffsetEntrySize)
	slot, err := largestLowerBound(x.Entries(), OffsetEntrySize, target, func(i int64) (int64, error) {
		if err := x.f.readSlot(i, buf); err != nil {
			return 0, err
		}
		return DecodeOffsetEntry(buf, x.base).Offset, nil
	})
	if err != nil || slot < 0 {
		return OffsetEntry{Offset: x.base}, false, err
	}
	e, err = x.Entry(slot)
	return e, err == nil, err
}

// SanityCheck is OffsetIndex.sanityCheck with the 3.6+ (Java) messages;
// absPath is the path Kafka would print (File.getAbsolutePath).
func (x *OffsetIndex) SanityCheck(absPath string) error {
	n := x.Entries()
	if n != 0 {
		last, err := x.Entry(n - 1)
		if err != nil {
			return err
		}
		if last.Offset < x.base {
			msg := "Corrupt index found, index file " + absPath + " has non-zero size but the last offset is " +
				itoa(last.Offset) + " which is less than the base offset " + itoa(x.base)
			return errAt(x.f.path, (n-1)*OffsetEntrySize, corruptIndex(msg))
		}
	}
	if x.f.size%OffsetEntrySize != 0 {
		msg := "Index file " + absPath + " is corrupt, found " + itoa(x.f.size) +
			" bytes which is neither positive nor a multiple of 8"
		return errAt(x.f.path, n*OffsetEntrySize, corruptIndex(msg))
	}
	return nil
}

func corruptIndex(msg string) error {
	return &KafkaError{Exception: "CorruptIndexException", Msg: msg, Kind: ErrCorruptIndex}
}

func itoa(v int64) string { return strconv.FormatInt(v, 10) }

// largestLowerBound is AbstractIndex.largestLowerBoundSlotFor over n slots
// whose keys are read by key: the slot of the largest key <= target, or -1.
func largestLowerBound(n int64, width int, target int64, key func(int64) (int64, error)) (int64, error) {
	if n == 0 {
		return -1, nil
	}
	firstHot := max(0, n-1-warmEntries(width))
	k, err := key(firstHot)
	if err != nil {
		return -1, err
	}
	if k < target {
		return binarySearch(firstHot, n-1, target, key)
	}
	k0, err := key(0)
	if err != nil {
		return -1, err
	}
	if k0 > target {
		return -1, nil
	}
	return binarySearch(0, firstHot, target, key)
}

func binarySearch(lo, hi, target int64, key func(int64) (int64, error)) (int64, error) {
	for lo < hi {
		mid := int64(uint64(lo+hi+1) >> 1)
		k, err := key(mid)
		if err != nil {
			return -1, err
		}
		switch {
		case k > target:
			hi = mid - 1
		case k < target:
			lo = mid
		default:
			return mid, nil
		}
	}
	return lo, nil
}

func baseName(path string) string {
	for i := len(path) - 1; i >= 0; i-- {
		if path[i] == '/' || path[i] == '\\' {
			return path[i+1:]
		}
	}
	return path
}
