package segment

import (
	"github.com/kseg/kseg/batch"
)

// Record is one data record of a partition, in one shape for v2 and legacy
// entries. Key, Value and Headers alias internal buffers, valid until the
// next call to NextRecord.
type Record struct {
	Offset  int64
	Key     []byte
	Value   []byte
	Headers []batch.RecordHeader
}

// Iter walks a partition's segments batch by batch and, on request, record
// by record, in constant memory: a Stream per segment, one after another.
type Iter struct {
	segs []Segment
	next int
	st   *Stream
	open bool
	err  error
	cur  BatchInfo

	// record state within the current batch
	br      *batch.BatchReader
	inner   *batch.LegacyIter
	recMode int // 0 none, 1 v2 reader, 2 legacy list
	rec     batch.Record
	out     Record
}

// NewIter iterates p's segments in order.
func NewIter(p *Partition) *Iter { return &Iter{segs: p.Segments, st: &Stream{}} }

// Close releases the open file.
func (it *Iter) Close() {
	it.st.Close()
	it.open = false
}

// Err is the error that stopped the iteration.
func (it *Iter) Err() error { return it.err }

func (it *Iter) fail(err error) bool {
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
		if !it.open {
			if it.next >= len(it.segs) {
				return false
			}
			err := it.st.OpenSegment(it.segs[it.next], 0)
			it.next++
			if err != nil {
				return it.fail(err)
			}
			it.open = true
		}
		if !it.st.Next() {
			if err := it.st.Err(); err != nil {
				return it.fail(err)
			}
			it.Close()
			continue
		}
		b := it.st.Batch()
		info, err := b.Info()
		if err != nil {
			return it.fail(err)
		}
		it.cur = info
		if b.IsLegacy() {
			// One message at a time (InnerIter), not a slice of them.
			if it.inner, err = b.InnerIter(); err != nil {
				return it.fail(err)
			}
			it.recMode = 2
		}
		return true
	}
}

// Batch is the current batch.
func (it *Iter) Batch() *BatchInfo { return &it.cur }

// NextRecord advances to the next record, moving through batches as
// needed. Records of control batches (transaction markers, leader
// changes) are skipped: they are not data; so are records outside the
// segment's Window (offsets out of its range, keys its filter refuses).
func (it *Iter) NextRecord() bool {
	for {
		switch it.recMode {
		case 1:
			ok, err := it.br.Next(&it.rec)
			if err != nil {
				return it.fail(Locate(it.cur.File, it.cur.Pos, err))
			}
			if ok {
				r := &it.rec
				if w := it.st.win; w != nil && !w.Keeps(it.cur.BaseOffset+int64(r.OffsetDelta), r.Key, false) {
					continue // outside the window: trimmed
				}
				it.out = Record{Offset: it.cur.BaseOffset + int64(r.OffsetDelta), Key: r.Key, Value: r.Value, Headers: r.Headers}
				return true
			}
		case 2:
			if it.inner.Next() {
				m := it.inner.Message()
				if w := it.st.win; w != nil && !w.Keeps(m.Offset, m.Key, false) {
					continue
				}
				it.out = Record{Offset: m.Offset, Key: m.Key, Value: m.Value}
				return true
			}
		}
		if !it.NextBatch() {
			return false
		}
		if it.recMode == 0 && !it.cur.Control {
			br, err := it.st.Batch().Records()
			if err != nil {
				return it.fail(err)
			}
			it.br, it.recMode = br, 1
		}
	}
}

// Record is the current record.
func (it *Iter) Record() *Record { return &it.out }
