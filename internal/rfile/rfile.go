// Package rfile opens files for reading without what os.Open does for
// descriptors that can be polled, which for regular files is wasted. It
// opens regular files and directories only: anything else (a FIFO, a
// socket, a device) is refused before a read can block or never end.
package rfile

import (
	"errors"
	"fmt"
	"io"
	"os"
)

// ErrNotRegular: a path given as input is neither a regular file nor a
// directory (a FIFO, a socket, a device such as /dev/zero).
var ErrNotRegular = errors.New("not a regular file")

// ErrTooLarge: a file is larger than the caller's limit (ReadFile).
var ErrTooLarge = errors.New("file larger than kseg's limit")

// Info is what OpenInfo learns from the open descriptor.
type Info struct {
	Size int64 // bytes, at the time of the open
	Dir  bool  // a directory (callers refuse it their own way)
}

// Open opens a regular file or a directory for reading (OpenInfo).
func Open(path string) (*os.File, error) {
	f, _, err := OpenInfo(path)
	return f, err
}

// SizeError is ErrTooLarge with the sizes.
type SizeError struct {
	Size, Limit int64
	Read        bool // Size is what reading found (the file grew): at least that
}

func (e *SizeError) Error() string {
	more := ""
	if e.Read {
		more = " or more"
	}
	return fmt.Sprintf("%d bytes%s, larger than the %d bytes kseg reads of such a file", e.Size, more, e.Limit)
}
func (e *SizeError) Unwrap() error { return ErrTooLarge }

// ReadFile reads a whole regular file of at most limit bytes. A larger
// file (by its size, or by what a read finds when it grew) is refused with
// a *SizeError before more than limit+1 bytes are held; a directory with
// an *os.PathError for EISDIR.
func ReadFile(path string, limit int64) ([]byte, error) {
	f, info, err := OpenInfo(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if info.Dir {
		return nil, &os.PathError{Op: "read", Path: path, Err: errors.New("is a directory")}
	}
	if info.Size > limit {
		return nil, &SizeError{Size: info.Size, Limit: limit}
	}
	// One more byte than the size: a read that fills it is not at the end.
	b := make([]byte, 0, max(info.Size+1, 512))
	for {
		if int64(len(b)) > limit {
			return nil, &SizeError{Size: int64(len(b)), Limit: limit, Read: true}
		}
		n, err := f.Read(b[len(b):cap(b)])
		b = b[:len(b)+n]
		if err == io.EOF {
			if int64(len(b)) > limit {
				return nil, &SizeError{Size: int64(len(b)), Limit: limit, Read: true}
			}
			return b, nil
		}
		if err != nil {
			return b, err
		}
		if len(b) == cap(b) {
			b = append(b, 0)[:len(b)]
		}
	}
}
