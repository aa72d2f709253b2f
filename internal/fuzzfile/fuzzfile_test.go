package fuzzfile

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
)

// Each Set leaves exactly its bytes under the path, longer or shorter than
// before, and the file keeps its inode (no per-input file creation).
func TestSetReplacesContents(t *testing.T) {
	path := filepath.Join(t.TempDir(), "00000000000000000000.log")
	z := New(t, path, 0o444)
	st0, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if st0.Mode().Perm() != 0o444 {
		t.Fatalf("mode %v, want 0444", st0.Mode().Perm())
	}
	for _, data := range [][]byte{
		bytes.Repeat([]byte{1}, 5000), {2, 2, 2}, {}, bytes.Repeat([]byte{3}, 70), nil, []byte("x"),
	} {
		z.Set(t, data)
		got, err := os.ReadFile(z.Path())
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, data) {
			t.Fatalf("file holds %d bytes %.8q, want %d bytes %.8q", len(got), got, len(data), data)
		}
		st, err := os.Stat(path)
		if err != nil {
			t.Fatal(err)
		}
		if !os.SameFile(st0, st) {
			t.Fatal("Set replaced the file instead of rewriting it")
		}
	}
}
