//go:build unix

package cmd

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kseg/kseg/batch"
)

// TestExplicitNotALogRefused: a file named on the command line that is
// empty or not a regular file (/dev/zero) is refused naming it, exit 3, by
// kseg's own forms; kafka-dump-log's --files form keeps Kafka's output for
// an empty file (its header lines, exit 0).
func TestExplicitNotALogRefused(t *testing.T) {
	empty := filepath.Join(t.TempDir(), "00000000000000000000.log")
	if err := os.WriteFile(empty, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{
		{"count", empty}, {"dump", empty}, {"audit", empty}, {"explain", empty},
		{"count", "/dev/zero"}, {"dump", "/dev/zero"}, {"audit", "/dev/zero"},
	} {
		stdout, stderr, code := runKseg(t, args...)
		name := args[len(args)-1]
		if code != ExitBadInput || !strings.Contains(stderr, name) || strings.Contains(stdout, "0 batches") {
			t.Errorf("kseg %q: exit %d, stdout %q, stderr %q; want exit 3 naming %s", args, code, stdout, stderr, name)
		}
	}
	stdout, _, code := runKseg(t, "dump", "--files", empty)
	if code != 0 || stdout != "Dumping "+empty+"\nLog starting offset: 0\n" {
		t.Errorf("dump --files of an empty log: exit %d, %q", code, stdout)
	}
}

// TestSymlinkedPartitionDir: a partition directory that is a symlink in a
// log directory is read like the others by count, audit and dump; links
// that loop or lead back up are left out.
func TestSymlinkedPartitionDir(t *testing.T) {
	elsewhere := t.TempDir()
	writeCountPartition(t, elsewhere, batch.CodecNone, []int{3, 4})
	logdir := t.TempDir()
	writeCountPartition(t, logdir, batch.CodecNone, []int{1}) // logdir/t-0
	if err := os.Symlink(filepath.Join(elsewhere, "t-0"), filepath.Join(logdir, "t-1")); err != nil {
		t.Fatal(err)
	}
	for name, target := range map[string]string{"self-0": ".", "up-0": "..", "loop-0": "loop-0", "gone-0": "nowhere"} {
		if err := os.Symlink(target, filepath.Join(logdir, name)); err != nil {
			t.Fatal(err)
		}
	}
	stdout, stderr, code := runKseg(t, "count", logdir)
	if code != 0 || !strings.Contains(stdout, "t-1: 2 batches, 7 records") || strings.Contains(stdout, "-0: 0 batches") {
		t.Errorf("count: exit %d, stderr %q, stdout %q; want t-1 counted, no loop", code, stderr, stdout)
	}
	stdout, stderr, code = runKseg(t, "dump", logdir)
	if code != 0 || !strings.Contains(stdout, filepath.Join(logdir, "t-1", "00000000000000000000.log")) {
		t.Errorf("dump: exit %d, stderr %q; want t-1 dumped:\n%s", code, stderr, stdout)
	}
	stdout, stderr, code = runKseg(t, "audit", logdir)
	if code != 0 || !strings.Contains(stdout, "t-1") {
		t.Errorf("audit: exit %d, stderr %q; want t-1 audited:\n%s", code, stderr, stdout)
	}
	if strings.Contains(stdout, "self-0") || strings.Contains(stdout, "up-0") {
		t.Errorf("audit followed a link back into the log directory:\n%s", stdout)
	}
}
