//go:build unix

package rfile

import (
	"errors"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

// TestOpenRefusesWhatIsNotRegular: a FIFO (whose open for reading would
// block until a writer came) and a device are refused at once; a regular
// file opens with its size and a blocking descriptor.
func TestOpenRefusesWhatIsNotRegular(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "00000000000000000000.log")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Skip("no FIFOs here:", err)
	}
	done := make(chan error, 1)
	go func() {
		_, _, err := OpenInfo(fifo)
		done <- err
	}()
	select {
	case err := <-done:
		var pe *os.PathError
		if !errors.Is(err, ErrNotRegular) || !errors.As(err, &pe) || pe.Path != fifo {
			t.Errorf("FIFO: %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("OpenInfo blocked on a FIFO")
	}
	if _, err := ReadFile("/dev/zero", 1<<20); !errors.Is(err, ErrNotRegular) {
		t.Errorf("/dev/zero: %v", err)
	}
	p := filepath.Join(dir, "f")
	os.WriteFile(p, []byte("12345"), 0o644)
	f, info, err := OpenInfo(p)
	if err != nil || info.Size != 5 || info.Dir {
		t.Fatalf("regular file: %+v, %v", info, err)
	}
	defer f.Close()
	flags, _, e := syscall.Syscall(syscall.SYS_FCNTL, f.Fd(), syscall.F_GETFL, 0)
	if e != 0 || flags&syscall.O_NONBLOCK != 0 {
		t.Errorf("regular file left non-blocking: flags %#x, %v", flags, e)
	}
	var se *SizeError
	if _, err := ReadFile(p, 4); !errors.Is(err, ErrTooLarge) || !errors.As(err, &se) || se.Size != 5 || se.Limit != 4 {
		t.Errorf("ReadFile over its limit: %v", err)
	}
	if b, err := ReadFile(p, 5); err != nil || string(b) != "12345" {
		t.Errorf("ReadFile at its limit: %q, %v", b, err)
	}
}
