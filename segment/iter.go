package segment

import (
	"github.com/kseg/kseg/batch"
)

// BatchInfo is one top-level entry of a partition, as Count sees it.
type BatchInfo struct {
	File       string
	Pos        int64
	BaseOffset int64 // legacy compressed wrapper: its first inner offset
	LastOffset int64
	Records    int // header count; legacy: 1 or the inner message count
	Control    bool
}

// Record is one record of a partition. Key, Value and Headers alias
// internal buffers, valid until the next call to Next.
type Record struct {
	Offset  int64
	Key     []byte
	Value   []byte
	Headers []batch.RecordHeader
}

// Iter walks a partition's segments batch by batch and, on request,
// record by record, in constant memory. Create with NewIter.
type Iter struct {
	segs []Segment
	next int
	f    *File
	err  error

	dec   batch.Decompressor
	inner []batch.LegacyMessage
	br    batch.BatchReader
	rec   batch.Record

	cur BatchInfo
	// record state within the current batch
	recMode  int // 0 none, 1 v2 reader, 2 legacy list
	legacyAt int
	out      Record
}

// NewIter iterates p's segments in order.
func NewIter(p *Partition) *Iter { return &Iter{segs: p.Segments} }

// Close releases the open file.
func (it *Iter) Close() {
	if it.f != nil {
		it.f.Close()
		it.f = nil
	}
}

// Err is the error that stopped the iteration.
func (it *Iter) Err() error { return it.err }

func (it *Iter) fail(pos int64, err error) bool {
	if _, ok := err.(*Error); !ok {
		err = &Error{File: it.f.Name(), Offset: pos, Err: err}
	}
	it.err = err
	it.Close()
	return false
}

// NextBatch advances to the next top-level entry; false at the end or on
// error (see Err).
func (it *Iter) NextBatch() bool {
	it.recMode = 0
	if it.err != nil {
		return false
	}
	for {
		if it.f == nil {
			if it.next >= len(it.segs) {
				return false
			}
			f, err := Open(it.segs[it.next].Path, 0)
			it.next++
			if err != nil {
				it.err = err
				return false
			}
			it.f = f
		}
		if !it.f.Next() {
			if err := it.f.Err(); err != nil {
				it.err = err
				it.Close()
				return false
			}
			it.Close()
			continue
		}
		e := it.f.Entry()
		it.cur = BatchInfo{File: it.f.Name(), Pos: e.Pos}
		if e.Magic >= batch.MagicV2 {
			h := &e.Header
			it.cur.BaseOffset, it.cur.LastOffset = h.BaseOffset, h.LastOffset()
			it.cur.Records, it.cur.Control = int(h.RecordCount), h.IsControl()
			return true
		}
		b, err := it.f.Bytes()
		if err != nil {
			return it.fail(e.Pos, err)
		}
		m, err := batch.ParseLegacy(b)
		if err != nil {
			return it.fail(e.Pos, err)
		}
		it.inner, err = batch.LegacyInner(&m, &it.dec, it.inner)
		if err != nil {
			return it.fail(e.Pos, err)
		}
		it.cur.BaseOffset, it.cur.LastOffset = it.inner[0].Offset, m.Offset
		it.cur.Records = len(it.inner)
		it.recMode, it.legacyAt = 2, 0
		return true
	}
}

// Batch is the current batch.
func (it *Iter) Batch() *BatchInfo { return &it.cur }

// NextRecord advances to the next record, moving through batches as
// needed. Records of control batches (transaction markers, leader
// changes) are skipped: they are not data.
func (it *Iter) NextRecord() bool {
	for {
		switch it.recMode {
		case 1:
			ok, err := it.br.Next(&it.rec)
			if err != nil {
				return it.fail(it.cur.Pos, err)
			}
			if ok {
				it.out = Record{Offset: it.cur.BaseOffset + int64(it.rec.OffsetDelta), Key: it.rec.Key, Value: it.rec.Value, Headers: it.rec.Headers}
				return true
			}
		case 2:
			if it.legacyAt < len(it.inner) {
				m := &it.inner[it.legacyAt]
				it.legacyAt++
				it.out = Record{Offset: m.Offset, Key: m.Key, Value: m.Value}
				return true
			}
		}
		if !it.NextBatch() {
			return false
		}
		if it.recMode == 0 && !it.cur.Control {
			e := it.f.Entry()
			b, err := it.f.Bytes()
			if err != nil {
				return it.fail(e.Pos, err)
			}
			if err := it.br.Open(b, &e.Header); err != nil {
				return it.fail(e.Pos, err)
			}
			it.recMode = 1
		}
	}
}

// Record is the current record.
func (it *Iter) Record() *Record { return &it.out }
