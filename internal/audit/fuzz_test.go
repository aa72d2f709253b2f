package audit

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/kseg/kseg/batch"
	"github.com/kseg/kseg/segment"
)

// FuzzAuditLog audits arbitrary bytes as a one-segment partition. The
// audit must not fail on damaged bytes (only on unreadable files), every
// finding must carry a known code and a location, and the batches counted
// plus the bytes reported skipped cannot exceed the file.
//
// The seeds are the idempotent and transactional test segments cut into
// every pair of neighbouring batches (at most about 500 bytes) rather than
// whole (1.1 and 1.3 KB): the fuzzer minimizes each input that finds new
// coverage, which takes a number of runs quadratic in its length, and a
// mutated whole segment kept a worker minimizing for the full minute
// -fuzzminimizetime allows, reporting no executions meanwhile.
//
// The input is audited in memory (FromSources): no file per input.
func FuzzAuditLog(f *testing.F) {
	for _, rel := range []string{"idempotent/idempotent-0", "txn/txn-0"} {
		d := filepath.Join("..", "..", "testdata", "segments", rel, "00000000000000000000.log")
		b, err := os.ReadFile(d)
		if err != nil {
			f.Fatal(err)
		}
		for _, w := range entryPairs(f, b) {
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

// entryPairs cuts a segment into every two consecutive entries, so each
// seed keeps one transition the audit checks (sequence to sequence, data to
// marker, marker to the next epoch, one producer to another).
func entryPairs(tb testing.TB, seg []byte) [][]byte {
	tb.Helper()
	s := segment.NewStream(segment.BytesSource("seed.log", seg), segment.Options{})
	var ends []int64
	for s.Next() {
		b := s.Batch()
		ends = append(ends, b.Pos+b.Size)
	}
	if s.Err() != nil || len(ends) < 2 || ends[len(ends)-1] != int64(len(seg)) {
		tb.Fatalf("seed segment does not frame into whole entries: %v", s.Err())
	}
	var out [][]byte
	start := int64(0)
	for i := 0; i+1 < len(ends); i++ {
		out = append(out, seg[start:ends[i+1]])
		start = ends[i]
	}
	return out
}
