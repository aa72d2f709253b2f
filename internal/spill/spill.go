// Package spill is a write-once, read-back byte buffer that stays in
// memory up to a limit and continues in a temporary file beyond it: output
// that must wait (audit findings until their partition's end settles their
// severity, the text table that comes before them) without being held in
// memory.
package spill

import (
	"bufio"
	"bytes"
	"io"
	"os"
)

// Buffer collects bytes: the first limit in memory, the rest in a
// temporary file (created on the first byte past the limit, and removed at
// once where an open file can be, else by Close).
// Write after Reader is not allowed.
type Buffer struct {
	limit int
	mem   []byte
	f     *os.File
	w     *bufio.Writer
	size  int64
	err   error
	// unlinked: the file was removed right after it was made (it lives
	// on while open, and nothing is left behind if kseg is killed).
	unlinked bool
}

// New returns a Buffer that keeps up to limit bytes in memory.
func New(limit int) *Buffer { return &Buffer{limit: limit} }

// Size is the number of bytes written.
func (b *Buffer) Size() int64 { return b.size }

// Spilled reports whether the bytes went past the memory limit.
func (b *Buffer) Spilled() bool { return b.f != nil }

// Write appends p.
func (b *Buffer) Write(p []byte) (int, error) {
	if b.err != nil {
		return 0, b.err
	}
	n := len(p)
	if b.f == nil {
		if len(b.mem)+len(p) <= b.limit {
			b.mem = append(b.mem, p...)
			b.size += int64(n)
			return n, nil
		}
		f, err := os.CreateTemp("", "kseg-spill-*")
		if err != nil {
			b.err = err
			return 0, err
		}
		b.f, b.w = f, bufio.NewWriterSize(f, 256<<10)
		b.unlinked = os.Remove(f.Name()) == nil // not where open files cannot be removed
	}
	if _, err := b.w.Write(p); err != nil {
		b.err = err
		return 0, err
	}
	b.size += int64(n)
	return n, nil
}

// Reader returns the bytes written, from the first.
func (b *Buffer) Reader() (io.Reader, error) {
	if b.err != nil {
		return nil, b.err
	}
	mem := bytes.NewReader(b.mem)
	if b.f == nil {
		return mem, nil
	}
	if err := b.w.Flush(); err != nil {
		return nil, err
	}
	if _, err := b.f.Seek(0, io.SeekStart); err != nil {
		return nil, err
	}
	return io.MultiReader(mem, bufio.NewReaderSize(b.f, 256<<10)), nil
}

// WriteTo copies the bytes written to w.
func (b *Buffer) WriteTo(w io.Writer) (int64, error) {
	r, err := b.Reader()
	if err != nil {
		return 0, err
	}
	return io.Copy(w, r)
}

// Close drops the bytes and removes the temporary file.
func (b *Buffer) Close() error {
	b.mem = nil
	if b.f == nil {
		return nil
	}
	name := b.f.Name()
	err := b.f.Close()
	if !b.unlinked {
		if rerr := os.Remove(name); err == nil {
			err = rerr
		}
	}
	b.f, b.w = nil, nil
	return err
}
