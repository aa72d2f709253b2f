package cmd

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/kseg/kseg/internal/goldens"
)

// TestOutputFormat: every command that prints results takes --format
// text|json; --json is --format json byte for byte, --format text is the
// default output, the last of them wins, and an unknown format is a usage
// error naming the accepted values.
func TestOutputFormat(t *testing.T) {
	seed := filepath.Join(goldens.Segments(t), "seed")
	small := filepath.Join(seed, "u05-small-0")
	seg := filepath.Join(small, "00000000000000000000.log")
	tmp := t.TempDir()
	cmds := []struct {
		name string
		args func(run string) []string // run names a fresh output directory where one is written
	}{
		{"count", func(string) []string { return []string{"count", "--detail", small} }},
		{"audit", func(string) []string { return []string{"audit", small} }},
		{"diff", func(string) []string { return []string{"diff", small, filepath.Join(seed, "u05-default-0")} }},
		{"explain", func(string) []string { return []string{"explain", small} }},
		{"produce runs", func(string) []string { return []string{"produce", "--records", "60", "--runs", "3", "--dry-run"} }},
		{"produce one run", func(run string) []string {
			return []string{"produce", "--records", "60", "--out", filepath.Join(tmp, run)}
		}},
		{"dump", func(string) []string { return []string{"dump", "--print-data-log", seg} }},
	}
	n := 0
	run := func(c func(string) []string, extra ...string) (string, string, ExitCode) {
		n++
		args := c(strings.Repeat("r", n))
		return runKseg(t, append(args[:1:1], append(extra, args[1:]...)...)...)
	}
	for _, c := range cmds {
		textFlag := "text"
		if c.name == "dump" {
			textFlag = "kseg" // dump's default is kafka-dump-log's text; kseg is its other text form
		}
		def, _, defCode := run(c.args)
		js, _, jsCode := run(c.args, "--json")
		fj, _, fjCode := run(c.args, "--format", "json")
		fj2, _, _ := run(c.args, "--format=json")
		last, _, _ := run(c.args, "--format", textFlag, "--json")
		if js == "" || !strings.HasPrefix(js, "{") {
			t.Errorf("%s --json: not JSON: %.100q", c.name, js)
		}
		if fj != js || fj2 != js || last != js || fjCode != jsCode {
			t.Errorf("%s: --format json differs from --json (exit %d, %d):\n%.200s\n%.200s", c.name, fjCode, jsCode, fj, js)
		}
		if c.name != "dump" {
			txt, _, txtCode := run(c.args, "--json", "--format", "text")
			if txt != def || txtCode != defCode {
				t.Errorf("%s: --json --format text differs from the default output:\n%.200s\n%.200s", c.name, txt, def)
			}
		}
		_, stderr, code := run(c.args, "--format", "xml")
		if code != ExitUsage || !strings.Contains(stderr, "json") || !strings.Contains(stderr, "text") {
			t.Errorf("%s --format xml: exit %d, stderr %q; want ExitUsage naming the formats", c.name, code, stderr)
		}
	}
}
