package dump

import (
	"io"
	"sync"
	"sync/atomic"

	"github.com/kseg/kseg/internal/rfile"
	"github.com/kseg/kseg/segment"
)

// fileBlocks reads a log file in blocks that outlive the stream's window:
// it is the stream's reader and a segment.Slicer, so the stream frames
// each entry in place in the block that holds it, and a parallel dump's
// chunk refers to the entry there (taking a reference on the block)
// instead of copying it. The file's bytes are read once, into a block,
// and a worker formats them from it.
//
// A block starts where the entry the stream asked for starts, so an entry
// never spans two blocks; a block goes back to the free list when the
// stream has moved on from it and no chunk refers to it. Only the
// stream's goroutine calls Slice, ReadAt and hold; release may be called
// from any.
type fileBlocks struct {
	r     io.ReaderAt
	size  int64 // the bytes the stream frames (a --max-bytes limit)
	block int   // a block's usual size
	cur   *dataBlock

	mu   sync.Mutex
	free []*dataBlock
	// out counts the blocks read and not yet released by all their
	// holders (0 once a dump has let go of every one; tests check it).
	out atomic.Int64
}

// dataBlock is the bytes [start, start+len(b)) of the file.
type dataBlock struct {
	b     []byte
	start int64
	refs  atomic.Int32 // the stream's (while it is cur) and chunks'
	pool  *fileBlocks
}

// fileBlockSize is a block's usual size, the stream's own: a block read
// is about to be framed, and a worker formats it soon after. (A variable
// for tests.)
var fileBlockSize = 1 << 20

const (
	// maxFreeBlocks and keepBlock bound what the free list keeps.
	maxFreeBlocks = 4
	keepBlock     = 16 << 20
)

// openBlocks opens path as segment.OpenFile does (regular files only, a
// directory refused with segment.ErrIsDirectory), framing at most
// maxBytes of it (<= 0: all), with the stream reading through blocks.
// Close the returned closer when done.
func openBlocks(path string, maxBytes int64, opts segment.Options) (*segment.Stream, *fileBlocks, io.Closer, error) {
	f, info, err := rfile.OpenInfo(path)
	if err != nil {
		return nil, nil, nil, err
	}
	if info.Dir {
		f.Close()
		return nil, nil, nil, &segment.Error{File: path, Offset: -1, Err: segment.ErrIsDirectory}
	}
	size := info.Size
	if maxBytes > 0 && maxBytes < size {
		size = maxBytes
	}
	fb := &fileBlocks{r: f, size: size, block: fileBlockSize}
	return segment.NewStream(segment.Source{Name: path, R: fb, Size: size}, opts), fb, f, nil
}

// ReadAt reads the file (the stream's fallback, which says why Slice
// could not serve bytes).
func (f *fileBlocks) ReadAt(p []byte, off int64) (int, error) { return f.r.ReadAt(p, off) }

// Slice implements segment.Slicer: the bytes from off to the end of the
// current block when it holds [off, off+n), else a new block read from
// off; nil when the file holds fewer than n bytes from off.
func (f *fileBlocks) Slice(off int64, n int) ([]byte, error) {
	if c := f.cur; c != nil && off >= c.start && off+int64(n) <= c.start+int64(len(c.b)) {
		return c.b[off-c.start:], nil
	}
	want := max(f.block, n)
	if rem := f.size - off; int64(want) > rem {
		want = int(max(rem, 0))
	}
	if want < n {
		return nil, nil
	}
	blk := f.get(want)
	m, _ := f.r.ReadAt(blk.b[:want], off)
	if m < n {
		f.put(blk)
		return nil, nil // the stream reads again and says why
	}
	blk.b, blk.start = blk.b[:m], off
	blk.refs.Store(1)
	f.out.Add(1)
	if f.cur != nil {
		f.cur.release()
	}
	f.cur = blk
	return blk.b, nil
}

// holder returns the block that holds raw, the bytes of the entry at
// pos, or nil when raw is not in a block (the stream read it into its own
// buffer: copy it). It takes no reference: the caller takes one
// (dataBlock.hold) before the stream moves on.
func (f *fileBlocks) holder(raw []byte, pos int64) *dataBlock {
	c := f.cur
	if c == nil || len(raw) == 0 || pos < c.start || pos+int64(len(raw)) > c.start+int64(len(c.b)) || &c.b[pos-c.start] != &raw[0] {
		return nil
	}
	return c
}

// close lets go of the current block.
func (f *fileBlocks) close() {
	if f.cur != nil {
		f.cur.release()
		f.cur = nil
	}
}

func (f *fileBlocks) get(n int) *dataBlock {
	f.mu.Lock()
	for i := len(f.free) - 1; i >= 0; i-- {
		if b := f.free[i]; cap(b.b) >= n {
			f.free = append(f.free[:i], f.free[i+1:]...)
			f.mu.Unlock()
			b.b = b.b[:cap(b.b)]
			return b
		}
	}
	f.mu.Unlock()
	return &dataBlock{b: make([]byte, max(n, f.block)), pool: f}
}

func (f *fileBlocks) put(b *dataBlock) {
	if cap(b.b) > keepBlock {
		return
	}
	f.mu.Lock()
	if len(f.free) < maxFreeBlocks {
		f.free = append(f.free, b)
	}
	f.mu.Unlock()
}

// hold takes a reference.
func (b *dataBlock) hold() { b.refs.Add(1) }

// release drops a reference; the last one returns the block to its pool.
func (b *dataBlock) release() {
	if b.refs.Add(-1) == 0 {
		b.pool.out.Add(-1)
		b.pool.put(b)
	}
}
