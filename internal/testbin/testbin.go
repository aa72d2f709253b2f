// Package testbin builds the real kseg binary for the few tests that must
// run it as a separate process: what main.go does with Execute's exit code,
// and the version stamped at link time. Everything else runs the command
// tree in process (cmd.Execute, or testscript's "kseg" in cmd/testdata/script).
//
// The binary is built once per test process, on first use, into a
// temporary directory that the package's TestMain removes with Cleanup.
package testbin

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// Version and Commit are stamped into the binary with -ldflags -X, as the
// docs/development.md's build line does, so a test can check the stamp without a
// second build.
const (
	Version = "v9.8.7"
	Commit  = "abc1234"
)

var (
	once sync.Once
	dir  string
	bin  string
	err  error
)

// Path returns the path of the kseg binary, building it on the first call.
// A failed build fails t (it never skips: the Go toolchain is running).
func Path(t testing.TB) string {
	t.Helper()
	once.Do(build)
	if err != nil {
		t.Fatalf("building kseg: %v", err)
	}
	return bin
}

func build() {
	root, e := moduleRoot()
	if e != nil {
		err = e
		return
	}
	dir, err = os.MkdirTemp("", "kseg-testbin-")
	if err != nil {
		return
	}
	bin = filepath.Join(dir, "kseg")
	ldflags := fmt.Sprintf("-X github.com/kseg/kseg/cmd.version=%s -X github.com/kseg/kseg/cmd.commit=%s", Version, Commit)
	c := exec.Command("go", "build", "-ldflags", ldflags, "-o", bin, ".")
	c.Dir = root
	if out, e := c.CombinedOutput(); e != nil {
		err = fmt.Errorf("%v\n%s", e, out)
	}
}

// PathVCS builds kseg as `go build -buildvcs=true` does in a git clone,
// with no link-time stamps, and returns the binary's path and the module
// root. It skips t where the go command records no VCS information: the
// root is not the top of a git clone (a git worktree's .git is a file,
// which the go command does not stamp from).
func PathVCS(t testing.TB) (bin, root string) {
	t.Helper()
	root, err := moduleRoot()
	if err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Stat(filepath.Join(root, ".git")); err != nil || !fi.IsDir() {
		t.Skip("not built in a git clone: the go command records no VCS revision")
	}
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("no git")
	}
	bin = filepath.Join(t.TempDir(), "kseg-vcs")
	c := exec.Command("go", "build", "-buildvcs=true", "-o", bin, ".")
	c.Dir = root
	if out, err := c.CombinedOutput(); err != nil {
		t.Fatalf("go build -buildvcs=true: %v\n%s", err, out)
	}
	return bin, root
}

// moduleRoot asks the go command for the directory of go.mod, so the
// build works from any package directory.
func moduleRoot() (string, error) {
	out, err := exec.Command("go", "env", "GOMOD").Output()
	if err != nil {
		return "", fmt.Errorf("go env GOMOD: %v", err)
	}
	gomod := string(bytes.TrimSpace(out))
	if gomod == "" || gomod == os.DevNull || !strings.HasSuffix(gomod, "go.mod") {
		return "", fmt.Errorf("not inside the kseg module (go env GOMOD = %q)", gomod)
	}
	return filepath.Dir(gomod), nil
}

// Cleanup removes the built binary. Call it from TestMain after m.Run.
func Cleanup() {
	if dir != "" {
		os.RemoveAll(dir)
	}
}
