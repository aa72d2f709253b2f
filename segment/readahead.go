package segment

import (
	"os"
	"sync"
)

// Reading ahead on other cores (Options.ReadAhead).
//
// A checksum scan of one large file in the page cache is bound by two
// costs of about the same size: the copy out of the page cache (pread)
// and the CRC over the copy. One goroutine does them one after the
// other. readAhead moves the copies to goroutines of their own: each
// reads every lanes-th block of the file into a buffer of a small ring,
// in file order per lane, and the stream frames and checks the blocks in
// place (readAhead is a Slicer), so the copy of block k+1 runs on another
// core while the stream checks block k. Blocks are fixed slices of the
// file, not entry-aligned: an entry that crosses a block's end is read
// with ReadAt (pread, as without read-ahead), so no entry is ever served
// from two blocks. What the stream yields and reports does not change;
// only where the copying runs.

// readAheadBlock is the size of one block. Small enough that a block is
// still in a cache the stream's core shares when it is checked; large
// enough that a pread amortises its call.
const readAheadBlock = 512 << 10

// readAheadMin is the smallest file read ahead: below it, starting the
// goroutines costs more than the overlap saves.
const readAheadMin = 8 * readAheadBlock

type raBlock struct {
	off int64
	b   []byte
}

// readAhead serves a local file's bytes to one stream. Slice and ReadAt
// are called by that stream's goroutine only.
type readAhead struct {
	f     *os.File
	size  int64
	lanes []chan raBlock // block k arrives on lanes[k%len(lanes)]; closed when the lane ends
	free  chan []byte
	stop  chan struct{}
	halt  sync.Once
	wg    sync.WaitGroup

	next     int64   // index of the next block to take from the lanes
	cur      raBlock // the block Slice last served from (b nil: none)
	prev     []byte  // the block before it, kept until cur is left: its bytes may back the batch before
	finished bool    // a lane ended: no more blocks in place, ReadAt serves the rest
}

// newReadAhead starts lanes goroutines reading f (size bytes) ahead.
func newReadAhead(f *os.File, size int64, lanes int) *readAhead {
	r := &readAhead{f: f, size: size, stop: make(chan struct{})}
	// Per lane: one block being read, one waiting in its channel; the
	// stream holds two (cur and prev).
	bufs := 2*lanes + 2
	r.free = make(chan []byte, bufs)
	for range bufs {
		r.free <- make([]byte, readAheadBlock)
	}
	r.lanes = make([]chan raBlock, lanes)
	for i := range r.lanes {
		r.lanes[i] = make(chan raBlock, 1)
		r.wg.Add(1)
		go r.lane(i)
	}
	return r
}

// lane reads blocks i, i+lanes, ... into free buffers until the end of the
// file, a short read or stop. A short read ends the lane: the stream reads
// from there with ReadAt, which reports what went wrong.
func (r *readAhead) lane(i int) {
	defer r.wg.Done()
	defer close(r.lanes[i])
	n := int64(len(r.lanes))
	for k := int64(i); k*readAheadBlock < r.size; k += n {
		var buf []byte
		select {
		case buf = <-r.free:
		case <-r.stop:
			return
		}
		off := k * readAheadBlock
		want := int(min(readAheadBlock, r.size-off))
		m, _ := r.f.ReadAt(buf[:want], off)
		if m < want {
			r.free <- buf // never blocks: the buffer came from free
			return
		}
		select {
		case r.lanes[i] <- raBlock{off: off, b: buf[:m]}:
		case <-r.stop:
			return
		}
	}
}

// Slice serves [off, off+n) in place when one block holds it, taking
// blocks forward to the one holding off; nil otherwise (behind the
// blocks, across a block's end, or past a lane's end), for ReadAt.
func (r *readAhead) Slice(off int64, n int) ([]byte, error) {
	if !r.finished && off >= (r.next+int64(2*len(r.lanes)))*readAheadBlock {
		// A jump far ahead (a resync past a hole of a sparse file, which
		// it skips without reading): the lanes would read everything
		// before it. ReadAt serves the rest of the file.
		r.finished = true
		r.halt.Do(func() { close(r.stop) })
	}
	for !r.finished && (r.cur.b == nil || off >= r.cur.off+int64(len(r.cur.b))) {
		if r.next*readAheadBlock >= r.size || r.next*readAheadBlock > off {
			break // off lies behind the next block, and not in cur
		}
		blk, ok := <-r.lanes[r.next%int64(len(r.lanes))]
		if !ok {
			r.finished = true
			break
		}
		r.next++
		r.release(blk)
	}
	c := r.cur
	if c.b == nil || off < c.off || off+int64(n) > c.off+int64(len(c.b)) {
		return nil, nil
	}
	return c.b[off-c.off:], nil
}

// release makes blk the current block, recycling the one before the
// current.
func (r *readAhead) release(blk raBlock) {
	if r.prev != nil {
		r.free <- r.prev[:cap(r.prev)]
	}
	r.prev, r.cur = r.cur.b, blk
}

// ReadAt reads from the file itself: an entry across blocks, or a read
// the blocks do not cover.
func (r *readAhead) ReadAt(p []byte, off int64) (int, error) { return r.f.ReadAt(p, off) }

// Close stops the lanes and closes the file.
func (r *readAhead) Close() error {
	r.halt.Do(func() { close(r.stop) })
	r.wg.Wait()
	return r.f.Close()
}

var _ Slicer = (*readAhead)(nil)
