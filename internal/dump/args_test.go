package dump

import (
	"errors"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/kseg/kseg/content"
	"github.com/kseg/kseg/segment"
)

func TestParse(t *testing.T) {
	def := DefaultDumpOptions()
	tests := []struct {
		name string
		args []string
		want func(a *Args) // edits the defaults into the expected result
	}{
		{"kafka form", []string{"--files", "a.log,b.index", "--deep-iteration"}, func(a *Args) {
			a.Files, a.KafkaForm, a.Opts.KafkaTail, a.Opts.DeepIteration = []string{"a.log", "b.index"}, true, true, true
		}},
		{"files with =, trailing empties dropped", []string{"--files=a,,b,,"}, func(a *Args) {
			a.Files, a.KafkaForm, a.Opts.KafkaTail = []string{"a", "", "b"}, true, true
		}},
		{"print-data-log implies deep iteration", []string{"--print-data-log", "p"}, func(a *Args) {
			a.Opts.PrintDataLog, a.Opts.DeepIteration, a.Paths = true, true, []string{"p"}
		}},
		{"content decoders imply print-data-log", []string{"--offsets-decoder", "--transaction-log-decoder", "--cluster-metadata-decoder"}, func(a *Args) {
			a.Offsets, a.TxnLog, a.Metadata = true, true, true
			a.Opts.PrintDataLog, a.Opts.DeepIteration = true, true
		}},
		{"decoder class takes an optional argument", []string{"--key-decoder-class", "--value-decoder-class", "long", "p"}, func(a *Args) {
			a.ValueDecoder, a.Paths = "long", []string{"p"}
			a.Opts.PrintDataLog, a.Opts.DeepIteration = true, true
		}},
		{"decoder class with =", []string{"--key-decoder-class=org.apache.kafka.tools.api.IntegerDecoder"}, func(a *Args) {
			a.KeyDecoder = "org.apache.kafka.tools.api.IntegerDecoder"
			a.Opts.PrintDataLog, a.Opts.DeepIteration = true, true
		}},
		{"kseg decoders", []string{"--key-decoder", "hex", "--value-decoder=none"}, func(a *Args) {
			a.KeyDecoder, a.ValueDecoder = "hex", "none"
		}},
		{"sizes", []string{"--max-message-size", "10", "--max-bytes=20", "--max-decompressed", "30"}, func(a *Args) {
			a.Opts.MaxMessageSize, a.Opts.MaxBytes, a.Opts.MaxDecompressed = 10, 20, 30
		}},
		{"formats", []string{"--format", "kseg", "--format=json"}, func(a *Args) { a.Opts.Format = FormatJSON }},
		{"--json is --format json", []string{"--format", "kseg", "--json"}, func(a *Args) { a.Opts.Format = FormatJSON }},
		{"the last format wins", []string{"--json", "--format", "kseg"}, func(a *Args) { a.Opts.Format = FormatKseg }},
		{"kseg switches", []string{"--keep-going", "--all-files", "--quiet", "--skip-record-metadata", "--verify-index-only", "--index-sanity-check"}, func(a *Args) {
			a.Opts.KeepGoing, a.AllFiles, a.Quiet = true, true, true
			a.Opts.SkipRecordMetadata, a.Opts.VerifyIndexOnly, a.Opts.IndexSanityCheck = true, true, true
		}},
		{"help and version", []string{"-h", "--help", "--version"}, func(a *Args) { a.ShortHelp, a.Help, a.Version = true, true, true }},
		{"single dash and -- are paths", []string{"-x", "--", "p"}, func(a *Args) { a.Paths = []string{"-x", "--", "p"} }},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := Parse(tc.args)
			if err != nil {
				t.Fatal(err)
			}
			want := &Args{Opts: def, KeyDecoder: "string", ValueDecoder: "string"}
			tc.want(want)
			if !reflect.DeepEqual(got, want) {
				t.Errorf("Parse(%q)\n got %+v\nwant %+v", tc.args, got, want)
			}
		})
	}
	if def.MaxBytes != math.MaxInt32 || def.MaxMessageSize != 5*1024*1024 {
		t.Errorf("defaults %+v are not kafka-dump-log's", def)
	}
}

// TestParseErrors: jopt-simple's texts, which kafka-dump-log prints.
func TestParseErrors(t *testing.T) {
	tests := []struct {
		args    []string
		want    string
		unknown bool // matches ErrUnrecognized
	}{
		{[]string{"--files"}, "Option files requires an argument", false},
		{[]string{"--max-bytes"}, "Option max-bytes requires an argument", false},
		{[]string{"--deep-iteration=yes"}, "Option deep-iteration does not take an argument", false},
		{[]string{"--max-bytes", "abc"}, "Cannot parse argument 'abc' of option max-bytes", false},
		{[]string{"--max-message-size", "4294967296"}, "Cannot parse argument '4294967296' of option max-message-size", false},
		{[]string{"--max-decompressed", "0"}, `--max-decompressed wants a positive byte count, got "0"`, false},
		{[]string{"--max-decompressed=x"}, `--max-decompressed wants a positive byte count, got "x"`, false},
		{[]string{"--format", "yaml"}, `--format wants text, kseg or json, got "yaml"`, false},
		{[]string{"--json=true"}, "Option json does not take an argument", false},
		{[]string{"--deep"}, "deep is not a recognized option", true},
		{[]string{"p", "--bogus=1"}, "bogus is not a recognized option", true},
	}
	for _, tc := range tests {
		_, err := Parse(tc.args)
		if err == nil || err.Error() != tc.want {
			t.Errorf("Parse(%q) = %v, want %q", tc.args, err, tc.want)
			continue
		}
		if errors.Is(err, ErrUnrecognized) != tc.unknown {
			t.Errorf("Parse(%q): errors.Is(err, ErrUnrecognized) = %v", tc.args, !tc.unknown)
		}
	}
}

func TestParser(t *testing.T) {
	tests := []struct {
		args []string
		want content.Parser // compared by type
	}{
		{[]string{"--offsets-decoder", "--transaction-log-decoder"}, content.NewOffsetsParser()},
		{[]string{"--transaction-log-decoder", "--cluster-metadata-decoder"}, content.NewTransactionLogParser()},
		{[]string{"--cluster-metadata-decoder", "--key-decoder", "bogus"}, content.NewClusterMetadataParser()},
	}
	for _, tc := range tests {
		a, err := Parse(tc.args)
		if err != nil {
			t.Fatal(err)
		}
		p, err := a.Parser()
		if err != nil || reflect.TypeOf(p) != reflect.TypeOf(tc.want) {
			t.Errorf("%q: parser %T, %v; want %T", tc.args, p, err, tc.want)
		}
	}
	a, _ := Parse([]string{"--value-decoder-class", "nope"})
	var ude *content.UnknownDecoderError
	if _, err := a.Parser(); !errors.As(err, &ude) || ude.Name != "nope" {
		t.Errorf("unknown decoder: %v, want *content.UnknownDecoderError", err)
	}
}

func TestInputs(t *testing.T) {
	dir := t.TempDir()
	part := filepath.Join(dir, "t-0")
	if err := os.Mkdir(part, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{"00000000000000000010.log", "00000000000000000000.log", "00000000000000000000.index"} {
		if err := os.WriteFile(filepath.Join(part, f), nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	tests := []struct {
		args []string
		want []string
	}{
		{[]string{"--files", "x,y"}, []string{"x", "y"}},
		{[]string{dir}, []string{filepath.Join(part, "00000000000000000000.log"), filepath.Join(part, "00000000000000000010.log")}},
	}
	for _, tc := range tests {
		a, err := Parse(tc.args)
		if err != nil {
			t.Fatal(err)
		}
		segs, err := a.Inputs(segment.Partitions)
		got := inputPaths(segs)
		if err != nil || !reflect.DeepEqual(got, tc.want) {
			t.Errorf("%q: Inputs() = %q, %v; want %q", tc.args, got, err, tc.want)
		}
	}
	a, _ := Parse([]string{"--all-files", dir})
	if segs, err := a.Inputs(segment.Partitions); err != nil || len(segs) != 3 {
		t.Errorf("--all-files: Inputs() = %q, %v; want the index too", inputPaths(segs), err)
	}
	a, _ = Parse([]string{filepath.Join(dir, "missing")})
	if _, err := a.Inputs(segment.Partitions); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("missing path: %v, want ErrNotExist", err)
	}
}

func inputPaths(segs []segment.Segment) []string {
	var out []string
	for _, s := range segs {
		out = append(out, s.Path)
	}
	return out
}
