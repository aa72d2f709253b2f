package audit

import (
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/kseg/kseg/segment"
)

// failingReader fails at byte at, as a disk would: a read that reaches it
// returns the bytes before it and the error.
type failingReader struct {
	r    io.ReaderAt
	at   int64
	name string
}

func (f failingReader) ReadAt(p []byte, off int64) (int, error) {
	if off+int64(len(p)) > f.at {
		n, _ := f.r.ReadAt(p[:max(f.at-off, 0)], off)
		return n, &fs.PathError{Op: "read", Path: f.name, Err: syscall.EIO}
	}
	return f.r.ReadAt(p, off)
}

// TestErrorsLocated: every error audit returns lets errors.As find a
// *segment.Error with the file and the byte offset, and keeps its cause.
func TestErrorsLocated(t *testing.T) {
	dir, _ := produce(t, 3000)
	log := filepath.Join(dir, "00000000000000000000.log")
	bs := readBatches(t, log)
	pos := positions(bs)
	k := 7
	t.Run("read-fails", func(t *testing.T) {
		raw, err := os.ReadFile(log)
		if err != nil {
			t.Fatal(err)
		}
		r := failingReader{r: segment.BytesSource(log, raw).R, at: pos[k] + 5, name: log}
		_, err = Run(FromSources("audit-0", segment.Source{Name: log, R: r, Size: int64(len(raw))}), Options{})
		var se *segment.Error
		if !errors.As(err, &se) || se.File != log || se.Offset != pos[k] {
			t.Fatalf("error %v (%#v): want a *segment.Error at %s byte %d", err, se, log, pos[k])
		}
		if !errors.Is(err, ErrUnreadable) || !errors.Is(err, syscall.EIO) {
			t.Errorf("error %v lost its cause", err)
		}
	})
	t.Run("open-fails", func(t *testing.T) {
		missing := filepath.Join(dir, "00000000000000999999.log")
		_, err := Run(&Partition{Name: "audit-0", Dir: dir, Logs: []string{log, missing}}, Options{})
		var se *segment.Error
		if !errors.As(err, &se) || se.File != missing || se.Offset != -1 {
			t.Fatalf("error %v: want a *segment.Error for %s at byte -1", err, missing)
		}
		if !errors.Is(err, ErrUnreadable) || !errors.Is(err, fs.ErrNotExist) {
			t.Errorf("error %v lost its cause", err)
		}
	})
	t.Run("path-missing", func(t *testing.T) {
		missing := filepath.Join(dir, "nothing-here")
		_, err := Partitions([]string{dir, missing})
		var se *segment.Error
		if !errors.As(err, &se) || se.File != missing || !errors.Is(err, fs.ErrNotExist) {
			t.Fatalf("error %v: want a *segment.Error for %s", err, missing)
		}
	})
}
