package segment

import (
	"bytes"
	"math"
	"regexp"

	"github.com/kseg/kseg/batch"
)

// Filter selects batches by their headers and records by their keys. A
// batch filter (producer, epoch, transactional, control, codec) is decided
// from the header alone; a record filter (key) decodes only the batches
// the batch filters let through. A batch passes a record filter when one
// of its data records matches; control batches never do.
type Filter struct {
	ProducerID       int64
	HasProducerID    bool
	ProducerEpoch    int16
	HasProducerEpoch bool
	// Transactional and Control, when set, are what the batch's flag must
	// be.
	Transactional *bool
	Control       *bool
	// Codecs, when not empty, are the codecs a batch may have.
	Codecs []batch.Codec
	// Key, with HasKey, is the exact key a record must have (a null key
	// never matches); KeyRegex, when set, must match the key.
	Key      []byte
	HasKey   bool
	KeyRegex *regexp.Regexp
}

// Active tells that the filter selects anything.
func (f *Filter) Active() bool {
	return f != nil && (f.HasProducerID || f.HasProducerEpoch || f.Transactional != nil || f.Control != nil ||
		len(f.Codecs) > 0 || f.ByRecord())
}

// ByRecord tells that the filter looks at records (keys).
func (f *Filter) ByRecord() bool { return f != nil && (f.HasKey || f.KeyRegex != nil) }

// Batch tells whether a batch with this summary passes the batch filters
// (the record filters are not looked at). A legacy entry has no producer
// (-1) and is neither transactional nor control.
func (f *Filter) Batch(in *BatchInfo) bool {
	if f == nil {
		return true
	}
	if f.HasProducerID && in.ProducerID != f.ProducerID {
		return false
	}
	if f.HasProducerEpoch && in.ProducerEpoch != f.ProducerEpoch {
		return false
	}
	if f.Transactional != nil && in.Transactional != *f.Transactional {
		return false
	}
	if f.Control != nil && in.Control != *f.Control {
		return false
	}
	if len(f.Codecs) > 0 {
		ok := false
		for _, c := range f.Codecs {
			ok = ok || c == in.Codec
		}
		if !ok {
			return false
		}
	}
	if f.ByRecord() && in.Control {
		return false
	}
	return true
}

// Record tells whether a data record with this key passes the record
// filters (true when there are none).
func (f *Filter) Record(key []byte) bool {
	if !f.ByRecord() {
		return true
	}
	if key == nil {
		return false
	}
	if f.HasKey && !bytes.Equal(key, f.Key) {
		return false
	}
	return f.KeyRegex == nil || f.KeyRegex.Match(key)
}

// Unbounded is Window.To when the range has no end.
const Unbounded = math.MaxInt64

// Window is what is read of one partition: the batches that hold offsets
// in [From, To) and pass Filter; of their records, those in the range
// that pass the record filter. A Stream whose Source has a Window yields
// only those batches and stops at the first batch at or past To (offsets
// grow along a partition's log, as Kafka keeps them).
type Window struct {
	From, To int64
	Filter   *Filter // nil: none
	// Note is told when a seek cannot use an index and scans instead.
	Note func(string)
}

// Overlaps tells that a batch holding offsets [first, last] holds an
// offset of the range.
func (w *Window) Overlaps(first, last int64) bool { return last >= w.From && first < w.To }

// Cuts tells that a batch holding [first, last] has offsets outside the
// range (its record lines are trimmed).
func (w *Window) Cuts(first, last int64) bool { return first < w.From || last >= w.To }

// Holds tells that off is in the range.
func (w *Window) Holds(off int64) bool { return off >= w.From && off < w.To }

// Keeps tells whether a record at off with this key is shown: in the
// range and, for data records, passing the record filter.
func (w *Window) Keeps(off int64, key []byte, control bool) bool {
	if !w.Holds(off) {
		return false
	}
	return control || w.Filter.Record(key)
}

// Empty tells that the window holds no offset.
func (w *Window) Empty() bool { return w.From >= w.To }

func (w *Window) note(s string) {
	if w.Note != nil {
		w.Note(s)
	}
}
