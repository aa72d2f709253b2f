package cmd

import (
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/kseg/kseg/internal/remote"
	"github.com/kseg/kseg/internal/source"
	"github.com/kseg/kseg/internal/wire"
	"github.com/kseg/kseg/segment"
)

// Every command that reads sources (count, audit, diff, report, explain,
// dump) builds them the same way: the flags give a source.Options, the
// options a source.Set, and the set the partitions of the arguments; the
// set's clients are closed and its secrets cut from the error when the
// command ends. The remote-store flags (--rsa-key, --s3-*) are kseg's
// global flags (source.AddRemote); kseg dump reads all of them from its own
// argument list.

// addSourceFlags gives c the kafka:// flags (bound to flags) and their help.
func addSourceFlags(c *cobra.Command, flags *source.Flags) {
	flags.Add(c.Flags())
	flags.NoteTo(c.ErrOrStderr)
	c.Long += "\n\n" + source.FlagHelp
}

// withSource builds the sources the flags say and runs run with them.
func withSource(flags *source.Flags, run func(src *source.Set) error) error {
	opts, err := flags.Options()
	if err != nil {
		return withCode(ExitUsage, err)
	}
	return runWithSource(opts, run)
}

// runWithSource runs run with the sources opts say, closes them, and cuts
// the secrets from run's error.
func runWithSource(opts source.Options, run func(src *source.Set) error) (err error) {
	src, done := openSource(opts)
	defer done(&err)
	return run(src)
}

// openSource is runWithSource for a command that does not wrap its body
// (kseg dump): call done with its error's address when it ends.
func openSource(opts source.Options) (src *source.Set, done func(*error)) {
	src = source.New(opts)
	return src, func(err *error) {
		src.Close()
		*err = redacted(*err, src)
	}
}

// takeWireArgs removes the source flags (kafka://, --from/--to, the
// filters) from dump's argument list (which internal/dump parses as
// kafka-dump-log's) and gives the options they set; notes go to stderr.
func takeWireArgs(args []string, stderr io.Writer) ([]string, source.Options, error) {
	fs := pflag.NewFlagSet("dump", pflag.ContinueOnError)
	w := &source.Flags{}
	w.Add(fs)
	w.NoteTo(func() io.Writer { return stderr })
	var rest []string
	for i := 0; i < len(args); i++ {
		a := args[i]
		name, _, hasValue := strings.Cut(strings.TrimPrefix(a, "--"), "=")
		f := fs.Lookup(name)
		if !strings.HasPrefix(a, "--") || f == nil {
			rest = append(rest, a)
			continue
		}
		v := "true"
		if hasValue {
			_, v, _ = strings.Cut(a, "=")
		} else if f.Value.Type() != "bool" {
			if i+1 >= len(args) {
				return nil, source.Options{}, withCode(ExitUsage, fmt.Errorf("%s needs a value", a))
			}
			i++
			v = args[i]
		}
		if err := fs.Set(name, v); err != nil {
			return nil, source.Options{}, withCode(ExitUsage, fmt.Errorf("%s: %w", a, err))
		}
	}
	opts, err := w.Options()
	if err != nil {
		return nil, opts, withCode(ExitUsage, err)
	}
	return rest, opts, nil
}

// redactedError is an error whose text has the source's secrets removed.
type redactedError struct {
	err error
	msg string
}

func (e redactedError) Error() string { return e.msg }
func (e redactedError) Unwrap() error { return e.err }

func redacted(err error, src *source.Set) error {
	if err == nil {
		return nil
	}
	var ee *exitError
	if errors.As(err, &ee) {
		return &exitError{code: ee.code, err: redactedError{ee.err, src.Redact(ee.err.Error())}}
	}
	var se silentExit
	if errors.As(err, &se) {
		return err
	}
	return redactedError{err, src.Redact(err.Error())}
}

// wireHint is the hint for errors reading a cluster.
func wireHint(err error) string {
	switch {
	case errors.Is(err, wire.ErrAuth):
		return "check the SASL user and password (--command-config, --sasl-user, $KSEG_SASL_PASSWORD) and the ACLs"
	case errors.Is(err, wire.ErrTLS):
		return "check the CA (--tls-ca, ssl.truststore.location) and that the broker's certificate names the host you connect to"
	case errors.Is(err, wire.ErrUnreachable):
		return "check HOST:PORT, the listener's security.protocol (--tls, --command-config) and the CA (--tls-ca)"
	case errors.Is(err, wire.ErrUnknownTopic):
		return "list the topics with kafka-topics.sh --list; TOPIC may be a regular expression"
	case errors.Is(err, remote.ErrTimeout):
		return "check the endpoint (--s3-endpoint, AWS_ENDPOINT_URL_S3, --s3-region) and the network; a slow store may need a longer --timeout"
	case errors.Is(err, remote.ErrMissingObject):
		return "list the segment's objects (aws s3 ls); the plugin deletes a segment's objects together, so one left alone is an upload that did not finish or an object deleted by hand"
	}
	return ""
}

// namedLogs is walk (a source.Set's Partitions) refusing an empty file
// named as a log (segment.CheckNamed): kseg's own forms read no log from
// it, exit 3 naming it.
func namedLogs(walk func([]string) ([]segment.Partition, error)) func([]string) ([]segment.Partition, error) {
	return func(args []string) ([]segment.Partition, error) {
		parts, err := walk(args)
		if err != nil {
			return nil, err
		}
		if err := segment.CheckNamed(parts); err != nil {
			return nil, err
		}
		return parts, nil
	}
}
