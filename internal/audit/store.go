package audit

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"slices"

	"github.com/kseg/kseg/internal/spill"
)

// storeMem is how many findings a streamed partition keeps in memory
// before the rest go to a spill file.
const storeMem = 1024

// store holds a partition's findings from the time the audit hands them
// on until they are rendered, with the flags settle needs: all in memory
// (Run), or the first storeMem in memory and the rest encoded in a spill
// file (Stream).
type store struct {
	stream bool
	mem    []heldFinding
	buf    *spill.Buffer
	enc    encoder
	n      int64
	settle settle
	// runs are the runs handed on while they could still grow, read
	// when the partition is done.
	runs []*run
}

type heldFinding struct {
	f                  Finding
	r                  *run // when set, f is r.final() once read
	explained, overlap bool
}

// putRun stores a run that may still grow.
func (s *store) putRun(r *run, explained, overlap bool) {
	s.n++
	if !s.stream || len(s.mem) < storeMem {
		s.mem = append(s.mem, heldFinding{r: r, explained: explained, overlap: overlap})
		return
	}
	if s.buf == nil {
		s.buf = spill.New(256 << 10)
	}
	flags := byte(4)
	if explained {
		flags |= 1
	}
	if overlap {
		flags |= 2
	}
	s.enc.b = binary.AppendUvarint(append(s.enc.b[:0], flags), uint64(len(s.runs)))
	s.runs = append(s.runs, r)
	s.buf.Write(s.enc.b)
}

func (s *store) put(f *Finding, explained, overlap bool) {
	s.n++
	if !s.stream || len(s.mem) < storeMem {
		s.mem = append(s.mem, heldFinding{f: *f, explained: explained, overlap: overlap})
		return
	}
	if s.buf == nil {
		s.buf = spill.New(256 << 10)
	}
	s.enc.b = s.enc.finding(s.enc.b[:0], f, explained, overlap)
	s.buf.Write(s.enc.b) // an error is kept by the buffer and returned by each
}

// each calls fn with every finding, settled, in order.
func (s *store) each(fn func(*Finding) error) error {
	for i := range s.mem {
		h := &s.mem[i]
		f := h.f
		if h.r != nil {
			f = h.r.final()
		}
		s.settle.apply(&f, h.explained, h.overlap)
		if err := fn(&f); err != nil {
			return err
		}
	}
	if s.buf == nil {
		return nil
	}
	r, err := s.buf.Reader()
	if err != nil {
		return fmt.Errorf("audit findings spilled to a temporary file: %w", err)
	}
	d := decoder{r: bufio.NewReaderSize(r, 64<<10)}
	for left := s.n - int64(len(s.mem)); left > 0; left-- {
		var f Finding
		explained, overlap, err := d.finding(&f, s.runs)
		if err != nil {
			return fmt.Errorf("audit findings spilled to a temporary file: %w", err)
		}
		s.settle.apply(&f, explained, overlap)
		if err := fn(&f); err != nil {
			return err
		}
	}
	return nil
}

func (s *store) close() error {
	s.mem, s.runs = nil, nil
	if s.buf == nil {
		return nil
	}
	err := s.buf.Close()
	s.buf = nil
	return err
}

// The spill encoding of a finding: flags, then each field in declaration
// order, integers as varints, strings length-prefixed; the strings that
// repeat from one finding to the next (code, partition, files) are a 0
// when they equal the previous finding's, else their length + 1.

type encoder struct {
	b                             []byte
	code, part, file, last, dfile string
}

func (e *encoder) same(b []byte, last *string, s string) []byte {
	if s == *last {
		return append(b, 0)
	}
	*last = s
	b = binary.AppendUvarint(b, uint64(len(s))+1)
	return append(b, s...)
}

func (e *encoder) finding(b []byte, f *Finding, explained, overlap bool) []byte {
	var flags byte
	if explained {
		flags |= 1
	}
	if overlap {
		flags |= 2
	}
	b = append(b, flags)
	b = e.same(b, &e.code, string(f.Code))
	b = binary.AppendVarint(b, int64(f.Severity))
	b = e.same(b, &e.part, f.Partition)
	b = binary.AppendVarint(b, f.ProducerID)
	b = binary.AppendVarint(b, int64(f.ProducerEpoch))
	b = e.same(b, &e.file, f.File)
	b = binary.AppendVarint(b, f.Position)
	b = e.same(b, &e.last, f.LastFile)
	for _, v := range []int64{f.LastPosition, f.FirstOffset, f.LastOffset, f.RelatedOffset,
		int64(f.BaseSequence), int64(f.LastSequence), f.Count, f.BatchCount} {
		b = binary.AppendVarint(b, v)
	}
	b = appendString(b, f.Message)
	b = binary.AppendUvarint(b, uint64(len(f.Batches)))
	for i := range f.Batches {
		d := &f.Batches[i]
		b = e.same(b, &e.dfile, d.File)
		for _, v := range []int64{d.Position, d.FirstOffset, d.LastOffset, int64(d.BaseSequence), int64(d.LastSequence), d.Count} {
			b = binary.AppendVarint(b, v)
		}
		b = appendString(b, d.Message)
	}
	return b
}

func appendString(b []byte, s string) []byte {
	b = binary.AppendUvarint(b, uint64(len(s)))
	return append(b, s...)
}

var errSpill = errors.New("malformed spill record")

type decoder struct {
	r   *bufio.Reader
	err error
	// The strings of the last finding that repeat from one to the next
	// (code, partition, files): read into scratch, kept when unchanged.
	code, part, file, last, dfile string
	scratch                       []byte
}

func (d *decoder) int() int64 {
	if d.err != nil {
		return 0
	}
	v, err := binary.ReadVarint(d.r)
	d.err = err
	return v
}

func (d *decoder) bytes() []byte {
	if d.err != nil {
		return nil
	}
	n, err := binary.ReadUvarint(d.r)
	if err != nil {
		d.err = err
		return nil
	}
	return d.read(n)
}

func (d *decoder) read(n uint64) []byte {
	if n > 1<<30 {
		d.err = errSpill
		return nil
	}
	// Read in steps of at most 1 MiB, so that a damaged length costs
	// memory only for bytes that are really there.
	d.scratch = d.scratch[:0]
	for n > 0 && d.err == nil {
		c := int(min(n, 1<<20))
		start := len(d.scratch)
		d.scratch = slices.Grow(d.scratch, c)[:start+c]
		_, d.err = io.ReadFull(d.r, d.scratch[start:])
		n -= uint64(c)
	}
	return d.scratch
}

func (d *decoder) str() string { return string(d.bytes()) }

// same reads a string written by encoder.same.
func (d *decoder) same(last *string) string {
	if d.err != nil {
		return ""
	}
	n, err := binary.ReadUvarint(d.r)
	if err != nil {
		d.err = err
		return ""
	}
	if n > 0 {
		*last = string(d.read(n - 1))
	}
	return *last
}

func (d *decoder) finding(f *Finding, runs []*run) (explained, overlap bool, err error) {
	flags, err := d.r.ReadByte()
	if err != nil {
		return false, false, io.ErrUnexpectedEOF
	}
	d.err = nil
	if flags&4 != 0 { // a run handed on while it could still grow
		i, err := binary.ReadUvarint(d.r)
		if err != nil || i >= uint64(len(runs)) {
			return false, false, errSpill
		}
		*f = runs[i].final()
		return flags&1 != 0, flags&2 != 0, nil
	}
	f.Code = Code(d.same(&d.code))
	f.Severity = Severity(d.int())
	f.Partition = d.same(&d.part)
	f.ProducerID = d.int()
	f.ProducerEpoch = int16(d.int())
	f.File = d.same(&d.file)
	f.Position = d.int()
	f.LastFile = d.same(&d.last)
	f.LastPosition, f.FirstOffset, f.LastOffset, f.RelatedOffset = d.int(), d.int(), d.int(), d.int()
	f.BaseSequence, f.LastSequence = int32(d.int()), int32(d.int())
	f.Count, f.BatchCount = d.int(), d.int()
	f.Message = d.str()
	var nb uint64
	if d.err == nil {
		nb, d.err = binary.ReadUvarint(d.r)
	}
	if d.err == nil && nb > 0 {
		if nb > 1<<30 {
			return false, false, errSpill
		}
		// Grown as the details are read, not sized by the count: a
		// damaged count must end in an error, not a huge allocation.
		f.Batches = make([]BatchDetail, 0, min(nb, 64))
		for ; nb > 0 && d.err == nil; nb-- {
			var b BatchDetail
			b.File = d.same(&d.dfile)
			b.Position, b.FirstOffset, b.LastOffset = d.int(), d.int(), d.int()
			b.BaseSequence, b.LastSequence = int32(d.int()), int32(d.int())
			b.Count = d.int()
			b.Message = d.str()
			f.Batches = append(f.Batches, b)
		}
	}
	switch {
	case d.err == io.EOF:
		d.err = io.ErrUnexpectedEOF
	case d.err != nil && !errors.Is(d.err, io.ErrUnexpectedEOF) && !errors.Is(d.err, errSpill):
		d.err = fmt.Errorf("%w: %w", errSpill, d.err) // a varint that overflows, or the file's read error
	}
	return flags&1 != 0, flags&2 != 0, d.err
}
