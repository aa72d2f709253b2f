// Package cmd is the thin command-line layer of kseg: flag parsing and
// wiring between the domain packages and the report renderers.
package cmd

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"runtime/debug"

	"github.com/spf13/cobra"

	"github.com/kseg/kseg/content"
	"github.com/kseg/kseg/internal/dump"
	"github.com/kseg/kseg/internal/source"
	"github.com/kseg/kseg/report"
	"github.com/kseg/kseg/segment"
)

// version and commit can be set at link time:
//
//	go build -ldflags "-X github.com/kseg/kseg/cmd.version=v0.1.0 -X github.com/kseg/kseg/cmd.commit=$(git rev-parse HEAD)"
//
// Otherwise they come from the build info: the module version for
// `go install ...@version` (a pseudo-version naming the commit when built
// in a git clone), the VCS revision when built with -buildvcs (the
// default in a clone; a git worktree or -buildvcs=false records none).
var (
	version = "dev"
	commit  = ""
)

// noVCS follows "dev" when the binary knows neither its version nor its
// commit, so that a bug report says how the binary was built.
const noVCS = " (no version or VCS revision in the build: built from a source tree without -buildvcs; see docs/development.md to stamp one)"

func versionString() string {
	bi, ok := debug.ReadBuildInfo()
	return versionFrom(version, commit, bi, ok)
}

// versionFrom is --version's text from the link-time stamps v and c and,
// where they are unset, the build info bi (ok: there is one).
func versionFrom(v, c string, bi *debug.BuildInfo, ok bool) string {
	dirty := false
	if ok {
		if v == "dev" && bi.Main.Version != "" && bi.Main.Version != "(devel)" {
			v = bi.Main.Version
		}
		for _, s := range bi.Settings {
			switch {
			case s.Key == "vcs.revision" && c == "":
				c = s.Value
			case s.Key == "vcs.modified" && s.Value == "true":
				dirty = true
			}
		}
	}
	if c == "" {
		if v == "dev" {
			return v + noVCS
		}
		return v
	}
	if dirty {
		c += "-dirty"
	}
	return v + " (commit " + c + ")"
}

func newRoot(stdout, stderr io.Writer) *cobra.Command {
	root := &cobra.Command{
		Use:           "kseg",
		Short:         "Kafka log-segment and record-batch forensics",
		Long:          "kseg reads Kafka partition files (.log, .index, .timeindex, .txnindex, .snapshot) without a broker:\ndump them like kafka-dump-log, count batching, audit producers, and reproduce batching with a reference producer.",
		Version:       versionString(),
		Example:       "  kseg count testdata/segments/seed\n  kseg dump testdata/segments/seed/u05-small-0/00000000000000000000.log\n  kseg report testdata/segments/seed --out seed.html",
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	root.SetOut(stdout)
	root.SetErr(stderr)
	for _, add := range subcommands {
		root.AddCommand(add())
	}
	source.AddRemote(root.PersistentFlags()) // lts:// and s3:// options, for every command
	registerCompletions(root)
	// cobra adds help and completion lazily; add them now to give them
	// examples like every other command.
	root.InitDefaultHelpCmd()
	root.InitDefaultCompletionCmd()
	for _, c := range root.Commands() {
		switch c.Name() {
		case "help":
			c.Example = "  kseg help count\n  kseg count --help"
		case "completion":
			c.Example = "  source <(kseg completion bash)\n" +
				"  kseg completion zsh > \"${fpath[1]}/_kseg\"\n" +
				"  kseg completion fish > ~/.config/fish/completions/kseg.fish"
			for _, sh := range c.Commands() {
				if sh.Example == "" {
					sh.Example = "  kseg completion " + sh.Name() + " > kseg-completion." + sh.Name()
				}
			}
		}
	}
	return root
}

// needPaths is the Args check of a command that takes one or more paths;
// msg says what they may be.
func needPaths(msg string) cobra.PositionalArgs {
	return func(_ *cobra.Command, args []string) error {
		if len(args) == 0 {
			return withCode(ExitUsage, errors.New(msg))
		}
		return nil
	}
}

// checkBatchSize checks --batch-size (the producer's batch.size) of count
// and report; 0 means not given.
func checkBatchSize(n int) error {
	if n < 0 {
		return withCode(ExitUsage, fmt.Errorf("--batch-size %d: want a positive byte count", n))
	}
	return nil
}

// showProgress: see report.ShowProgress.
func showProgress(c *cobra.Command, quiet, needStdoutNotTTY bool) bool {
	return report.ShowProgress(c.OutOrStdout(), c.ErrOrStderr(), quiet, needStdoutNotTTY)
}

// subcommands is filled by each command file's init, so adding a command
// touches only its own file.
var subcommands []func() *cobra.Command

// Execute runs kseg with args and returns the process exit code, always
// one of the table in exitcodes.go.
func Execute(args []string, stdout, stderr io.Writer) ExitCode {
	root := newRoot(stdout, stderr)
	root.SetArgs(args)
	err := root.Execute()
	if err == nil {
		return ExitOK
	}
	var se silentExit
	if errors.As(err, &se) {
		return knownOrInternal(ExitCode(se))
	}
	var ee *exitError
	code := ExitUsage // cobra's own errors: unknown flags and commands, bad values
	if errors.As(err, &ee) {
		code = knownOrInternal(ee.code)
	}
	fmt.Fprintf(stderr, "kseg: error: %v\n", err)
	if h := hintFor(err); h != "" {
		fmt.Fprintf(stderr, "kseg: hint: %s\n", h)
	}
	return code
}

// knownOrInternal is c when the table has it, else ExitInternal: a code
// outside the table is a bug in kseg, never an exit status.
func knownOrInternal(c ExitCode) ExitCode {
	if c.known() {
		return c
	}
	return ExitInternal
}

// hintFor suggests the fix for mistakes people commonly make.
func hintFor(err error) string {
	var decoder *content.UnknownDecoderError
	if h := wireHint(err); h != "" {
		return h
	}
	switch {
	case errors.Is(err, segment.ErrEmptyFile):
		return "an empty .log is the active segment of a partition; name the partition directory to read the partition"
	case errors.Is(err, segment.ErrNotLog):
		return "kseg dump FILE prints index, producer snapshot and checkpoint files"
	case errors.Is(err, segment.ErrIsDirectory):
		return "give kseg the directory itself without --files (kseg dump DIR), or name a .log file inside it"
	case errors.Is(err, dump.ErrMissingLog):
		return "an index is checked against the .log beside it; copy both files, or dump the .log alone"
	case errors.As(err, &decoder):
		return "decoders: string, int, long, hex, base64, none, or org.apache.kafka.tools.api.{String,Integer,Long}Decoder"
	case errors.Is(err, fs.ErrNotExist):
		return "check the path; kseg reads files, partition directories (topic-N) and whole log directories"
	case errors.Is(err, dump.ErrUnrecognized):
		return "run 'kseg help <command>' for the options"
	}
	return ""
}
