package index

import (
	"encoding/binary"
	"fmt"
	"io"
)

// AbortedTxn is one 34-byte .txnindex entry.
type AbortedTxn struct {
	// RawVersion is the int16 version field as stored.
	RawVersion       int16
	ProducerID       int64
	FirstOffset      int64
	LastOffset       int64
	LastStableOffset int64
}

// Version is what Kafka's AbortedTxn.version() returns: only the first
// byte of the version field, as a signed int8. kafka-dump-log prints this.
func (t AbortedTxn) Version() int8 { return int8(uint16(t.RawVersion) >> 8) }

// String renders t like Kafka's AbortedTxn.toString.
func (t AbortedTxn) String() string {
	return fmt.Sprintf("AbortedTxn(version=%d, producerId=%d, firstOffset=%d, lastOffset=%d, lastStableOffset=%d)",
		t.Version(), t.ProducerID, t.FirstOffset, t.LastOffset, t.LastStableOffset)
}

// AppendTo appends the 34-byte encoding of t.
func (t AbortedTxn) AppendTo(dst []byte) []byte {
	dst = binary.BigEndian.AppendUint16(dst, uint16(t.RawVersion))
	dst = binary.BigEndian.AppendUint64(dst, uint64(t.ProducerID))
	dst = binary.BigEndian.AppendUint64(dst, uint64(t.FirstOffset))
	dst = binary.BigEndian.AppendUint64(dst, uint64(t.LastOffset))
	return binary.BigEndian.AppendUint64(dst, uint64(t.LastStableOffset))
}

// DecodeAbortedTxn decodes 34 bytes without checking the version.
func DecodeAbortedTxn(b []byte) AbortedTxn {
	return AbortedTxn{
		RawVersion:       int16(binary.BigEndian.Uint16(b[0:2])),
		ProducerID:       int64(binary.BigEndian.Uint64(b[2:10])),
		FirstOffset:      int64(binary.BigEndian.Uint64(b[10:18])),
		LastOffset:       int64(binary.BigEndian.Uint64(b[18:26])),
		LastStableOffset: int64(binary.BigEndian.Uint64(b[26:34])),
	}
}

// TxnIndex reads a transaction index (.txnindex): 34-byte entries, no
// header. A trailing partial entry is ignored, as Kafka ignores it.
type TxnIndex struct {
	f    slotFile
	base int64
}

// NewTxnIndex reads a transaction index of size bytes from r. path is used
// in errors and in Kafka's messages (which print the absolute path).
func NewTxnIndex(r io.ReaderAt, size, baseOffset int64, path string) *TxnIndex {
	return &TxnIndex{f: slotFile{r: r, size: max(size, 0), width: TxnEntrySize, path: path}, base: baseOffset}
}

// OpenTxnIndex opens a .txnindex file read-only. Close it when done.
func OpenTxnIndex(path string) (*TxnIndex, error) {
	base, err := BaseOffsetFromName(baseName(path))
	if err != nil {
		return nil, err
	}
	f, err := openSlotFile(path, TxnEntrySize)
	if err != nil {
		return nil, err
	}
	return &TxnIndex{f: f, base: base}, nil
}

// Close closes the file if the index was opened by OpenTxnIndex.
func (x *TxnIndex) Close() error { return x.f.close() }

func (x *TxnIndex) decode(b []byte, slot int64) (AbortedTxn, error) {
	t := DecodeAbortedTxn(b)
	if v := t.Version(); v > 0 {
		return t, errAt(x.f.path, slot*TxnEntrySize, &KafkaError{
			Exception: "KafkaException",
			Msg: fmt.Sprintf("Unexpected aborted transaction version %d in transaction index %s, current version is 0",
				v, x.f.path),
			Kind: ErrUnknownVersion,
		})
	}
	return t, nil
}

// Iter iterates the entries like Kafka's TransactionIndex iterator: an
// entry whose Version() > 0 ends the iteration with an error carrying
// Kafka's KafkaException message (negative versions pass, as in Kafka).
func (x *TxnIndex) Iter() *Iterator[AbortedTxn] {
	return newIterator(&x.f, x.decode, nil)
}

// SanityCheck is TransactionIndex.sanityCheck: every entry's lastOffset
// must be >= the segment base offset. absPath is printed in the message.
func (x *TxnIndex) SanityCheck(absPath string) error {
	it := x.Iter()
	for it.Next() {
		t := it.Entry()
		if t.LastOffset < x.base {
			return errAt(x.f.path, it.ByteOffset(), corruptIndex("Last offset of aborted transaction "+t.String()+
				" in index "+absPath+" is less than start offset "+itoa(x.base)))
		}
	}
	return it.Err()
}
