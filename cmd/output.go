package cmd

import (
	"fmt"
	"strconv"

	"github.com/spf13/pflag"
)

// The output convention of every command that prints results (count,
// audit, diff, explain, produce): --format text|json, with --json as its
// short form. dump parses its own arguments (kafka-dump-log's parser,
// internal/dump) and takes --format text|kseg|json and --json the same
// way; report writes HTML to --out and has no --format. docs/json.md says
// which commands stream NDJSON and which write one document.

// Output formats of --format.
const (
	formatText = "text"
	formatJSON = "json"
)

// outputFlag is --format text|json and --json, bound to one command's flags.
// The last of them on the command line wins.
type outputFlag struct {
	format string
}

// add puts --format and --json on fs; jsonIs says what the JSON output
// is (e.g. "NDJSON, one object per partition").
func (o *outputFlag) add(fs *pflag.FlagSet, jsonIs string) {
	o.format = formatText
	fs.Var(formatValue{o}, "format", "output: text, or json ("+jsonIs+")")
	fs.VarPF(jsonValue{o}, "json", "", "short for --format json").NoOptDefVal = "true"
}

// json tells that the output is JSON.
func (o *outputFlag) json() bool { return o.format == formatJSON }

// formatValue is --format: text or json; any other value is a usage error
// (pflag's error, which Execute ends with ExitUsage).
type formatValue struct{ o *outputFlag }

func (v formatValue) String() string {
	if v.o == nil {
		return ""
	}
	return v.o.format
}

func (v formatValue) Set(s string) error {
	switch s {
	case formatText, formatJSON:
		v.o.format = s
		return nil
	}
	return fmt.Errorf("want %s or %s", formatText, formatJSON)
}

func (formatValue) Type() string { return "text|json" }

// jsonValue is --json, a switch: --json is --format json, --json=false
// leaves text.
type jsonValue struct{ o *outputFlag }

func (v jsonValue) String() string {
	return strconv.FormatBool(v.o != nil && v.o.json())
}

func (v jsonValue) Set(s string) error {
	b, err := strconv.ParseBool(s)
	if err != nil {
		return err
	}
	if b {
		v.o.format = formatJSON
	} else if v.o.json() {
		v.o.format = formatText
	}
	return nil
}

func (jsonValue) Type() string     { return "bool" }
func (jsonValue) IsBoolFlag() bool { return true }
