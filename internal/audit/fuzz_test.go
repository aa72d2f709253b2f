package audit

import (
	"testing"

	"github.com/kseg/kseg/batch"
	"github.com/kseg/kseg/internal/fuzzseed"
	"github.com/kseg/kseg/segment"
)

// FuzzAuditLog audits arbitrary bytes as a one-segment partition. The
// audit must not fail on damaged bytes (only on unreadable files), every
// finding must carry a known code and a location, and the batches counted
// plus the bytes reported skipped cannot exceed the file.
//
// The seeds are the idempotent and transactional test segments cut into
// every pair of neighbouring batches (fuzzseed), each keeping one
// transition the audit checks.
//
// The input is audited in memory (FromSources): no file per input.
func FuzzAuditLog(f *testing.F) {
	for _, rel := range []string{"idempotent/idempotent-0", "txn/txn-0"} {
		for _, w := range fuzzseed.Entries(f, rel, 2, 1) {
			f.Add(w)
		}
	}
	f.Add([]byte{})
	f.Add(make([]byte, 80))
	known := map[Code]bool{}
	for _, c := range Codes {
		known[c] = true
	}
	const name = "fuzz-0/00000000000000000000.log"
	f.Fuzz(func(t *testing.T, data []byte) {
		for _, opts := range []Options{{}, {SkipCRC: true}} {
			r, err := Run(FromSources("fuzz-0", segment.BytesSource(name, data)), opts)
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
