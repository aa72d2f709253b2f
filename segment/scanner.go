package segment

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"

	"github.com/kseg/kseg/batch"
	"github.com/kseg/kseg/located"
)

// blockSize is how much the scanner reads per call: large enough that the
// per-call cost vanishes next to the copy, small enough to stay in L2.
const blockSize = 1 << 20

// Error locates a failure in a file: kseg's one located error type.
type Error = located.Error

// Sentinel causes specific to framing a file.
var (
	// ErrRecordSize is Kafka's "Found record size N smaller than minimum
	// record overhead (14)" — typically a zero-filled (preallocated) tail.
	ErrRecordSize = errors.New("record size smaller than minimum record overhead")
	// ErrIsDirectory: a path opened as a log file is a directory.
	ErrIsDirectory = errors.New("is a directory, not a log file")
)

// EntrySizeError is an entry whose length field claims more bytes than
// kseg holds of one batch (scanner.maxEntry); it matches batch.ErrTooLarge.
type EntrySizeError struct{ Size, Limit, MaxDecompressed int64 }

func (e *EntrySizeError) Error() string {
	return fmt.Sprintf("entry of %d bytes is larger than the %d bytes kseg holds of one batch (--max-decompressed %d, plus a quarter and 4 KiB)",
		e.Size, e.Limit, e.MaxDecompressed)
}
func (e *EntrySizeError) Unwrap() error { return batch.ErrTooLarge }

// RecordSizeError carries the size Kafka would print.
type RecordSizeError struct{ Size int32 }

func (e *RecordSizeError) Error() string {
	return fmt.Sprintf("Found record size %d smaller than minimum record overhead (14)", e.Size)
}
func (e *RecordSizeError) Unwrap() error { return ErrRecordSize }

// frame is one framed log entry: a v2 batch (Magic >= 2) or a legacy
// message (Magic 0/1, possibly a compressed wrapper).
type frame struct {
	Pos    int64 // file position of the entry
	Size   int64 // 12 + length field
	Magic  int8
	Header batch.Header // v2 only; decoded from the 61 bytes at Pos
}

// scanner frames one source; Stream wraps it with keep-going, checksums and
// lazy decoding. Call next until it returns false, then check err.
type scanner struct {
	r    io.ReaderAt
	name string
	end  int64 // limited file size
	// open: the size was not known (Source.Size < 0) and no read has hit
	// the end yet; end is math.MaxInt64 until one does.
	open bool

	buf      []byte // the window: own's bytes, or a Slicer's in place
	own      []byte // the buffer reads go to (never a Slicer's bytes)
	winStart int64
	winLen   int
	slicer   Slicer // r, when it serves bytes in place

	pos   int64  // next entry position
	entry *frame // where next frames to (the stream's current batch)
	err   error
	done  bool
	block int
	// maxDecompressed is Options.MaxDecompressed (0: the default); it
	// also bounds the entries bytes will hold (maxEntry).
	maxDecompressed int
}

func (s *scanner) maxDecomp() int64 {
	if s.maxDecompressed > 0 {
		return int64(s.maxDecompressed)
	}
	return batch.DefaultMaxDecompressed
}

// maxEntry is the largest entry bytes returns: what may decompress to at
// most the decompression cap, with room for a codec that expands
// incompressible data (snappy: n/6 + 32) and the headers. A larger entry
// is refused with batch.ErrTooLarge instead of allocating its claimed size.
func (s *scanner) maxEntry() int64 {
	m := s.maxDecomp()
	return m + m/4 + 4096
}

// reset points the scanner at a new source, keeping its buffer.
func (s *scanner) reset(r io.ReaderAt, size int64, name string) {
	own, block, md := s.own, s.block, s.maxDecompressed
	if block == 0 {
		block = blockSize
	}
	*s = scanner{r: r, name: name, end: size, own: own, block: block, maxDecompressed: md}
	s.slicer, _ = r.(Slicer)
	if size < 0 {
		s.end, s.open = math.MaxInt64, true
	}
}

func (s *scanner) fail(off int64, err error) bool {
	s.err = &Error{File: s.name, Offset: off, Err: err}
	s.done = true
	return false
}

// window returns file bytes [off, off+n), reading a block if they are not
// buffered. The slice is valid until the next call.
func (s *scanner) window(off int64, n int) ([]byte, error) {
	if off >= s.winStart && off+int64(n) <= s.winStart+int64(s.winLen) {
		i := int(off - s.winStart)
		return s.buf[i : i+n], nil
	}
	if s.slicer != nil && off+int64(n) <= s.end {
		b, err := s.slicer.Slice(off, n)
		if err != nil {
			s.winLen = 0
			return nil, err
		}
		if len(b) >= n {
			if rem := s.end - off; int64(len(b)) > rem {
				b = b[:rem]
			}
			s.buf, s.winStart, s.winLen = b, off, len(b)
			return b[:n], nil
		}
	}
	// the window described the buffer being dropped (a Slicer's piece):
	// no early return below may leave it describing s.own
	s.buf, s.winLen = s.own, 0
	want := s.block
	if s.slicer != nil {
		want = 0 // the Slicer serves the bytes; this read only says why it could not
	}
	if n > want {
		want = n
	}
	if rem := s.end - off; int64(want) > rem {
		want = int(rem)
	}
	if want < n {
		return nil, io.ErrUnexpectedEOF
	}
	if cap(s.buf) < want {
		s.buf = make([]byte, want)
	}
	s.buf = s.buf[:want]
	s.own = s.buf
	m, err := s.r.ReadAt(s.buf, off)
	if s.open && err == io.EOF {
		// A source of unknown size ends at the first read that reaches
		// its end.
		s.end, s.open = off+int64(m), false
	}
	// A short read that still covers what was asked for is used: a read
	// that fails further on then fails at the entry it reaches, not at the
	// start of the block.
	if m < n {
		s.winLen = 0
		if err == nil || err == io.EOF {
			err = io.ErrUnexpectedEOF
		}
		return nil, err
	}
	s.winStart, s.winLen = off, m
	return s.buf[:n], nil
}

// next frames the next entry, following FileLogInputStream.nextBatch: stop
// quietly when 17 or fewer bytes remain or the entry runs past the end; fail
// when the size field is below 14.
func (s *scanner) next() bool {
	if s.done {
		return false
	}
	pos := s.pos
	if pos >= s.end-batch.HeaderSizeUpToMagic {
		s.done = true
		return false
	}
	b, err := s.window(pos, batch.HeaderSizeUpToMagic)
	if err != nil && pos >= s.end-batch.HeaderSizeUpToMagic {
		s.done = true // the read found the end of a source of unknown size
		return false
	}
	if err != nil {
		if errors.Is(err, ErrRead) {
			return s.fail(pos, err) // a source's failure, not an end of file
		}
		return s.fail(pos, fmt.Errorf("Unexpected EOF while attempting to read the next batch: %w", err))
	}
	size := int32(binary.BigEndian.Uint32(b[8:]))
	magic := int8(b[16])
	if size < batch.MinEntrySize {
		return s.fail(pos+8, &RecordSizeError{Size: size})
	}
	if pos > s.end-batch.LogOverhead-int64(size) {
		s.done = true
		return false
	}
	*s.entry = frame{Pos: pos, Size: batch.LogOverhead + int64(size), Magic: magic}
	if magic >= batch.MagicV2 {
		// A v2 entry shorter than 61 bytes: Kafka reads its header straight
		// into the following bytes, and fails if the file ends first.
		hb, err := s.window(pos, batch.HeaderSize)
		if err != nil {
			if isReadError(err) {
				return s.fail(pos, err)
			}
			return s.fail(pos, fmt.Errorf("Failed to load record batch at position %d: %w", pos, batch.ErrTruncated))
		}
		batch.ParseHeaderInto(&s.entry.Header, hb) // hb holds HeaderSize bytes
	}
	s.pos = pos + s.entry.Size
	return true
}

// bytes returns the whole current entry. The slice is valid until the next
// call to next or bytes. For an undersized v2 entry it still returns only
// its Size bytes.
func (s *scanner) bytes() ([]byte, error) {
	e := s.entry
	if lim := s.maxEntry(); e.Size > lim {
		// Refused before the buffer for it is allocated: the length field
		// is the input's claim (a sparse file can claim 2 GiB).
		return nil, &Error{File: s.name, Offset: e.Pos + 8, Err: &EntrySizeError{Size: e.Size, Limit: lim, MaxDecompressed: s.maxDecomp()}}
	}
	b, err := s.window(e.Pos, int(e.Size))
	if err != nil {
		return nil, &Error{File: s.name, Offset: e.Pos, Err: err}
	}
	return b, nil
}
