package segment

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"io/fs"

	"github.com/kseg/kseg/batch"
	"github.com/kseg/kseg/internal/rfile"
	"github.com/kseg/kseg/located"
)

// Source is a named span of bytes to frame: a file, a slice of one, a
// fetched response, a remote object. Name is used in errors and output.
type Source struct {
	Name string
	R    io.ReaderAt
	// Size is the size of the bytes R serves; -1 when it is not known
	// ahead (bytes fetched from a broker): the source then ends where a
	// ReadAt returns io.EOF, and Stream.Size reports that end once reached.
	Size int64
	// Start is where framing starts (a seek's position: an entry at or
	// before Window.From); 0 is the start.
	Start int64
	// Window, when set, is what the Stream yields of the source: the
	// batches in its range that pass its filter (Segment.OpenSource sets
	// it from the segment's).
	Window *Window
}

// BytesSource frames b in memory, in place: the stream's entries are
// slices of b, not copies (b must not change while it is framed).
func BytesSource(name string, b []byte) Source {
	return Source{Name: name, R: memSource{bytes.NewReader(b), b}, Size: int64(len(b))}
}

// Slicer is a Source's reader that holds its bytes in memory and can hand
// them out in place: Slice returns the bytes from off to the end of the
// piece that holds off, when that piece holds at least n bytes from off,
// or nil when it does not (the stream then reads [off, off+n) with ReadAt,
// which says why). The slice must stay as it is while the stream frames
// from it. A fetched response (internal/wire) and BytesSource are Slicers:
// framing them copies nothing.
type Slicer interface {
	Slice(off int64, n int) ([]byte, error)
}

type memSource struct {
	*bytes.Reader
	b []byte
}

func (m memSource) Slice(off int64, n int) ([]byte, error) {
	if off < 0 || off+int64(n) > int64(len(m.b)) {
		return nil, nil
	}
	return m.b[off:], nil
}

// Options say what a Stream does beyond framing.
type Options struct {
	// KeepGoing reports each corrupt region once to OnRegion and
	// resynchronises on the next valid v2 batch or legacy message, instead
	// of stopping with Err.
	KeepGoing bool
	// VerifyCRC treats an entry whose checksum does not match (or a v2
	// entry too short for its header) as corrupt rather than yielding it.
	VerifyCRC bool
	// OnRegion is told of every region skipped under KeepGoing.
	OnRegion func(Region)
	// MaxDecompressed caps one batch's decompressed size (0: the batch
	// package default).
	MaxDecompressed int
	// BlockSize is how much is read at a time (0: 1 MiB). Small reads
	// suit a look at one batch, such as an index entry's.
	BlockSize int
	// ReadAhead, above 0, reads a local file of 4 MiB or more ahead of
	// the stream on that many goroutines (readahead.go): the copies out
	// of the page cache run on other cores than the framing and the
	// checksums. For one stream with cores to spare; what the stream
	// yields and reports does not change.
	ReadAhead int
	// LenientTail keeps Kafka's reading of a clean end: whatever the bytes
	// after the last whole entry hold, they are "invalid bytes at the end"
	// (kafka-dump-log's --files form). Without it, a stop before the end
	// followed by entries that frame with valid checksums is an error
	// (*TrailingError), since the log is corrupt there, not torn.
	LenientTail bool
}

// Region is a span skipped under KeepGoing: [From, To). Resumed is false
// when no valid entry follows (To is then the end of the source). Cause is
// a located *Error.
type Region struct {
	File     string
	From, To int64
	Cause    error
	Resumed  bool
}

// Causes a Stream gives to regions of its own finding.
var (
	// ErrPastEnd: an entry's length runs past the end of the source, yet a
	// valid entry starts later (so this is not a torn tail).
	ErrPastEnd = errors.New("the entry there runs past the end of the file")
	// ErrTrailingBatches: framing stopped before the end of the source and
	// valid entries follow the stop point (a *TrailingError says where).
	ErrTrailingBatches = errors.New("valid batches follow where framing stopped")
)

// TrailingError is the cause, located at the stop point, of a stream that
// stopped quietly before the end of its source (an entry running past the
// end) while entries with valid checksums follow: a corrupt length, not a
// torn or preallocated tail. Without Options.LenientTail it is the
// stream's error; under KeepGoing the same span is a Region (ErrPastEnd).
type TrailingError struct {
	Next    int64 // where the first valid entry after the stop point starts
	Batches int64 // entries that frame from Next on, before framing stops again
	Bytes   int64 // their bytes
	Left    int64 // bytes from the stop point to the end of the source
}

func (e *TrailingError) Error() string {
	return fmt.Sprintf("the entry there runs past the end of the file (%d bytes left), yet %d bytes after it frame as valid batches (%d, from byte %d on): the log is corrupt there, not torn",
		e.Left, e.Bytes, e.Batches, e.Next)
}

func (e *TrailingError) Unwrap() error { return ErrTrailingBatches }

// ChecksumError is a v2 batch or legacy message whose stored checksum
// does not match its bytes (Options.VerifyCRC).
type ChecksumError struct {
	Header            batch.Header // v2 only
	Magic             int8
	Stored, Computed  uint32
	ShorterThanHeader bool  // a v2 entry of fewer than 61 bytes
	Size              int64 // the entry's size
}

func (e *ChecksumError) Error() string {
	if e.ShorterThanHeader {
		return fmt.Sprintf("entry of %d bytes is shorter than a v2 batch header", e.Size)
	}
	return fmt.Sprintf("checksum mismatch (stored %d, computed %d)", e.Stored, e.Computed)
}

func (e *ChecksumError) Unwrap() error { return batch.ErrCorrupt }

// Stream yields the entries of one source in order. Create with NewStream
// or OpenFile; call Next until it returns false, then check Err and Tail.
// A Stream and its buffers may be reused for another source with Reset.
type Stream struct {
	opts   Options
	sc     scanner
	rc     *rangeCRC    // prefix checksums, built on the first resync
	win    *Window      // the source's Window: batches outside it are passed over
	winIn  BatchInfo    // scratch for the window's checks
	wrec   batch.Record // likewise
	cur    Batch
	err    error
	tail   int64
	closer io.Closer

	// decoding state, reused across batches
	br     batch.BatchReader
	dec    batch.Decompressor
	legacy batch.LegacyMessage
	inner  []batch.LegacyMessage
	liter  batch.LegacyIter
}

// NewStream frames src.
func NewStream(src Source, opts Options) *Stream {
	s := &Stream{opts: opts}
	s.Reset(src)
	return s
}

// OpenFile opens path read-only and frames at most maxBytes of it (<= 0:
// all). Close closes the file.
func OpenFile(path string, maxBytes int64, opts Options) (*Stream, error) {
	s := &Stream{opts: opts}
	if err := s.OpenFile(path, maxBytes); err != nil {
		return nil, err
	}
	return s, nil
}

// OpenFile closes the current file, if the stream opened one, and frames
// path with the same options and buffers.
func (s *Stream) OpenFile(path string, maxBytes int64) error {
	s.Close()
	// rfile refuses a FIFO, socket or device before it can block.
	f, info, err := rfile.OpenInfo(path)
	if err != nil {
		return err
	}
	if info.Dir {
		f.Close()
		return &Error{File: path, Offset: -1, Err: ErrIsDirectory}
	}
	size := info.Size
	if maxBytes > 0 && maxBytes < size {
		size = maxBytes
	}
	if s.opts.ReadAhead > 0 && size >= readAheadMin {
		ra := newReadAhead(f, size, s.opts.ReadAhead)
		s.Reset(Source{Name: path, R: ra, Size: size})
		s.closer = ra
		return nil
	}
	s.Reset(Source{Name: path, R: f, Size: size})
	s.closer = f
	return nil
}

// StartAt, called after opening a source and before the first Next,
// frames it from byte pos (an entry boundary an earlier read found)
// instead of its start.
func (s *Stream) StartAt(pos int64) { s.sc.pos = max(pos, 0) }

// SetOptions changes the options for the next source opened or Reset.
func (s *Stream) SetOptions(opts Options) { s.opts = opts }

// OpenSegment closes what the stream had open and frames seg: its file, or
// the source its Open gives; with a Window, from the seek's position and
// only what the window selects (Segment.OpenSource).
func (s *Stream) OpenSegment(seg Segment, maxBytes int64) error {
	if seg.Window != nil {
		s.Close()
		src, closer, err := seg.OpenSource()
		if err != nil {
			return err
		}
		if maxBytes > 0 && maxBytes < src.Size {
			src.Size = maxBytes
		}
		s.Reset(src)
		s.closer = closer
		return nil
	}
	if seg.Open == nil {
		return s.OpenFile(seg.Path, maxBytes)
	}
	s.Close()
	src, closer, err := seg.Open()
	if err != nil {
		return Locate(seg.Path, -1, err)
	}
	if maxBytes > 0 && maxBytes < src.Size {
		src.Size = maxBytes
	}
	s.Reset(src)
	s.closer = closer
	return nil
}

// Reset frames src from its start, keeping buffers. It does not close a
// file the stream opened: call Close first.
func (s *Stream) Reset(src Source) {
	s.sc.maxDecompressed = s.opts.MaxDecompressed
	s.sc.reset(src.R, src.Size, src.Name)
	if s.opts.BlockSize > 0 {
		s.sc.block = s.opts.BlockSize
	}
	s.sc.pos = max(src.Start, 0)
	s.win = src.Window
	if s.opts.BlockSize == 0 {
		s.sc.block = blockSize
		if s.win != nil && s.win.To != Unbounded {
			// A bounded range is usually short: read what it needs,
			// not 1 MiB at a time (a larger entry is still read whole).
			s.sc.block = windowBlock
		}
	}
	s.rc, s.err, s.tail, s.closer = nil, nil, -1, nil
	s.cur = Batch{File: src.Name, s: s}
	s.sc.entry = &s.cur.frame
	s.dec.Max = s.opts.MaxDecompressed
	s.br.Decompressor.Max = s.opts.MaxDecompressed
}

// Close closes the file OpenFile opened; a no-op for other sources.
func (s *Stream) Close() error {
	if s.closer == nil {
		return nil
	}
	err := s.closer.Close()
	s.closer = nil
	return err
}

// Name is the source's name.
func (s *Stream) Name() string { return s.sc.name }

// Size is the (possibly limited) size of the source.
func (s *Stream) Size() int64 { return s.sc.end }

// Err is the error that stopped the stream; nil at a clean end.
func (s *Stream) Err() error { return s.err }

// Tail is, after a clean end, where the bytes that frame no entry start
// (Size when there are none): Kafka's "invalid bytes at the end".
func (s *Stream) Tail() int64 {
	if s.tail < 0 {
		return s.sc.pos
	}
	return s.tail
}

// Batch is the current entry, valid until the next call to Next.
func (s *Stream) Batch() *Batch { return &s.cur }

// Next advances to the next entry. A framing error stops the stream (see
// Err) or, with KeepGoing, becomes a region and the stream resumes at the
// next valid entry.
func (s *Stream) Next() bool {
	for {
		if s.err != nil {
			return false
		}
		if s.sc.next() {
			s.cur.parsed, s.cur.inner, s.cur.records, s.cur.iter = false, false, false, false
			if s.opts.VerifyCRC {
				if cause := s.checkCRC(); cause != nil {
					if isReadError(cause) {
						s.err = cause
						return false
					}
					if !s.Reject(cause) {
						return false
					}
					continue
				}
			}
			if s.win != nil {
				keep, stop, err := s.inWindow()
				if err != nil {
					if isReadError(err) {
						s.err = err
						return false
					}
					if !s.Skip(err) {
						return false
					}
					continue
				}
				if stop {
					// Past the range: a clean end, with nothing left
					// unread that is "invalid bytes".
					s.sc.done, s.tail = true, s.sc.end
					return false
				}
				if !keep {
					continue
				}
			}
			return true
		}
		if err := s.sc.err; err != nil {
			from := s.sc.pos // the failing entry's position: pos moves only past good ones
			if !s.opts.KeepGoing || isReadError(err) {
				s.err = err
				return false
			}
			s.skipTo(from, err)
			continue
		}
		// A quiet stop before the end: an entry running past the end of
		// the source. Intact entries after it make it a corrupt region,
		// not a torn tail.
		validEnd := s.sc.pos
		if s.opts.KeepGoing && validEnd < s.sc.end {
			if next, ok := s.resync(validEnd + 1); ok {
				s.report(Region{From: validEnd, To: next, Resumed: true,
					Cause: &Error{File: s.sc.name, Offset: validEnd, Err: ErrPastEnd}})
				continue
			}
		}
		s.tail = validEnd
		if !s.opts.KeepGoing && !s.opts.LenientTail && validEnd < s.sc.end {
			if err := s.trailing(validEnd); err != nil {
				s.err = err
			}
		}
		return false
	}
}

// trailing looks, after a quiet stop at validEnd, for an entry with a valid
// checksum after it; when there is one it returns the located
// *TrailingError (or a read error), else nil. The scan is left done.
func (s *Stream) trailing(validEnd int64) error {
	next, ok := s.resync(validEnd + 1)
	if err := s.sc.err; err != nil && isReadError(err) {
		return err
	}
	if !ok {
		s.sc.pos, s.sc.done, s.sc.err = validEnd, true, nil
		return nil
	}
	te := &TrailingError{Next: next, Left: s.sc.end - validEnd}
	var probe frame
	saved := s.sc.entry
	s.sc.entry = &probe
	for s.sc.next() {
		te.Batches++
		te.Bytes += probe.Size
	}
	readErr := s.sc.err
	s.sc.entry = saved
	s.sc.pos, s.sc.done, s.sc.err = validEnd, true, nil
	if readErr != nil && isReadError(readErr) {
		return readErr
	}
	return &Error{File: s.sc.name, Offset: validEnd, Err: te}
}

// Reject declares the current entry corrupt as a whole (its header cannot
// be trusted, so neither can its length). With KeepGoing the region up to
// the next valid entry is reported and Reject returns true; otherwise, or
// when cause is a failed read, the stream stops with cause as its error
// and Reject returns false.
func (s *Stream) Reject(cause error) bool {
	if !s.opts.KeepGoing || isReadError(cause) {
		s.err = s.locate(s.cur.Pos, cause)
		s.sc.done = true
		return false
	}
	s.skipTo(s.cur.Pos, cause)
	return true
}

// Skip declares the current entry's contents bad while its framing holds:
// with KeepGoing its bytes are reported as a region and the stream goes on
// with the entry after it (true); otherwise the stream stops (false).
func (s *Stream) Skip(cause error) bool {
	if !s.opts.KeepGoing || isReadError(cause) {
		s.err = s.locate(s.cur.Pos, cause)
		s.sc.done = true
		return false
	}
	s.report(Region{From: s.cur.Pos, To: s.cur.Pos + s.cur.Size, Resumed: true, Cause: s.locate(s.cur.Pos, cause)})
	return true
}

// ErrRead is what errors.Is finds in a ReadError.
var ErrRead = errors.New("read failed")

// ReadError marks a source's failure to deliver bytes (a disk, a network, an
// object store: an HTTP error, a truncated body, a timeout, a chunk that
// cannot be decrypted) as opposed to bytes that were read and are corrupt.
// A Source's ReadAt wraps its failures in it (a *fs.PathError counts as
// one too); the stream stops at it, with or without KeepGoing, and never
// reports it as a corrupt region. Its text is the wrapped error's.
type ReadError struct{ Err error }

func (e *ReadError) Error() string        { return e.Err.Error() }
func (e *ReadError) Unwrap() error        { return e.Err }
func (e *ReadError) Is(target error) bool { return target == ErrRead }

// ReadFailure wraps err as a ReadError (nil and io.EOF stay as they are).
func ReadFailure(err error) error {
	if err == nil || err == io.EOF || errors.Is(err, ErrRead) {
		return err
	}
	return &ReadError{Err: err}
}

// isReadError tells a failed read (the disk, the network, a store) from
// corrupt bytes: there is nothing to resynchronise past.
func isReadError(err error) bool {
	if err == nil {
		return false
	}
	var pe *fs.PathError
	return errors.As(err, &pe) || errors.Is(err, ErrRead)
}

func (s *Stream) skipTo(from int64, cause error) {
	next, ok := s.resync(from + 1)
	if s.err != nil {
		return // a read failed while searching: the stream stops at it
	}
	s.report(Region{From: from, To: next, Resumed: ok, Cause: s.locate(from, cause)})
}

func (s *Stream) report(r Region) {
	r.File = s.sc.name
	if s.opts.OnRegion != nil {
		s.opts.OnRegion(r)
	}
}

// locate wraps err with the file and absolute position, unless it already
// is located; a batch.FormatError's batch-relative position is added to pos.
func (s *Stream) locate(pos int64, err error) error {
	return Locate(s.sc.name, pos, err)
}

// Locate wraps err as an *Error at file position pos plus, for a
// batch.FormatError, its position inside the entry; an error that already
// has a location keeps it.
func Locate(file string, pos int64, err error) error {
	var fe *batch.FormatError
	if errors.As(err, &fe) {
		return located.At(file, pos+fe.Pos, err)
	}
	return located.At(file, pos, err)
}

func (s *Stream) checkCRC() error {
	b := &s.cur
	raw, err := b.Bytes()
	if err != nil {
		return err
	}
	if b.Magic >= batch.MagicV2 {
		if len(raw) < batch.HeaderSize {
			return &ChecksumError{Magic: b.Magic, ShorterThanHeader: true, Size: b.Size}
		}
		if c := batch.ComputeCRC(raw); c != b.Header.CRC {
			return &ChecksumError{Header: b.Header, Magic: b.Magic, Stored: b.Header.CRC, Computed: c, Size: b.Size}
		}
		return nil
	}
	if len(raw) < 16 {
		return &ChecksumError{Magic: b.Magic, Size: b.Size}
	}
	stored := binary.BigEndian.Uint32(raw[12:])
	if c := batch.LegacyCRC(raw); c != stored {
		return &ChecksumError{Magic: b.Magic, Stored: stored, Computed: c, Size: b.Size}
	}
	return nil
}

// Minimum message sizes of Kafka's LegacyRecord (RECORD_OVERHEAD_V0/V1).
const (
	legacyOverheadV0 = 14
	legacyOverheadV1 = 22
)

// resync finds the first position at or after from where a well-formed
// entry with a valid checksum starts (a v2 batch or a legacy message) and
// continues the scan there. It returns that position and true, or the end
// and false when none exists (the scan is then done). Time is linear in the
// bytes searched: candidates are checked with rangeCRC, not by reading
// each one's bytes.
func (s *Stream) resync(from int64) (int64, bool) {
	sc := &s.sc
	sc.err, sc.done = nil, false
	if s.rc == nil || from < s.rc.origin {
		s.rc = newRangeCRC(sc.r, from, sc.end)
	}
	for p := from; p <= sc.end-batch.HeaderSizeUpToMagic; p++ {
		hb, err := sc.window(p, batch.HeaderSizeUpToMagic)
		if err != nil {
			if isReadError(err) {
				s.err = err
			}
			break
		}
		size := int64(int32(binary.BigEndian.Uint32(hb[8:])))
		if size == 0 {
			// In a run of zeros (a preallocated or sparse tail) no
			// candidate frames until a non-zero byte reaches a length
			// field: jump to the first position whose field holds one.
			z, ok := s.nextNonZero(p + 12)
			if !ok {
				break
			}
			p = max(p, z-12) // p+1..z-12 have all-zero length fields
			continue
		}
		magic := int8(hb[16])
		end := p + batch.LogOverhead + size
		if size < 0 || end > sc.end {
			continue
		}
		var ok bool
		switch magic {
		case batch.MagicV2:
			if size < batch.HeaderSize-batch.LogOverhead {
				continue
			}
			hb, err := sc.window(p, batch.HeaderSize)
			if err != nil {
				continue
			}
			stored := binary.BigEndian.Uint32(hb[17:])
			c, err := s.rc.castagnoli(p+21, end)
			if isReadError(err) {
				s.err = err
				break
			}
			ok = err == nil && c == stored
		case batch.MagicV0, batch.MagicV1:
			if size < legacyOverheadV0 || (magic == batch.MagicV1 && size < legacyOverheadV1) {
				continue
			}
			stored := binary.BigEndian.Uint32(hb[12:])
			c, err := s.rc.ieee(p+16, end)
			if isReadError(err) {
				s.err = err
				break
			}
			ok = err == nil && c == stored
		}
		if s.err != nil {
			break
		}
		if ok {
			sc.pos = p
			return p, true
		}
	}
	sc.pos, sc.done = sc.end, true
	return sc.end, false
}

var zeroBlock [64 << 10]byte

// nextNonZero is the position of the first non-zero byte at or after from,
// read in blocks; false at the end of the source (or a failed read).
func (s *Stream) nextNonZero(from int64) (int64, bool) {
	sc := &s.sc
	for from < sc.end {
		if pos, end, ok := nextData(sc.r, from); ok {
			// A hole reads as zeros: jump over it without reading it.
			if end || pos >= sc.end {
				return 0, false
			}
			from = pos
		}
		n := int(min(int64(len(zeroBlock)), sc.end-from))
		b, err := sc.window(from, n)
		if err != nil {
			if isReadError(err) {
				s.err = err // a failed read stops the stream, in the search too
			}
			return 0, false
		}
		if !bytes.Equal(b, zeroBlock[:n]) {
			for i, c := range b {
				if c != 0 {
					return from + int64(i), true
				}
			}
		}
		from += int64(n)
	}
	return 0, false
}

// Batch is one framed top-level entry: a v2 record batch, or a legacy (v0/v1)
// message, which is a compressed wrapper or a single uncompressed message.
// Framing reads only the header; the rest is decoded on request, and every
// slice it returns is valid until the stream moves on.
type Batch struct {
	File string
	// frame: Pos (position of the entry in the source), Size (bytes of the
	// entry, log overhead included), Magic, Header (v2 only). The scanner
	// frames straight into it.
	frame

	s       *Stream
	parsed  bool // s.legacy holds this entry's message
	inner   bool // s.inner holds this entry's inner messages
	records bool // s.br is open on this entry
	iter    bool // s.liter is open on this entry (and s.dec holds its bytes)
}

// IsLegacy reports a magic v0/v1 entry.
func (b *Batch) IsLegacy() bool { return b.Magic < batch.MagicV2 }

// Bytes returns the whole entry.
func (b *Batch) Bytes() ([]byte, error) {
	return b.s.sc.bytes()
}

// Legacy returns the legacy message (a wrapper or a single message), fully
// parsed.
func (b *Batch) Legacy() (*batch.LegacyMessage, error) {
	if b.parsed {
		return &b.s.legacy, nil
	}
	raw, err := b.Bytes()
	if err != nil {
		return nil, err
	}
	m, err := batch.ParseLegacy(raw)
	if err != nil {
		return nil, b.s.locate(b.Pos, err)
	}
	b.s.legacy, b.parsed = m, true
	return &b.s.legacy, nil
}

// Inner returns a legacy entry's messages: those inside a compressed
// wrapper, decompressed, or the message itself.
func (b *Batch) Inner() ([]batch.LegacyMessage, error) {
	if b.inner {
		return b.s.inner, nil
	}
	m, err := b.Legacy()
	if err != nil {
		return nil, err
	}
	b.iter = false // s.dec is reused
	b.s.inner, err = batch.LegacyInner(m, &b.s.dec, b.s.inner)
	if err != nil {
		return nil, b.s.locate(b.Pos, err)
	}
	b.inner = true
	return b.s.inner, nil
}

// InnerIter opens a legacy entry's messages (those inside a compressed
// wrapper, decompressed, or the message itself) one at a time, checked as
// Inner checks them but without a slice of them: a wrapper of millions of
// tiny messages costs its decompressed bytes only. The iterator is valid
// until the stream moves on.
func (b *Batch) InnerIter() (*batch.LegacyIter, error) {
	if b.iter {
		b.s.liter.Rewind()
		return &b.s.liter, nil
	}
	m, err := b.Legacy()
	if err != nil {
		return nil, err
	}
	b.inner = false // the decompressor's buffer is reused
	if err := b.s.liter.Open(m, &b.s.dec); err != nil {
		return nil, b.s.locate(b.Pos, err)
	}
	b.iter = true
	return &b.s.liter, nil
}

// Records opens a v2 batch's records for decoding (decompressing a
// compressed batch in full, as Kafka does) and returns the reader.
func (b *Batch) Records() (*batch.BatchReader, error) {
	raw, err := b.Bytes()
	if err != nil {
		return nil, err
	}
	if err := b.s.br.Open(raw, &b.Header); err != nil {
		return nil, b.s.locate(b.Pos, err)
	}
	b.records = true
	return &b.s.br, nil
}

// Decompress returns the decompressed record payload of a compressed v2
// batch, or the value of a legacy wrapper.
func (b *Batch) Decompress() ([]byte, error) {
	raw, err := b.Bytes()
	if err != nil {
		return nil, err
	}
	if len(raw) < batch.HeaderSize {
		return nil, b.s.locate(b.Pos, &batch.FormatError{Pos: int64(len(raw)), Err: batch.ErrTruncated})
	}
	b.iter, b.inner = false, false // s.dec is reused
	out, err := b.s.dec.Decompress(b.Header.Codec(), raw[batch.HeaderSize:], b.Magic)
	if err != nil {
		return nil, b.s.locate(b.Pos, err)
	}
	return out, nil
}

// BatchInfo is a batch's summary in one shape for v2 and legacy entries.
//
// For a legacy entry the offsets and count are those of its inner messages
// (a compressed wrapper holds several), so every command counts the same
// records for the same file.
type BatchInfo struct {
	File          string
	Pos           int64
	Size          int64
	Magic         int8
	BaseOffset    int64 // legacy compressed wrapper: its first inner offset
	LastOffset    int64
	Records       int // v2: the header's count; legacy: the inner message count
	Control       bool
	Transactional bool
	Codec         batch.Codec
	MaxTimestamp  int64 // -1 when there is none
	ProducerID    int64 // -1 for legacy entries
	ProducerEpoch int16
	BaseSequence  int32
	// Payload is the stored size of a compressed batch's records (v2) or of
	// a legacy wrapper's value; 0 for uncompressed entries.
	Payload int64
	// Uncompressed is a legacy wrapper's inner bytes (always measured, the
	// wrapper is decompressed to count its messages); 0 for v2 batches.
	Uncompressed int64
}

// Info summarises the batch; for a legacy entry this parses it, and
// decompresses a wrapper to count its messages.
func (b *Batch) Info() (BatchInfo, error) {
	var in BatchInfo
	err := b.infoInto(&in)
	return in, err
}

// infoInto is Info writing into in, for the counting loop.
func (b *Batch) infoInto(in *BatchInfo) error {
	*in = BatchInfo{File: b.File, Pos: b.Pos, Size: b.Size, Magic: b.Magic}
	if !b.IsLegacy() {
		h := &b.Header
		in.BaseOffset, in.LastOffset = h.BaseOffset, h.LastOffset()
		in.Records, in.Control, in.Transactional = int(h.RecordCount), h.IsControl(), h.IsTransactional()
		in.Codec, in.MaxTimestamp = h.Codec(), max(h.MaxTimestamp, -1)
		in.ProducerID, in.ProducerEpoch, in.BaseSequence = h.ProducerID, h.ProducerEpoch, h.BaseSequence
		if in.Codec != batch.CodecNone {
			in.Payload = max(b.Size-batch.HeaderSize, 0)
		}
		return nil
	}
	m, err := b.Legacy()
	if err != nil {
		return err
	}
	in.BaseOffset, in.LastOffset, in.Records = m.Offset, m.Offset, 1
	in.Codec, in.MaxTimestamp = m.Codec(), max(m.Timestamp, -1)
	in.ProducerID, in.ProducerEpoch, in.BaseSequence = batch.NoProducerID, batch.NoProducerEpoch, batch.NoSequence
	if in.Codec != batch.CodecNone {
		in.Payload = int64(len(m.Value))
		// Counted without building the messages (InnerIter).
		it, err := b.InnerIter()
		if err != nil {
			return err
		}
		in.BaseOffset, in.Records, in.Uncompressed = it.FirstOffset(), it.Len(), it.InnerSize()
	}
	return nil
}

// windowBlock is the read size of a stream over a bounded window.
const windowBlock = 64 << 10

// inWindow decides the current entry against the stream's window: keep
// it, pass over it, or stop (it starts at or past the range's end). Batch
// filters look at the header; a record filter decodes only a batch that
// passes them.
func (s *Stream) inWindow() (keep, stop bool, err error) {
	b, w, in := &s.cur, s.win, &s.winIn
	f := w.Filter
	var first, last int64
	if b.IsLegacy() {
		if err := b.infoInto(in); err != nil {
			return false, false, err
		}
		first, last = in.BaseOffset, in.LastOffset
	} else {
		first, last = b.Header.BaseOffset, b.Header.LastOffset()
	}
	if first >= w.To || w.Empty() {
		return false, true, nil
	}
	if last < w.From {
		return false, false, nil
	}
	if !f.Active() {
		return true, false, nil
	}
	if !b.IsLegacy() {
		if err := b.infoInto(in); err != nil {
			return false, false, err
		}
	}
	if !f.Batch(in) {
		return false, false, nil
	}
	if !f.ByRecord() {
		return true, false, nil
	}
	if b.IsLegacy() {
		it, err := b.InnerIter()
		if err != nil {
			return false, false, err
		}
		for it.Next() {
			if m := it.Message(); w.Holds(m.Offset) && f.Record(m.Key) {
				return true, false, nil
			}
		}
		return false, false, nil
	}
	br, err := b.Records()
	if err != nil {
		return false, false, err
	}
	for {
		ok, err := br.Next(&s.wrec)
		if err != nil {
			return false, false, s.locate(b.Pos, err)
		}
		if !ok {
			return false, false, nil
		}
		if w.Holds(first+int64(s.wrec.OffsetDelta)) && f.Record(s.wrec.Key) {
			return true, false, nil
		}
	}
}
