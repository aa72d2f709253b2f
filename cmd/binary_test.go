package cmd

import (
	"bytes"
	"errors"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kseg/kseg/internal/goldens"
	"github.com/kseg/kseg/internal/testbin"
)

// TestBinary runs the real kseg binary, for what only it can show: main.go
// hands the arguments, both streams and Execute's exit code to the process
// (one case per exit status), and -ldflags -X stamps the version and commit
// as docs/development.md's build line says. Every other CLI test runs in process.
func TestBinary(t *testing.T) {
	bin := testbin.Path(t)
	small := filepath.Join(goldens.Segments(t), "seed", "u05-small-0")
	tests := []struct {
		args []string
		code ExitCode
	}{
		{[]string{"count", small}, ExitOK},
		{[]string{"count", "--expect-histogram", "8x24", small}, ExitFindings},
		{[]string{"dump", "--help"}, ExitOK},
		{[]string{"count", "--no-such-flag", small}, ExitUsage},
		{[]string{"count", filepath.Join(small, "does-not-exist")}, ExitBadInput},
	}
	for _, tc := range tests {
		var so, se bytes.Buffer
		c := exec.Command(bin, tc.args...)
		c.Stdout, c.Stderr = &so, &se
		code := ExitOK
		var ee *exec.ExitError
		if err := c.Run(); errors.As(err, &ee) {
			code = ExitCode(ee.ExitCode())
		} else if err != nil {
			t.Fatal(err)
		}
		wantOut, wantErr, wantCode := runKseg(t, tc.args...)
		if code != tc.code || wantCode != tc.code {
			t.Errorf("kseg %q: process exit %d, Execute %d, want %d\n%s", tc.args, code, wantCode, tc.code, se.String())
		}
		if so.String() != wantOut || se.String() != wantErr {
			t.Errorf("kseg %q: the binary's output differs from Execute's:\nstdout %q\nwant   %q\nstderr %q\nwant   %q",
				tc.args, so.String(), wantOut, se.String(), wantErr)
		}
	}

	out, err := exec.Command(bin, "--version").Output()
	if want := "kseg version " + testbin.Version + " (commit " + testbin.Commit + ")\n"; err != nil || string(out) != want {
		t.Errorf("stamped --version: %q, %v; want %q", out, err, want)
	}
}

// Built in a git clone with no stamps, --version names the commit from
// the build info (and a module version other than "dev").
func TestBinaryVersionFromVCS(t *testing.T) {
	bin, root := testbin.PathVCS(t)
	c := exec.Command("git", "rev-parse", "HEAD")
	c.Dir = root
	head, err := c.Output()
	if err != nil {
		t.Skipf("git rev-parse HEAD: %v", err)
	}
	out, err := exec.Command(bin, "--version").Output()
	rev := strings.TrimSpace(string(head))
	if err != nil || !strings.Contains(string(out), "(commit "+rev) || strings.Contains(string(out), "version dev") {
		t.Errorf("--version: %q, %v; want the commit %s", out, err, rev)
	}
}
