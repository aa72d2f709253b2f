// Package fuzzfile gives fuzz targets of APIs that read files by path (the
// audit, the dumper) one file per fuzzing process, rewritten in place for
// each input.
//
// Creating a directory or file per input (t.TempDir, os.WriteFile) costs
// ext4 inode and block allocation: 1-23 ms per input on a loaded machine,
// against well under a millisecond for the code under test. The fuzzer runs
// the body O(n²) times to minimize an n-byte input that found new coverage,
// so that cost kept workers minimizing for the whole -fuzzminimizetime
// while go test -fuzz reported 0 execs/s. Rewriting one open file with
// WriteAt and Truncate keeps its inode and, for small inputs, its block.
//
// The targets go back to bytes in memory once the code they test reads any
// io.ReaderAt.
package fuzzfile

import (
	"os"
	"testing"
)

// File is a file whose contents each fuzz input replaces. Not safe for
// concurrent use: fuzz inputs run one at a time in a process.
type File struct {
	path string
	f    *os.File
}

// New creates path, which must not exist, with permissions perm (0o444 for
// a target that must not write it: the handle kept here is opened before
// the permissions apply). The file is closed when tb's tests end.
func New(tb testing.TB, path string, perm os.FileMode) *File {
	tb.Helper()
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE|os.O_EXCL, perm)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { f.Close() })
	return &File{path: path, f: f}
}

// Path is the file's name, as given to New.
func (z *File) Path() string { return z.path }

// Set makes the file's contents exactly data.
func (z *File) Set(tb testing.TB, data []byte) {
	tb.Helper()
	if _, err := z.f.WriteAt(data, 0); err != nil {
		tb.Fatal(err)
	}
	if err := z.f.Truncate(int64(len(data))); err != nil {
		tb.Fatal(err)
	}
}
