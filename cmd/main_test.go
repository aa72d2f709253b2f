package cmd

import (
	"bytes"
	"os"
	"runtime/debug"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/kseg/kseg/internal/testbin"
)

// How the CLI is tested:
//
//   - Go tests run the command tree in process with runKseg (package cmd)
//     or execute (package cmd_test): cmd.Execute with buffers, returning the
//     exit code that main.go passes to os.Exit.
//   - testscript scripts (testdata/script/*.txtar, TestScripts) run "kseg"
//     as this test binary re-executed under that name, through the same
//     Execute call as main.go, so they see real exit statuses and files.
//   - Only binary_test.go runs the real binary (internal/testbin builds it
//     once): main.go itself and the version stamped at link time.
func TestMain(m *testing.M) {
	testscript.Main(cleanupM{m}, map[string]func(){
		"kseg": func() { os.Exit(int(Execute(os.Args[1:], os.Stdout, os.Stderr))) },
	})
}

// cleanupM removes the binary testbin built once the tests have run;
// testscript.Main exits the process itself, so TestMain cannot defer it.
type cleanupM struct{ m *testing.M }

func (c cleanupM) Run() int {
	defer testbin.Cleanup()
	return c.m.Run()
}

// runKseg runs kseg in process and returns stdout, stderr and the exit
// code. A panic fails the test with its stack instead of ending the run.
func runKseg(t *testing.T, args ...string) (stdout, stderr string, code ExitCode) {
	t.Helper()
	var out, errb bytes.Buffer
	func() {
		defer func() {
			if r := recover(); r != nil {
				t.Fatalf("kseg %q panicked: %v\n%s", args, r, debug.Stack())
			}
		}()
		code = Execute(args, &out, &errb)
	}()
	return out.String(), errb.String(), code
}
