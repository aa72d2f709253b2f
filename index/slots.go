package index

import (
	"errors"
	"fmt"
	"io"
	"path/filepath"

	"github.com/kseg/kseg/internal/rfile"
)

// blockSize is the target size of one read from an index file.
const blockSize = 1 << 20

// slotFile is a file of fixed-width entries read through an io.ReaderAt.
type slotFile struct {
	r     io.ReaderAt
	size  int64
	width int
	path  string
	c     io.Closer
}

func (f *slotFile) slots() int64 { return f.size / int64(f.width) }

// readSlot reads slot i into b (len(b) == width).
func (f *slotFile) readSlot(i int64, b []byte) error {
	off := i * int64(f.width)
	if i < 0 || off+int64(f.width) > f.size {
		return errAt(f.path, off, fmt.Errorf("%w: slot %d outside %d-byte file", ErrTruncated, i, f.size))
	}
	n, err := f.r.ReadAt(b, off)
	if n == len(b) {
		return nil
	}
	if err == nil || errors.Is(err, io.EOF) {
		err = ErrTruncated
	}
	return errAt(f.path, off+int64(n), fmt.Errorf("reading slot %d: %w", i, err))
}

func (f *slotFile) close() error {
	if f.c == nil {
		return nil
	}
	return f.c.Close()
}

// openSlotFile opens path read-only and stats it.
func openSlotFile(path string, width int) (slotFile, error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		abs = path
	}
	fh, info, err := rfile.OpenInfo(path)
	if err != nil {
		return slotFile{}, errAt(abs, -1, err)
	}
	return slotFile{r: fh, size: info.Size, width: width, path: abs, c: fh}, nil
}

// Iterator walks the entries of a fixed-width index in file order, reading
// the file in blocks of about 1 MiB. Use it as
//
//	for it.Next() { e := it.Entry(); ... }
//	if err := it.Err(); err != nil { ... }
type Iterator[E any] struct {
	f      *slotFile
	decode func(b []byte, slot int64) (E, error)
	stop   func(slot int64, e E) bool

	buf      []byte
	bufFirst int64 // slot index of buf[0]
	bufSlots int64 // slots held in buf
	next     int64 // next slot to decode
	cur      E
	curSlot  int64
	err      error
	stopped  int64
	done     bool
}

func newIterator[E any](f *slotFile, decode func([]byte, int64) (E, error), stop func(int64, E) bool) *Iterator[E] {
	return &Iterator[E]{f: f, decode: decode, stop: stop, curSlot: -1, stopped: -1}
}

// Next advances to the next entry. It returns false at the end, at the
// stop condition (see Stopped) or on error (see Err).
func (it *Iterator[E]) Next() bool {
	if it.done {
		return false
	}
	n := it.f.slots()
	if it.next >= n {
		it.done = true
		return false
	}
	if it.next < it.bufFirst || it.next >= it.bufFirst+it.bufSlots {
		if err := it.fill(n); err != nil {
			it.err, it.done = err, true
			return false
		}
	}
	w := int64(it.f.width)
	at := (it.next - it.bufFirst) * w
	e, err := it.decode(it.buf[at:at+w], it.next)
	if err != nil {
		it.err, it.done = err, true
		return false
	}
	if it.stop != nil && it.stop(it.next, e) {
		it.stopped, it.done = it.next, true
		return false
	}
	it.cur, it.curSlot = e, it.next
	it.next++
	return true
}

func (it *Iterator[E]) fill(n int64) error {
	w := int64(it.f.width)
	per := int64(blockSize) / w
	if rem := n - it.next; rem < per {
		per = rem
	}
	if int64(cap(it.buf)) < per*w {
		it.buf = make([]byte, per*w)
	}
	it.buf = it.buf[:per*w]
	off := it.next * w
	got, err := it.f.r.ReadAt(it.buf, off)
	if got < len(it.buf) {
		if err == nil || errors.Is(err, io.EOF) {
			err = ErrTruncated
		}
		// Keep the whole slots we did get; report the error when reached.
		whole := int64(got) / w
		if whole == 0 {
			return errAt(it.f.path, off+int64(got), fmt.Errorf("reading index: %w", err))
		}
		per = whole
		it.buf = it.buf[:per*w]
	}
	it.bufFirst, it.bufSlots = it.next, per
	return nil
}

// Entry returns the current entry.
func (it *Iterator[E]) Entry() E { return it.cur }

// Slot returns the slot number (0-based entry index) of the current entry.
func (it *Iterator[E]) Slot() int64 { return it.curSlot }

// ByteOffset returns the file offset of the current entry.
func (it *Iterator[E]) ByteOffset() int64 { return it.curSlot * int64(it.f.width) }

// Err returns the error that ended the iteration, if any.
func (it *Iterator[E]) Err() error { return it.err }

// Stopped returns the slot at which the stop rule ended the iteration
// (the first slot of zero padding), or -1 if it did not.
func (it *Iterator[E]) Stopped() int64 { return it.stopped }
