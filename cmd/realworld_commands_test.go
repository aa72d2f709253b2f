package cmd

import (
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/kseg/kseg/internal/realworld"
)

// Every command that reads a partition's batches, run on every partition
// directory of the real-world corpus (logs kseg did not write: old message
// formats, loose segment files in directories not named TOPIC-N, KRaft
// metadata, LogAppendTime topics): no panic, and an exit code that the
// command documents. A loose segment's partition -1 once crashed whatif and
// report --whatif. Directories whose logs pass 1 MiB are left to the
// benchmarks, to keep the test short.
func TestRealworldCommandsDoNotCrash(t *testing.T) {
	root := filepath.Join(realworld.Dir(t), "segments")
	size := map[string]int64{}
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(p, ".log") {
			return err
		}
		if info, err := d.Info(); err == nil {
			size[filepath.Dir(p)] += info.Size()
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	var dirs []string
	for d, n := range size {
		if n <= 1<<20 {
			dirs = append(dirs, d)
		}
	}
	sort.Strings(dirs)
	if len(dirs) < 10 {
		t.Skipf("real-world corpus holds %d partition directories under 1 MiB", len(dirs))
	}
	html := filepath.Join(t.TempDir(), "r.html")
	for _, c := range []struct {
		name string
		args []string
		ok   []ExitCode
	}{
		{"count", []string{"count"}, []ExitCode{ExitOK, ExitFindings, ExitBadInput}},
		{"audit", []string{"audit", "--json"}, []ExitCode{ExitOK, ExitFindings, ExitBadInput}},
		{"explain", []string{"explain", "--json"}, []ExitCode{ExitOK, ExitBadInput}},
		{"whatif", []string{"whatif", "--set", "linger.ms=20", "--runs", "5"}, []ExitCode{ExitOK, ExitBadInput}},
		{"whatif-synthetic", []string{"whatif", "--synthetic", "--json", "--set", "batch.size=65536", "--runs", "5"}, []ExitCode{ExitOK, ExitBadInput}},
		{"report-whatif", []string{"report", "--whatif", "linger.ms=50", "--whatif-runs", "5", "--out", html, "--force"}, []ExitCode{ExitOK, ExitFindings, ExitBadInput}},
	} {
		t.Run(c.name, func(t *testing.T) {
			for _, d := range dirs {
				_, stderr, code := runKseg(t, append(c.args, d)...)
				if !slices.Contains(c.ok, code) {
					t.Errorf("kseg %s %s: exit %d\n%s", strings.Join(c.args, " "), d, code, stderr)
				}
			}
		})
	}
	os.Remove(html)
}
