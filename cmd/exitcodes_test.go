package cmd

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/kseg/kseg/internal/goldens"
)

// TestExitCodesDocumented: docs/exit-codes.md holds every row of the table
// verbatim, so the page cannot drift from the codes kseg returns.
func TestExitCodesDocumented(t *testing.T) {
	b, err := os.ReadFile("../docs/exit-codes.md")
	if err != nil {
		t.Fatal(err)
	}
	doc := string(b)
	for _, e := range exitCodes {
		row := fmt.Sprintf("| %d | `%s` | %s |", e.Code, e.Name, e.Meaning)
		if !strings.Contains(doc, "\n"+row+"\n") {
			t.Errorf("docs/exit-codes.md lacks the row of %s:\n%s", e.Name, row)
		}
	}
	// and no row the table does not have
	for _, line := range strings.Split(doc, "\n") {
		if m := regexp.MustCompile("^\\| (\\d+) \\| `(\\w+)` \\|").FindStringSubmatch(line); m != nil {
			if !slices.ContainsFunc(exitCodes, func(e exitCodeInfo) bool { return e.Name == m[2] && fmt.Sprint(int(e.Code)) == m[1] }) {
				t.Errorf("docs/exit-codes.md has a row the table lacks: %s", line)
			}
		}
	}
}

// exitStatusCodes are the codes a help text's "Exit status:" paragraph
// names (the digits that start a clause).
func exitStatusCodes(t *testing.T, name, long string) []ExitCode {
	_, para, ok := strings.Cut(long, "Exit status:")
	if !ok {
		t.Errorf("kseg %s --help has no \"Exit status:\" paragraph", name)
		return nil
	}
	para, _, _ = strings.Cut(para, "\n\n")
	var codes []ExitCode
	for _, m := range regexp.MustCompile(`(?:^|[\s;,])(\d)\s`).FindAllStringSubmatch(para, -1) {
		c := ExitCode(m[1][0] - '0')
		if !slices.Contains(codes, c) {
			codes = append(codes, c)
		}
	}
	slices.Sort(codes)
	return codes
}

// TestHelpExitStatus: each command's help lists the codes it returns, and
// only codes of the table.
func TestHelpExitStatus(t *testing.T) {
	want := map[string][]ExitCode{
		"dump":     {ExitOK, ExitFindings, ExitUsage, ExitBadInput}, // ExitKafkaCrash is 1 too
		"count":    {ExitOK, ExitFindings, ExitUsage, ExitBadInput},
		"diff":     {ExitOK, ExitFindings, ExitUsage, ExitBadInput},
		"audit":    {ExitOK, ExitFindings, ExitUsage, ExitBadInput},
		"explain":  {ExitOK, ExitUsage, ExitBadInput, ExitInternal},
		"produce":  {ExitOK, ExitFindings, ExitUsage, ExitBadInput, ExitInternal},
		"report":   {ExitOK, ExitUsage, ExitBadInput},
		"replicas": {ExitOK, ExitFindings, ExitUsage, ExitBadInput},
	}
	root := newRoot(&bytes.Buffer{}, &bytes.Buffer{})
	for name, codes := range want {
		c, _, err := root.Find([]string{name})
		if err != nil || c.Name() != name {
			t.Fatalf("no command %s: %v", name, err)
		}
		got := exitStatusCodes(t, name, c.Long)
		for _, code := range got {
			if !code.known() {
				t.Errorf("kseg %s --help names exit status %d, which is not in the table", name, code)
			}
		}
		if !slices.Equal(got, codes) {
			t.Errorf("kseg %s --help names exit statuses %v, want %v", name, got, codes)
		}
	}
}

// TestExecuteCodesInTable: whatever goes wrong, Execute returns a code of
// the table.
func TestExecuteCodesInTable(t *testing.T) {
	small := filepath.Join(goldens.Segments(t), "seed", "u05-small-0")
	seg := filepath.Join(small, "00000000000000000000.log")
	dir := t.TempDir()
	junk := filepath.Join(dir, "junk-0", "00000000000000000000.log")
	if err := os.MkdirAll(filepath.Dir(junk), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(junk, bytes.Repeat([]byte{0xff}, 200), 0o644); err != nil {
		t.Fatal(err)
	}
	missing := filepath.Join(dir, "missing")
	cases := []struct {
		args []string
		want ExitCode
	}{
		{[]string{"no-such-command"}, ExitUsage},
		{[]string{"count", "--no-such-flag", small}, ExitUsage},
		{[]string{"count", "--format", "xml", small}, ExitUsage},
		{[]string{"dump", "--format", "xml", seg}, ExitUsage},
		{[]string{"count"}, ExitUsage},
		{[]string{"count", missing}, ExitBadInput},
		{[]string{"count", "--expect-histogram", "8x24", small}, ExitFindings},
		{[]string{"dump", "--help"}, ExitOK},
		{[]string{"dump", junk}, ExitBadInput},
		{[]string{"dump", "--files", junk}, ExitKafkaCrash},
		{[]string{"dump", "--keep-going", junk}, ExitFindings},
		{[]string{"audit", missing}, ExitBadInput},
		{[]string{"diff", small}, ExitUsage},
		{[]string{"explain", missing}, ExitBadInput},
		{[]string{"produce", "--records", "-1", "--dry-run"}, ExitUsage},
		{[]string{"report", small}, ExitUsage},
		{[]string{"replicas", small}, ExitUsage},
		{[]string{"replicas", small, missing}, ExitBadInput},
	}
	for _, tc := range cases {
		var out, errb bytes.Buffer
		code := Execute(tc.args, &out, &errb)
		if !code.known() {
			t.Errorf("kseg %q: exit %d is not in the table", tc.args, code)
		}
		if code != tc.want {
			t.Errorf("kseg %q: exit %d (%v), want %d (%v)\n%s", tc.args, code, code, tc.want, tc.want, errb.String())
		}
	}
	if got := knownOrInternal(ExitCode(42)); got != ExitInternal {
		t.Errorf("knownOrInternal(42) = %d, want ExitInternal", got)
	}
}

// TestNoBareExitCodes: cmd's code names its exit codes; a bare number in
// withCode, silentExit or an exitError would bypass the table.
func TestNoBareExitCodes(t *testing.T) {
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	bare := regexp.MustCompile(`(?:withCode|silentExit|ExitCode)\(\s*\d|code:\s*\d`)
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for i, line := range strings.Split(string(b), "\n") {
			if bare.MatchString(line) {
				t.Errorf("%s:%d: a bare exit code: %s", f, i+1, strings.TrimSpace(line))
			}
		}
	}
}
