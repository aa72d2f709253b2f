// Package dumpargs parses the argument list of kseg dump: kafka-dump-log's
// options verbatim (with its error texts) plus kseg's own, into
// report.DumpOptions and the list of files to dump.
package dumpargs

import (
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/kseg/kseg/content"
	"github.com/kseg/kseg/report"
	"github.com/kseg/kseg/segment"
)

// ErrUnrecognized is the cause of an unknown option's error, whose text is
// jopt-simple's "<name> is not a recognized option".
var ErrUnrecognized = errors.New("not a recognized option")

// Args is a parsed kseg dump command line.
type Args struct {
	Opts report.DumpOptions // Parser and Progress are left nil
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
	Help                     bool // --help: kafka-dump-log prints usage on stderr and exits 1
	ShortHelp                bool // -h: kseg's help on stdout
	Version                  bool
	// RemoteOpts are kseg's remote-source options (--rsa-key FILE,
	// --s3-endpoint URL, --s3-region R, --s3-path-style) by flag name.
	RemoteOpts map[string]string
	// Walk expands the kseg-form paths (nil: segment.Partitions, local
	// paths only): the command's sources, which read URLs too.
	Walk func([]string) ([]segment.Partition, error)
	// remote are the inputs held outside files (the segments of a source
	// URL, opened through Segment.Open), by the name Inputs returns.
	remote map[string]segment.Segment
}

// Remote returns the segment behind an input name Inputs returned when it
// is not a file (it has Open).
func (a *Args) Remote(name string) (segment.Segment, bool) {
	s, ok := a.remote[name]
	return s, ok
}

// Parse follows jopt-simple as kafka-dump-log configures it: no
// abbreviations, --name value or --name=value, optional decoder arguments.
func Parse(args []string) (*Args, error) {
	a := &Args{Opts: report.DefaultDumpOptions(), KeyDecoder: "string", ValueDecoder: "string"}
	flags := map[string]*bool{
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
		"help":                        &a.Help,
		"version":                     &a.Version,
		"quiet":                       &a.Quiet,
	}
	for i := 0; i < len(args); i++ {
		arg := args[i]
		if arg == "-h" {
			a.ShortHelp = true
			continue
		}
		if !strings.HasPrefix(arg, "--") || arg == "--" {
			a.Paths = append(a.Paths, arg)
			continue
		}
		name, val, hasVal := strings.Cut(arg[2:], "=")
		next := func() (string, error) {
			if hasVal {
				return val, nil
			}
			if i+1 >= len(args) {
				return "", fmt.Errorf("Option %s requires an argument", name)
			}
			i++
			return args[i], nil
		}
		optional := func() (string, bool) {
			if hasVal {
				return val, true
			}
			if i+1 < len(args) && !strings.HasPrefix(args[i+1], "-") {
				i++
				return args[i], true
			}
			return "", false
		}
		if p, ok := flags[name]; ok {
			if hasVal {
				return nil, fmt.Errorf("Option %s does not take an argument", name)
			}
			*p = true
			continue
		}
		switch name {
		case "rsa-key", "s3-endpoint", "s3-region", "s3-path-style":
			v := "true"
			if name != "s3-path-style" {
				var err error
				if v, err = next(); err != nil {
					return nil, err
				}
			} else if hasVal {
				v = val
			}
			if a.RemoteOpts == nil {
				a.RemoteOpts = map[string]string{}
			}
			a.RemoteOpts[name] = v
		case "files":
			v, err := next()
			if err != nil {
				return nil, err
			}
			a.KafkaForm = true
			a.Files = javaSplitComma(v)
		case "max-message-size", "max-bytes", "max-decompressed":
			v, err := next()
			if err != nil {
				return nil, err
			}
			n, err := strconv.ParseInt(v, 10, 32)
			if err != nil && name != "max-decompressed" {
				return nil, fmt.Errorf("Cannot parse argument '%s' of option %s", v, name)
			}
			switch name {
			case "max-message-size":
				a.Opts.MaxMessageSize = int(n)
			case "max-bytes":
				a.Opts.MaxBytes = n
			default:
				m, err := strconv.Atoi(v)
				if err != nil || m <= 0 {
					return nil, fmt.Errorf("--max-decompressed wants a positive byte count, got %q", v)
				}
				a.Opts.MaxDecompressed = m
			}
		case "key-decoder-class", "value-decoder-class":
			v, ok := optional()
			a.Opts.PrintDataLog = true
			if ok {
				if name == "key-decoder-class" {
					a.KeyDecoder = v
				} else {
					a.ValueDecoder = v
				}
			}
		case "key-decoder", "value-decoder":
			v, err := next()
			if err != nil {
				return nil, err
			}
			if name == "key-decoder" {
				a.KeyDecoder = v
			} else {
				a.ValueDecoder = v
			}
		case "format":
			v, err := next()
			if err != nil {
				return nil, err
			}
			switch v {
			case "text":
				a.Opts.Format = report.FormatKafka
			case "kseg":
				a.Opts.Format = report.FormatKseg
			case "json":
				a.Opts.Format = report.FormatJSON
			default:
				return nil, fmt.Errorf("--format wants text, kseg or json, got %q", v)
			}
		default:
			return nil, fmt.Errorf("%s is %w", name, ErrUnrecognized)
		}
	}
	if a.Offsets || a.TxnLog || a.Metadata || a.RemoteLog || a.ShareState {
		a.Opts.PrintDataLog = true
	}
	if a.Opts.PrintDataLog {
		a.Opts.DeepIteration = true
	}
	return a, nil
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

// Inputs are the files to dump: --files as given, or the kseg-form paths
// expanded (segments in offset order, partitions sorted; indexes and
// snapshots too with --all-files).
func (a *Args) Inputs() ([]string, error) {
	if a.KafkaForm {
		return a.Files, nil
	}
	walk := a.Walk
	if walk == nil {
		walk = segment.Partitions
	}
	parts, err := walk(a.Paths)
	if err != nil {
		return nil, err
	}
	var out []string
	for i := range parts {
		for _, s := range parts[i].Segments {
			if s.Open != nil {
				if a.remote == nil {
					a.remote = map[string]segment.Segment{}
				}
				a.remote[s.Path] = s
			}
		}
		files, err := parts[i].Files(a.AllFiles)
		if err != nil {
			return nil, err
		}
		out = append(out, files...)
	}
	return out, nil
}
