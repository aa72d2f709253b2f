package cmd

import (
	"bytes"
	"io"
	"runtime/debug"
	"strings"
	"testing"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// Every command, including help and completion and their sub-commands,
// shows an example in its help.
func TestEveryCommandHasExample(t *testing.T) {
	root := newRoot(&bytes.Buffer{}, &bytes.Buffer{})
	var walk func(c *cobra.Command)
	n := 0
	walk = func(c *cobra.Command) {
		if c.Hidden {
			return
		}
		n++
		if strings.TrimSpace(c.Example) == "" {
			t.Errorf("%q has no Example", c.CommandPath())
		}
		for _, s := range c.Commands() {
			walk(s)
		}
	}
	walk(root)
	for _, want := range []string{"completion", "report", "count", "dump", "audit", "help"} {
		if c, _, err := root.Find([]string{want}); err != nil || c.Name() != want {
			t.Errorf("command %s not registered", want)
		}
	}
	if n < 10 {
		t.Errorf("walked %d commands", n)
	}
	// dump parses its own flags: -h and --help print the same usage with
	// the examples on stdout and exit 0, as every other command's help.
	short, _, code := runKseg(t, "dump", "-h")
	if code != 0 || !strings.Contains(short, "Examples:\n  kseg dump ") {
		t.Errorf("kseg dump -h: exit %d, no examples", code)
	}
	for _, args := range [][]string{{"dump", "--help"}, {"dump", "--files", "x.log", "--help"}} {
		out, errOut, code := runKseg(t, args...)
		if code != 0 || out != short || errOut != "" {
			t.Errorf("kseg %v: exit %d, stdout %q, stderr %q, want -h's usage on stdout and exit 0", args, code, out, errOut)
		}
	}
}

func TestCompletionAndVersion(t *testing.T) {
	for _, sh := range []string{"bash", "zsh", "fish"} {
		out, stderr, code := runKseg(t, "completion", sh)
		if code != 0 || !strings.Contains(out, "kseg") || len(out) < 500 {
			t.Errorf("completion %s: exit %d, %d bytes, %s", sh, code, len(out), stderr)
		}
	}
	out, _, code := runKseg(t, "--version")
	if code != 0 || out != "kseg version "+versionString()+"\n" {
		t.Errorf("--version: exit %d: %q", code, out)
	}
	// The stamped form ("-X ...cmd.version=... -X ...cmd.commit=...") is
	// checked on the real binary in TestBinary.
}

// --version says what the build recorded: the link-time stamps, else the
// module version and VCS revision of the build info, and when there is
// none, that there is none (not a bare "dev").
func TestVersionFromBuildInfo(t *testing.T) {
	vcs := &debug.BuildInfo{Main: debug.Module{Version: "v0.0.0-20261202064937-f8a8f1399eb4"},
		Settings: []debug.BuildSetting{{Key: "vcs.revision", Value: "f8a8f1399eb41cbc109a190f0c53093b02633b13"}, {Key: "vcs.modified", Value: "true"}}}
	none := &debug.BuildInfo{Main: debug.Module{Version: "(devel)"}}
	for _, tc := range []struct {
		v, c string
		bi   *debug.BuildInfo
		want string
	}{
		{"dev", "", vcs, "v0.0.0-20261202064937-f8a8f1399eb4 (commit f8a8f1399eb41cbc109a190f0c53093b02633b13-dirty)"},
		{"v1.2.3", "abc", vcs, "v1.2.3 (commit abc-dirty)"},
		{"dev", "", &debug.BuildInfo{Main: debug.Module{Version: "v1.0.0"}}, "v1.0.0"},
		{"dev", "", none, "dev" + noVCS},
	} {
		if got := versionFrom(tc.v, tc.c, tc.bi, true); got != tc.want {
			t.Errorf("versionFrom(%q, %q): %q, want %q", tc.v, tc.c, got, tc.want)
		}
	}
	if got := versionFrom("dev", "", nil, false); got != "dev"+noVCS {
		t.Errorf("no build info: %q", got)
	}
}

// Shells complete the values of enumerated flags (cobra's __complete is
// what the completion scripts call), on every command that has the flag.
func TestFlagValueCompletion(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"count", "--format", ""}, "text\njson\n"},
		{[]string{"audit", "--fail-on", "w"}, "warning\n"},
		{[]string{"produce", "--compression", ""}, "none\ngzip\nsnappy\nlz4\nzstd\n"},
		{[]string{"produce", "--acks", ""}, "all\n-1\n0\n1\n"},
		{[]string{"explain", "--format", "j"}, "json\n"},
		{[]string{"count", "--from", ""}, "earliest\nlatest\n"},
		// dump parses its own flags; its values complete all the same
		{[]string{"dump", "--format", ""}, "text\nkseg\njson\njson-v1\n"},
		{[]string{"dump", "x.log", "--value-decoder", "s"}, "string\n"},
		{[]string{"dump", "--from", "e"}, "earliest\n"},
	} {
		out, _, code := runKseg(t, append([]string{"__complete"}, tc.args...)...)
		want := tc.want + ":4\n" // ShellCompDirectiveNoFileComp
		if code != 0 || out != want {
			t.Errorf("__complete %q: exit %d, %q, want %q", tc.args, code, out, want)
		}
	}
	// Every listed flag exists on some command.
	seen := map[string]bool{}
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		c.Flags().VisitAll(func(f *pflag.Flag) { seen[f.Name] = true })
		for _, s := range c.Commands() {
			walk(s)
		}
	}
	walk(newRoot(io.Discard, io.Discard))
	for name := range flagValues {
		if !seen[name] {
			t.Errorf("flagValues lists --%s, which no command has", name)
		}
	}
}
