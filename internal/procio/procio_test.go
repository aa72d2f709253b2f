package procio

import (
	"os"
	"path/filepath"
	"runtime"
	"testing"
)

// Reading a file moves rchar on by at least its size.
func TestReadChars(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("/proc/self/io is Linux's")
	}
	p := filepath.Join(t.TempDir(), "f")
	if err := os.WriteFile(p, make([]byte, 1<<20), 0o644); err != nil {
		t.Fatal(err)
	}
	before := ReadChars()
	if _, err := os.ReadFile(p); err != nil {
		t.Fatal(err)
	}
	if got := ReadChars() - before; before < 0 || got < 1<<20 {
		t.Errorf("rchar moved by %d reading 1 MiB (before %d)", got, before)
	}
}
