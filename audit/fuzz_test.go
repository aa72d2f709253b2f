package audit

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/kseg/kseg/batch"
)

// FuzzAuditLog audits arbitrary bytes as a one-segment partition. The
// audit must not fail on damaged bytes (only on unreadable files), every
// finding must carry a known code and a location, and the batches counted
// plus the bytes reported skipped cannot exceed the file.
func FuzzAuditLog(f *testing.F) {
	for _, rel := range []string{"idempotent/idempotent-0", "txn/txn-0"} {
		d := filepath.Join("..", "testdata", "segments", rel, "00000000000000000000.log")
		if b, err := os.ReadFile(d); err == nil {
			f.Add(b)
		}
	}
	f.Add([]byte{})
	f.Add(make([]byte, 80))
	known := map[Code]bool{}
	for _, c := range Codes {
		known[c] = true
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		dir := filepath.Join(t.TempDir(), "fuzz-0")
		if err := os.Mkdir(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, "00000000000000000000.log"), data, 0o644); err != nil {
			t.Fatal(err)
		}
		for _, opts := range []Options{{}, {SkipCRC: true}} {
			parts, err := Partitions([]string{dir})
			if err != nil {
				t.Fatal(err)
			}
			r, err := Run(parts[0], opts)
			if err != nil {
				t.Fatalf("damaged bytes must be findings, not errors: %v", err)
			}
			if r.Summary.Batches*batch.MinEntrySize > int64(len(data)) {
				t.Fatalf("%d batches in %d bytes", r.Summary.Batches, len(data))
			}
			for _, fd := range r.Findings {
				if !known[fd.Code] || fd.Message == "" || fd.File == "" || fd.Position < 0 || fd.Position > int64(len(data)) {
					t.Fatalf("bad finding %+v", fd)
				}
			}
		}
	})
}
