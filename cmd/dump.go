package cmd

import (
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"

	"github.com/kseg/kseg/internal/dump"
	"github.com/kseg/kseg/report"
	"github.com/kseg/kseg/segment"
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
  --remote-log-metadata-decoder  decode __remote_log_metadata records (tiered storage)
  --share-group-state-decoder    decode __share_group_state records (share groups)
Options (kseg's):
  --format text|kseg|json    text is kafka-dump-log's; kseg adds header values,
                             codec sniffing and index invariant checks; json is NDJSON
                             (schema 2; json-v1: the file named on every object)
  --json                     short for --format json
  --key-decoder NAME         string|int|long|hex|base64|none
  --value-decoder NAME       likewise for values
  --keep-going               report corrupt regions, resynchronise and continue
  --max-decompressed N       cap on one batch's decompressed size (67108864);
                             an entry read whole may be at most a quarter more
  --all-files                with directories, dump indexes and snapshots too
  --rsa-key FILE, --s3-endpoint URL, --s3-region R, --s3-path-style
                             for remote sources (lts://DIR, s3://BUCKET/PREFIX)
  --from B, --to B           the batches holding offsets [from, to), on every
                             source (files seek through .index/.timeindex):
                             earliest|latest|OFFSET|@RFC3339|@MILLIS, or -2
                             (earliest), -1 (latest); default earliest to latest;
                             record lines outside the range are left out
  --producer-id N, --producer-epoch E, --transactional[=false], --control[=false],
  --codec C[,C], --key K, --key-regex RE
                             only the batches (and records) that match
  --redact                   "[redacted]" for keys, values and header values
                             (sizes kept): a support bundle's form
  --timeout DURATION         kafka:// and s3:// sources: deadline of connecting
                             and of each request (10s)
  --fetch-bytes N, --command-config FILE, --tls, --tls-ca FILE, --tls-cert FILE,
  --tls-key FILE, --sasl-mechanism M, --sasl-user U, --sasl-password-env VAR
                             kafka:// sources, as in kseg count --help
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
		// dump parses its own flags (kafka-dump-log's), so cobra never
		// sees them and registerCompletions cannot reach them: complete
		// the value of an enumerated flag here, and paths otherwise.
		ValidArgsFunction: func(_ *cobra.Command, args []string, prefix string) ([]string, cobra.ShellCompDirective) {
			if len(args) == 0 {
				return nil, cobra.ShellCompDirectiveDefault
			}
			values, ok := dumpFlagValues[args[len(args)-1]]
			if !ok {
				return nil, cobra.ShellCompDirectiveDefault
			}
			var out []string
			for _, v := range values {
				if strings.HasPrefix(v, prefix) {
					out = append(out, v)
				}
			}
			return out, cobra.ShellCompDirectiveNoFileComp
		},
	}
	return c
}

// dumpFlagValues are the values shells complete for dump's enumerated
// flags (its help lists the same).
var dumpFlagValues = map[string][]string{
	"--format":         {formatText, "kseg", formatJSON, "json-v1"},
	"--key-decoder":    {"string", "int", "long", "hex", "base64", "none"},
	"--value-decoder":  {"string", "int", "long", "hex", "base64", "none"},
	"--from":           flagValues["from"],
	"--to":             flagValues["to"],
	"--codec":          flagValues["codec"],
	"--sasl-mechanism": flagValues["sasl-mechanism"],
}

func runDump(args []string, stdout, stderr io.Writer) (err error) {
	args, opts, err := takeWireArgs(args, stderr)
	if err != nil {
		return err
	}
	a, err := dump.Parse(args)
	if err != nil {
		return withCode(ExitUsage, err)
	}
	if done, err := dumpHelpOrVersion(a, stdout, stderr); done {
		return err
	}
	if a.KafkaForm && opts.Query.Active() {
		// --files is kafka-dump-log's form, which reads every byte it is
		// given; the range and the filters are kseg's.
		return withCode(ExitUsage, errors.New("--from, --to and the filters take kseg's form (paths), not --files"))
	}
	if !a.KafkaForm && len(a.Paths) == 0 {
		return withCode(ExitUsage, errors.New("nothing to dump: give --files a,b (kafka-dump-log form) or one or more paths"))
	}
	for name, v := range a.RemoteOpts {
		opts.SetRemote(name, v)
	}
	src, done := openSource(opts)
	defer done(&err)
	if a.Opts.Parser, err = a.Parser(); err != nil {
		return withCode(ExitUsage, err)
	}
	// The command's sources resolve the paths: files and directories, and
	// kafka://, s3:// and lts:// URLs, whose segments are held elsewhere.
	segs, err := a.Inputs(namedLogs(src.Partitions))
	if err != nil {
		return withCode(ExitBadInput, err)
	}
	if report.ShowProgress(stdout, stderr, a.Quiet, true) {
		a.Opts.Progress = report.NewProgress(stderr, true, "dump", dump.Size(segs))
	}
	defer a.Opts.Progress.Done()
	return dumpSegments(dump.NewDumper(a.Opts, stdout, stderr), segs, a.KafkaForm, stderr)
}

// dumpHelpOrVersion answers -h, --help and --version; done tells that it
// did, and err is the exit.
func dumpHelpOrVersion(a *dump.Args, stdout, stderr io.Writer) (done bool, err error) {
	switch {
	case a.ShortHelp, a.Help:
		// Help that was asked for is the output and a success, as for
		// every other command (kafka-dump-log prints it on stderr and
		// exits 1; kseg keeps Kafka's status only for real crashes).
		fmt.Fprintf(stdout, "%s\n\nExamples:\n%s\n", dumpHelp, dumpExample)
		return true, nil
	case a.Version:
		// The kafka-dump-log release whose output kseg reproduces.
		fmt.Fprintln(stdout, KafkaVersion)
		return true, nil
	}
	return false, nil
}

// dumpSegments dumps segs in order and turns the run's end into the exit:
// a fatal error crashes as kafka-dump-log does (kafkaForm) or is bad input;
// findings and skipped corrupt regions exit non-zero.
func dumpSegments(d *dump.Dumper, segs []segment.Segment, kafkaForm bool, stderr io.Writer) error {
	for _, seg := range segs {
		if err := d.Dump(seg); err != nil {
			d.Finish()
			if kafkaForm {
				fmt.Fprintf(stderr, "kseg: error: %v\n", err)
				return silentExit(ExitKafkaCrash)
			}
			return withCode(ExitBadInput, err)
		}
	}
	if err := d.Finish(); err != nil {
		return withCode(ExitBadInput, err)
	}
	if !kafkaForm && len(d.Findings()) > 0 {
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
