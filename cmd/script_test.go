package cmd

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"
)

// TestScripts runs testdata/script/*.txtar. Each script starts in its own
// $WORK directory, where testdata is a symlink to the repository's (read
// it, never write under it: produce into $WORK). "exec kseg ..." runs the
// command tree registered in TestMain. Two commands are added:
//
//	exits N prog [args...]   run prog like exec; its exit status must be N
//	truncate FILE SIZE       cut FILE (inside $WORK) to SIZE bytes
func TestScripts(t *testing.T) {
	wd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	root := filepath.Dir(wd) // tests run in cmd/
	testscript.Run(t, testscript.Params{
		Dir:                 filepath.Join("testdata", "script"),
		RequireExplicitExec: true,
		RequireUniqueNames:  true,
		Setup: func(e *testscript.Env) error {
			return os.Symlink(filepath.Join(root, "testdata"), filepath.Join(e.WorkDir, "testdata"))
		},
		Cmds: map[string]func(ts *testscript.TestScript, neg bool, args []string){
			"exits":    cmdExits,
			"truncate": cmdTruncate,
		},
	})
}

// cmdExits checks the exact exit status, which "! exec" cannot: kseg's
// statuses (0 ok, 1 findings, 2 usage, 3 bad input) are its interface.
func cmdExits(ts *testscript.TestScript, neg bool, args []string) {
	if neg {
		ts.Fatalf("unsupported: ! exits (name the status instead)")
	}
	if len(args) < 2 {
		ts.Fatalf("usage: exits status program [args...]")
	}
	want, err := strconv.Atoi(args[0])
	if err != nil || want == 0 {
		ts.Fatalf("exits: status %q: want a non-zero number (use exec for 0)", args[0])
	}
	got := 0
	var ee *exec.ExitError
	if err := ts.Exec(args[1], args[2:]...); errors.As(err, &ee) {
		got = ee.ExitCode()
	} else if err != nil {
		ts.Fatalf("exits: %v", err)
	}
	if got != want {
		ts.Fatalf("%s exited with status %d, want %d", args[1], got, want)
	}
}

// cmdTruncate cuts a copy of a fixture; it refuses files outside $WORK,
// so a script cannot damage the repository's testdata through the symlink.
func cmdTruncate(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 2 {
		ts.Fatalf("usage: truncate file size")
	}
	size, err := strconv.ParseInt(args[1], 10, 64)
	if err != nil || size < 0 {
		ts.Fatalf("truncate: size %q", args[1])
	}
	path, err := filepath.EvalSymlinks(ts.MkAbs(args[0]))
	ts.Check(err)
	work, err := filepath.EvalSymlinks(ts.Getenv("WORK"))
	ts.Check(err)
	if !strings.HasPrefix(path, work+string(filepath.Separator)) {
		ts.Fatalf("truncate: %s is outside $WORK; cp it first", args[0])
	}
	ts.Check(os.Truncate(path, size))
}
