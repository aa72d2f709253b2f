package cmd

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kseg/kseg/content"
	"github.com/kseg/kseg/internal/dump"
	"github.com/kseg/kseg/segment"
)

// TestHintFor: hints follow the error chain (sentinels and types from the
// packages that fail), not the error's text.
func TestHintFor(t *testing.T) {
	dir := t.TempDir()
	index := filepath.Join(dir, "00000000000000000000.index")
	if err := os.WriteFile(index, make([]byte, 16), 0o644); err != nil {
		t.Fatal(err)
	}
	must := func(err error) error {
		t.Helper()
		if err == nil {
			t.Fatal("no error")
		}
		return withCode(ExitBadInput, fmt.Errorf("wrapped: %w", err))
	}
	_, parseErr := dump.Parse([]string{"--bogus"})
	_, decoderErr := content.NewStringParser("string", "nope")
	_, dirErr := segment.OpenFile(dir, 0, segment.Options{})
	_, missingErr := segment.Partitions([]string{filepath.Join(dir, "missing")})
	tests := []struct {
		name string
		err  error
		want string // hint prefix; "" for none
	}{
		{"log path is a directory", must(dirErr), "give kseg the directory itself"},
		{"index without its log", must(dump.NewDumper(dump.DefaultDumpOptions(), io.Discard, io.Discard).Dump(dump.File(index))), "an index is checked against the .log"},
		{"unknown decoder", must(decoderErr), "decoders: string, int, long"},
		{"missing path", must(missingErr), "check the path"},
		{"unknown dump option", must(parseErr), "run 'kseg help <command>'"},
		{"text alone does not match", errors.New("--out x is a directory; no Decoder; NoSuchFileException .log; not a recognized option"), ""},
	}
	for _, tc := range tests {
		got := hintFor(tc.err)
		if (tc.want == "") != (got == "") || !strings.HasPrefix(got, tc.want) {
			t.Errorf("%s: hintFor(%v) = %q, want %q...", tc.name, tc.err, got, tc.want)
		}
	}
}
