package dump

// The argument list of kseg dump: kafka-dump-log's options verbatim (with
// its error texts) plus kseg's own, parsed into DumpOptions and the
// segments to dump.

import (
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/kseg/kseg/content"
)

// ErrUnrecognized is the cause of an unknown option's error, whose text is
// jopt-simple's "<name> is not a recognized option".
var ErrUnrecognized = errors.New("not a recognized option")

// Args is a parsed kseg dump command line.
type Args struct {
	Opts DumpOptions // Parser and Progress are left nil
	// Files are --files' comma-separated names (kafka-dump-log form);
	// KafkaForm tells that --files was given.
	Files     []string
	KafkaForm bool
	// Paths are the other arguments (kseg form): files, partition
	// directories or log directories.
	Paths                    []string
	KeyDecoder, ValueDecoder string
	Offsets                  bool // --offsets-decoder
	TxnLog                   bool // --transaction-log-decoder
	Metadata                 bool // --cluster-metadata-decoder
	RemoteLog                bool // --remote-log-metadata-decoder
	ShareState               bool // --share-group-state-decoder
	AllFiles                 bool // with directories, indexes and snapshots too
	Quiet                    bool
	Help                     bool // --help: usage on stdout, exit 0 (kafka-dump-log: stderr, exit 1)
	ShortHelp                bool // -h: kseg's help on stdout
	Version                  bool
	// RemoteOpts are kseg's remote-source options (--rsa-key FILE,
	// --s3-endpoint URL, --s3-region R, --s3-path-style) by flag name.
	RemoteOpts map[string]string
}

// Parse follows jopt-simple as kafka-dump-log configures it: no
// abbreviations, --name value or --name=value, optional decoder arguments.
func Parse(args []string) (*Args, error) {
	a := &Args{Opts: DefaultDumpOptions(), KeyDecoder: "string", ValueDecoder: "string"}
	switches := a.switches()
	for i := 0; i < len(args); i++ {
		arg := args[i]
		switch {
		case arg == "-h":
			a.ShortHelp = true
		case !strings.HasPrefix(arg, "--") || arg == "--":
			a.Paths = append(a.Paths, arg)
		default:
			o := newOption(args, i)
			if err := a.option(o, switches); err != nil {
				return nil, err
			}
			i = o.i
		}
	}
	a.applyImplications()
	return a, nil
}

// switches are the options that take no argument, by name, and the field
// each sets.
func (a *Args) switches() map[string]*bool {
	return map[string]*bool{
		"print-data-log":              &a.Opts.PrintDataLog,
		"deep-iteration":              &a.Opts.DeepIteration,
		"skip-record-metadata":        &a.Opts.SkipRecordMetadata,
		"verify-index-only":           &a.Opts.VerifyIndexOnly,
		"index-sanity-check":          &a.Opts.IndexSanityCheck,
		"offsets-decoder":             &a.Offsets,
		"transaction-log-decoder":     &a.TxnLog,
		"cluster-metadata-decoder":    &a.Metadata,
		"remote-log-metadata-decoder": &a.RemoteLog,
		"share-group-state-decoder":   &a.ShareState,
		"keep-going":                  &a.Opts.KeepGoing,
		"all-files":                   &a.AllFiles,
		"redact":                      &a.Opts.Redact,
		"help":                        &a.Help,
		"version":                     &a.Version,
		"quiet":                       &a.Quiet,
	}
}

// applyImplications sets what options imply: a content decoder prints
// the data log, and printing it iterates deeply.
func (a *Args) applyImplications() {
	if a.Offsets || a.TxnLog || a.Metadata || a.RemoteLog || a.ShareState {
		a.Opts.PrintDataLog = true
	}
	if a.Opts.PrintDataLog {
		a.Opts.DeepIteration = true
	}
}

// option is one "--name" or "--name=value" argument at args[i]. value and
// optionalValue take the next argument when it holds the value, moving i
// to it.
type option struct {
	args   []string
	i      int
	name   string
	val    string
	hasVal bool
}

func newOption(args []string, i int) *option {
	name, val, hasVal := strings.Cut(args[i][2:], "=")
	return &option{args: args, i: i, name: name, val: val, hasVal: hasVal}
}

// value is the option's required argument.
func (o *option) value() (string, error) {
	if o.hasVal {
		return o.val, nil
	}
	if o.i+1 >= len(o.args) {
		return "", fmt.Errorf("Option %s requires an argument", o.name)
	}
	o.i++
	return o.args[o.i], nil
}

// optionalValue is the option's optional argument: after '=', or the next
// argument when it does not start with '-'.
func (o *option) optionalValue() (string, bool) {
	if o.hasVal {
		return o.val, true
	}
	if o.i+1 < len(o.args) && !strings.HasPrefix(o.args[o.i+1], "-") {
		o.i++
		return o.args[o.i], true
	}
	return "", false
}

// option applies one option, with jopt-simple's error texts.
func (a *Args) option(o *option, switches map[string]*bool) error {
	if p, ok := switches[o.name]; ok {
		if o.hasVal {
			return fmt.Errorf("Option %s does not take an argument", o.name)
		}
		*p = true
		return nil
	}
	switch o.name {
	case "rsa-key", "s3-endpoint", "s3-region", "s3-path-style":
		return a.remoteOption(o)
	case "files":
		v, err := o.value()
		if err != nil {
			return err
		}
		a.KafkaForm, a.Opts.KafkaTail = true, true
		a.Files = javaSplitComma(v)
	case "max-message-size", "max-bytes", "max-decompressed":
		return a.sizeOption(o)
	case "key-decoder-class", "value-decoder-class":
		// kafka-dump-log's: the class is optional, and either prints the
		// data log.
		a.Opts.PrintDataLog = true
		if v, ok := o.optionalValue(); ok {
			*a.decoder(o.name) = v
		}
	case "key-decoder", "value-decoder":
		v, err := o.value()
		if err != nil {
			return err
		}
		*a.decoder(o.name) = v
	case "format":
		return a.formatOption(o)
	case "json":
		// kseg's short form of --format json, as on every other command.
		if o.hasVal {
			return fmt.Errorf("Option %s does not take an argument", o.name)
		}
		a.Opts.Format = FormatJSON
	default:
		return fmt.Errorf("%s is %w", o.name, ErrUnrecognized)
	}
	return nil
}

// remoteOption keeps a remote-source option by name: --s3-path-style is a
// switch (true unless given =value), the others take an argument.
func (a *Args) remoteOption(o *option) error {
	v := "true"
	if o.name != "s3-path-style" {
		var err error
		if v, err = o.value(); err != nil {
			return err
		}
	} else if o.hasVal {
		v = o.val
	}
	if a.RemoteOpts == nil {
		a.RemoteOpts = map[string]string{}
	}
	a.RemoteOpts[o.name] = v
	return nil
}

// sizeOption sets a byte count: kafka-dump-log's --max-message-size and
// --max-bytes are Java ints, kseg's --max-decompressed is positive.
func (a *Args) sizeOption(o *option) error {
	v, err := o.value()
	if err != nil {
		return err
	}
	if o.name == "max-decompressed" {
		m, err := strconv.Atoi(v)
		if err != nil || m <= 0 {
			return fmt.Errorf("--max-decompressed wants a positive byte count, got %q", v)
		}
		a.Opts.MaxDecompressed = m
		return nil
	}
	n, err := strconv.ParseInt(v, 10, 32)
	if err != nil {
		return fmt.Errorf("Cannot parse argument '%s' of option %s", v, o.name)
	}
	if o.name == "max-message-size" {
		a.Opts.MaxMessageSize = int(n)
	} else {
		a.Opts.MaxBytes = n
	}
	return nil
}

// decoder is the key's decoder name for a key-decoder option, else the
// value's.
func (a *Args) decoder(option string) *string {
	if strings.HasPrefix(option, "key-") {
		return &a.KeyDecoder
	}
	return &a.ValueDecoder
}

// formatOption sets --format: text (kafka-dump-log's), kseg or json.
func (a *Args) formatOption(o *option) error {
	v, err := o.value()
	if err != nil {
		return err
	}
	switch v {
	case "text":
		a.Opts.Format = FormatKafka
	case "kseg":
		a.Opts.Format = FormatKseg
	case "json":
		a.Opts.Format = FormatJSON
	case "json-v1":
		a.Opts.Format = FormatJSONv1 // the schema before file objects (docs/json.md)
	default:
		return fmt.Errorf("--format wants text, kseg or json, got %q", v)
	}
	return nil
}

// javaSplitComma is String.split(","): trailing empty items dropped, no trim.
func javaSplitComma(s string) []string {
	parts := strings.Split(s, ",")
	for len(parts) > 0 && parts[len(parts)-1] == "" {
		parts = parts[:len(parts)-1]
	}
	return parts
}

// Parser picks the record content renderer in kafka-dump-log's precedence:
// offsets, transaction log, cluster metadata, remote log metadata, share
// group state, then the decoders (whose
// unknown names are a *content.UnknownDecoderError).
func (a *Args) Parser() (content.Parser, error) {
	switch {
	case a.Opts.Redact:
		return redactParser{}, nil
	case a.Offsets:
		return content.NewOffsetsParser(), nil
	case a.TxnLog:
		return content.NewTransactionLogParser(), nil
	case a.Metadata:
		return content.NewClusterMetadataParser(), nil
	case a.RemoteLog:
		return content.NewRemoteLogMetadataParser(), nil
	case a.ShareState:
		return content.NewShareGroupStateParser(), nil
	}
	return content.NewStringParser(a.KeyDecoder, a.ValueDecoder)
}
