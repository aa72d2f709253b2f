package rfile

import (
	"bytes"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"testing"
)

func TestReadFileMatchesOS(t *testing.T) {
	dir := t.TempDir()
	for _, n := range []int{0, 1, 511, 512, 513, 100000} {
		p := filepath.Join(dir, "f")
		want := bytes.Repeat([]byte{'x', 'y', 'z'}, n)[:n]
		if err := os.WriteFile(p, want, 0o644); err != nil {
			t.Fatal(err)
		}
		got, err := ReadFile(p, 1<<20)
		if err != nil || !bytes.Equal(got, want) {
			t.Fatalf("%d bytes: got %d, err %v", n, len(got), err)
		}
	}
	// A file whose size is not known up front (a pipe-like /proc file).
	if b, err := ReadFile("/proc/self/status", 1<<20); err == nil && len(b) == 0 {
		t.Error("/proc/self/status read empty")
	}
	_, err := ReadFile(filepath.Join(dir, "missing"), 1<<20)
	var pe *fs.PathError
	if !errors.Is(err, fs.ErrNotExist) || !errors.As(err, &pe) || pe.Op != "open" {
		t.Errorf("missing file: %v", err)
	}
	if f, err := Open(dir); err != nil {
		t.Errorf("a directory opens for reading (callers check): %v", err)
	} else {
		f.Close()
	}
}
