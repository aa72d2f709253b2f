package cmd

import (
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"

	"github.com/kseg/kseg/report"
	"github.com/kseg/kseg/segment"
	"github.com/spf13/cobra"
)

func init() { subcommands = append(subcommands, newDumpCmd) }

const dumpHelp = `Dump segments, indexes and producer snapshots.

kafka-dump-log's argument list is accepted verbatim and prints the same bytes:
  kseg dump --files 00000000000000000000.log --deep-iteration --print-data-log

kseg's own form takes paths that may be files, partition directories or a whole
log directory (segments in offset order, partitions sorted):
  kseg dump /var/lib/kafka/orders-0 --print-data-log --format json

Options (kafka-dump-log's):
  --files a,b                comma-separated files to dump
  --deep-iteration           one line per record
  --print-data-log           print keys and payloads (implies --deep-iteration)
  --skip-record-metadata     omit record metadata (and control records' text)
  --verify-index-only        check .index/.timeindex without printing entries
  --index-sanity-check       run the broker's startup index check only
  --max-message-size N       window read at each .index position (5242880)
  --max-bytes N              read only the first N bytes of each .log
  --key-decoder-class C      org.apache.kafka.tools.api.{String,Integer,Long}Decoder
  --value-decoder-class C    likewise for values
  --offsets-decoder          decode __consumer_offsets records
  --transaction-log-decoder  decode __transaction_state records
  --cluster-metadata-decoder decode KRaft __cluster_metadata records
Options (kseg's):
  --format text|kseg|json    text is kafka-dump-log's; kseg adds header values,
                             codec sniffing and index invariant checks; json is NDJSON
  --key-decoder NAME         string|int|long|hex|base64|none
  --value-decoder NAME       likewise for values
  --keep-going               report corrupt regions, resynchronise and continue
  --max-decompressed N       cap on one batch's decompressed size (67108864)
  --all-files                with directories, dump indexes and snapshots too
  --quiet                    no progress line on stderr (shown only when stderr
                             is a terminal and stdout is not)

Exit status: 0 ok; 1 a crash where kafka-dump-log would crash (with --files);
2 usage; 3 unreadable or corrupt input (kseg form); with --keep-going, 1 when
corrupt regions were skipped; 1 in kseg form when a producer snapshot's CRC
is bad (kafka-dump-log reports it and exits 0).`

// KafkaVersion is the Kafka release whose kafka-dump-log output kseg dump
// reproduces byte for byte (the oracle's pinned version).
const KafkaVersion = "4.4.0"

const dumpExample = `  kseg dump testdata/segments/seed/u05-small-0/00000000000000000000.log
  kseg dump --files x.log --deep-iteration --print-data-log
  kseg dump --format json --print-data-log /var/lib/kafka/orders-0 > orders.ndjson`

func newDumpCmd() *cobra.Command {
	c := &cobra.Command{
		Use:                "dump [--files a,b | PATH...] [options]",
		Short:              "Dump segments and indexes like kafka-dump-log, or as JSON",
		Long:               dumpHelp,
		Example:            dumpExample,
		DisableFlagParsing: true,
		RunE: func(c *cobra.Command, args []string) error {
			return runDump(args, c.OutOrStdout(), c.ErrOrStderr())
		},
	}
	return c
}

type dumpArgs struct {
	opts       report.DumpOptions
	files      []string
	kafkaForm  bool
	paths      []string
	keyDecoder string
	valDecoder string
	offsets    bool
	txnLog     bool
	metadata   bool
	allFiles   bool
	quiet      bool
	help       bool // --help: kafka-dump-log prints usage on stderr and exits 1
	shortHelp  bool // -h: kseg's help on stdout
	version    bool
}

// parseDumpArgs follows jopt-simple as kafka-dump-log configures it: no
// abbreviations, --name value or --name=value, optional decoder arguments.
func parseDumpArgs(args []string) (*dumpArgs, error) {
	a := &dumpArgs{opts: report.DefaultDumpOptions(), keyDecoder: "string", valDecoder: "string"}
	flags := map[string]*bool{
		"print-data-log":           &a.opts.PrintDataLog,
		"deep-iteration":           &a.opts.DeepIteration,
		"skip-record-metadata":     &a.opts.SkipRecordMetadata,
		"verify-index-only":        &a.opts.VerifyIndexOnly,
		"index-sanity-check":       &a.opts.IndexSanityCheck,
		"offsets-decoder":          &a.offsets,
		"transaction-log-decoder":  &a.txnLog,
		"cluster-metadata-decoder": &a.metadata,
		"keep-going":               &a.opts.KeepGoing,
		"all-files":                &a.allFiles,
		"help":                     &a.help,
		"version":                  &a.version,
		"quiet":                    &a.quiet,
	}
	for i := 0; i < len(args); i++ {
		arg := args[i]
		if arg == "-h" {
			a.shortHelp = true
			continue
		}
		if !strings.HasPrefix(arg, "--") || arg == "--" {
			a.paths = append(a.paths, arg)
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
		case "files":
			v, err := next()
			if err != nil {
				return nil, err
			}
			a.kafkaForm = true
			a.files = javaSplitComma(v)
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
				a.opts.MaxMessageSize = int(n)
			case "max-bytes":
				a.opts.MaxBytes = n
			default:
				m, err := strconv.Atoi(v)
				if err != nil || m <= 0 {
					return nil, fmt.Errorf("--max-decompressed wants a positive byte count, got %q", v)
				}
				a.opts.MaxDecompressed = m
			}
		case "key-decoder-class", "value-decoder-class":
			v, ok := optional()
			a.opts.PrintDataLog = true
			if ok {
				if name == "key-decoder-class" {
					a.keyDecoder = v
				} else {
					a.valDecoder = v
				}
			}
		case "key-decoder", "value-decoder":
			v, err := next()
			if err != nil {
				return nil, err
			}
			if name == "key-decoder" {
				a.keyDecoder = v
			} else {
				a.valDecoder = v
			}
		case "format":
			v, err := next()
			if err != nil {
				return nil, err
			}
			switch v {
			case "text":
				a.opts.Format = report.FormatKafka
			case "kseg":
				a.opts.Format = report.FormatKseg
			case "json":
				a.opts.Format = report.FormatJSON
			default:
				return nil, fmt.Errorf("--format wants text, kseg or json, got %q", v)
			}
		default:
			return nil, fmt.Errorf("%s is not a recognized option", name)
		}
	}
	if a.offsets || a.txnLog || a.metadata {
		a.opts.PrintDataLog = true
	}
	if a.opts.PrintDataLog {
		a.opts.DeepIteration = true
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

func runDump(args []string, stdout, stderr io.Writer) error {
	a, err := parseDumpArgs(args)
	if err != nil {
		return withCode(ExitUsage, err)
	}
	switch {
	case a.shortHelp:
		fmt.Fprintf(stdout, "%s\n\nExamples:\n%s\n", dumpHelp, dumpExample)
		return nil
	case a.help:
		// kafka-dump-log prints its usage on stderr and exits 1; scripts that
		// call kseg in its place see the same.
		fmt.Fprintf(stderr, "%s\n\nExamples:\n%s\n", dumpHelp, dumpExample)
		return silentExit(1)
	case a.version:
		// The kafka-dump-log release whose output kseg reproduces.
		fmt.Fprintln(stdout, KafkaVersion)
		return nil
	}
	if !a.kafkaForm && len(a.paths) == 0 {
		return withCode(ExitUsage, errors.New("nothing to dump: give --files a,b (kafka-dump-log form) or one or more paths"))
	}
	parser, err := newContentParser(a)
	if err != nil {
		return withCode(ExitUsage, err)
	}
	a.opts.Parser = parser
	files := a.files
	if !a.kafkaForm {
		if files, err = expandDumpPaths(a.paths, a.allFiles); err != nil {
			return withCode(ExitBadInput, err)
		}
	}
	if progressWanted(stdout, stderr, a.quiet, true) {
		a.opts.Progress = report.NewProgress(stderr, true, "dump", fileBytes(files))
	}
	d := report.NewDumper(a.opts, stdout, stderr)
	defer a.opts.Progress.Done()
	for _, f := range files {
		if err := d.Dump(f); err != nil {
			d.Finish()
			if a.kafkaForm {
				fmt.Fprintf(stderr, "kseg: error: %v\n", err)
				return silentExit(1)
			}
			return withCode(ExitBadInput, err)
		}
	}
	if err := d.Finish(); err != nil {
		return withCode(ExitBadInput, err)
	}
	if !a.kafkaForm && len(d.Findings()) > 0 {
		// kafka-dump-log prints these and exits 0; kseg's form names the
		// file and byte and exits non-zero.
		for _, f := range d.Findings() {
			fmt.Fprintf(stderr, "kseg: %v\n", f)
		}
		return silentExit(ExitFindings)
	}
	if d.Issues() > 0 {
		return silentExit(ExitFindings)
	}
	return nil
}

// fileBytes is the total size of files, for the progress ETA.
func fileBytes(files []string) int64 {
	var n int64
	for _, f := range files {
		if st, err := os.Stat(f); err == nil && st.Mode().IsRegular() {
			n += st.Size()
		}
	}
	return n
}

// expandDumpPaths turns files, partition directories and log directories
// into the files to dump: segments in offset order, partitions sorted.
func expandDumpPaths(paths []string, allFiles bool) ([]string, error) {
	parts, err := segment.Partitions(paths)
	if err != nil {
		return nil, err
	}
	var out []string
	for i := range parts {
		files, err := parts[i].Files(allFiles)
		if err != nil {
			return nil, err
		}
		out = append(out, files...)
	}
	return out, nil
}
