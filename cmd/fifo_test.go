//go:build unix

package cmd

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestFIFOInputRefused: a FIFO named like a segment file (or like the .log
// an index is checked against) is refused naming it, exit 3 (dump --files:
// 1, where kafka-dump-log crashes), instead of blocking in open or read.
func TestFIFOInputRefused(t *testing.T) {
	dir := t.TempDir()
	part := filepath.Join(dir, "t-0")
	if err := os.MkdirAll(part, 0o755); err != nil {
		t.Fatal(err)
	}
	var fifos []string
	for _, suffix := range []string{".log", ".index", ".timeindex", ".txnindex", ".snapshot"} {
		p := filepath.Join(part, "00000000000000000000"+suffix)
		if err := syscall.Mkfifo(p, 0o644); err != nil {
			t.Skip("no FIFOs here:", err)
		}
		fifos = append(fifos, p)
	}
	log := fifos[0]
	// An index whose companion .log is a FIFO.
	part2 := filepath.Join(dir, "u-0")
	os.MkdirAll(part2, 0o755)
	idx := filepath.Join(part2, "00000000000000000000.index")
	os.WriteFile(idx, make([]byte, 8), 0o644)
	if err := syscall.Mkfifo(filepath.Join(part2, "00000000000000000000.log"), 0o644); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		args []string
		code ExitCode
		name string
	}{
		{[]string{"count", log}, ExitBadInput, log},
		{[]string{"count", dir}, ExitBadInput, log},
		{[]string{"dump", part}, ExitBadInput, log},
		{[]string{"dump", "--files", log}, 1, log},
		{[]string{"dump", "--files", fifos[1]}, 1, log}, // its .log is checked first
		{[]string{"dump", "--files", fifos[2]}, 1, log},
		{[]string{"dump", "--files", fifos[3]}, 1, fifos[3]},
		{[]string{"dump", "--files", fifos[4]}, 1, fifos[4]},
		{[]string{"dump", "--files", idx}, 1, filepath.Join(part2, "00000000000000000000.log")},
		{[]string{"audit", part2}, ExitBadInput, filepath.Join(part2, "00000000000000000000.log")},
		{[]string{"explain", log}, ExitBadInput, log},
	}
	for _, c := range cases {
		done := make(chan struct{})
		var stderr string
		var code ExitCode
		go func() {
			defer close(done)
			_, stderr, code = runKseg(t, c.args...)
		}()
		select {
		case <-done:
		case <-time.After(20 * time.Second):
			t.Fatalf("kseg %q still running after 20 s: blocked on a FIFO", c.args)
		}
		if code != c.code || !strings.Contains(stderr, "not a regular file") || !strings.Contains(stderr, c.name) {
			t.Errorf("kseg %q: exit %d, stderr %q; want %d, not a regular file, naming %s", c.args, code, stderr, c.code, c.name)
		}
	}
}
