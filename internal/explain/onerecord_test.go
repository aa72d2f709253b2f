package explain

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kseg/kseg/batch"
	"github.com/kseg/kseg/segment"
)

// writeLog writes n batches of records(i) records of size-byte values with
// timestamp ts(i, j) into a fresh partition directory.
func writeLog(t *testing.T, n int, records func(i int) int, ts func(i, j int) int64, size int) []segment.Partition {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "t-0")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	b := batch.NewBuilder(batch.CodecNone)
	var out []byte
	off := int64(0)
	for i := range n {
		b.Reset(batch.CodecNone)
		for j := range records(i) {
			b.Append(ts(i, j), nil, make([]byte, size), nil)
		}
		var err error
		out, err = b.Build(out, batch.Header{BaseOffset: off, ProducerID: -1, ProducerEpoch: -1, BaseSequence: -1}, nil)
		if err != nil {
			t.Fatal(err)
		}
		off += int64(records(i))
	}
	if err := os.WriteFile(filepath.Join(dir, "00000000000000000000.log"), out, 0o644); err != nil {
		t.Fatal(err)
	}
	parts, err := segment.Partitions([]string{dir})
	if err != nil {
		t.Fatal(err)
	}
	return parts
}

// Logs that cannot tell their stories apart: explain must not bound
// batch.size or linger.ms from them (a sync producer with batch.size 16384
// once got "[1, 678], likely 1"), and must name the alternatives.
func TestLogsWithoutEvidence(t *testing.T) {
	const t0 = 1_700_000_000_000
	for _, tc := range []struct {
		name       string
		records    func(i int) int
		ts         func(i, j int) int64
		size       int
		batchSize  string // "nil", or ">=N" for a lower bound only
		sync       string // "nil", "true"
		alts, note bool
	}{
		{"no timestamps, several records a batch", func(i int) int { return 1 + i%3 }, func(int, int) int64 { return -1 }, 500, ">=", "nil", false, true},
		{"no timestamps, one record a batch", func(int) int { return 1 }, func(int, int) int64 { return -1 }, 700, "nil", "nil", false, true},
		{"one record a batch, spaced like sync sends", func(int) int { return 1 }, func(i, _ int) int64 { return t0 + int64(i)*3 }, 100, "nil", "true", true, true},
		{"one record a batch, all in one millisecond", func(int) int { return 1 }, func(int, int) int64 { return t0 }, 600, "nil", "nil", true, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res, err := Run(writeLog(t, 40, tc.records, tc.ts, tc.size))
			if err != nil {
				t.Fatal(err)
			}
			if len(res.Producers) != 1 {
				t.Fatalf("%d producers", len(res.Producers))
			}
			s := res.Producers[0].Settings
			switch {
			case tc.batchSize == "nil" && s.BatchSize != nil:
				t.Errorf("batch.size %+v, want no interval", *s.BatchSize)
			case tc.batchSize == ">=" && (s.BatchSize == nil || s.BatchSize.Max >= 0):
				t.Errorf("batch.size %+v, want a lower bound only", s.BatchSize)
			}
			if s.LingerMs != nil {
				t.Errorf("linger.ms %+v, want no interval", *s.LingerMs)
			}
			if got := s.Sync != nil && *s.Sync; got != (tc.sync == "true") || tc.sync == "nil" && s.Sync != nil {
				t.Errorf("sync %v, want %s", s.Sync, tc.sync)
			}
			if tc.alts != (len(s.Alternatives) == 3) {
				t.Errorf("alternatives %q", s.Alternatives)
			}
			if tc.alts && !strings.Contains(strings.Join(s.Alternatives, " "), "records above batch.size") {
				t.Errorf("alternatives %q do not name large records", s.Alternatives)
			}
			if tc.note != (len(s.Notes) > 0) {
				t.Errorf("notes %q", s.Notes)
			}
			for _, b := range res.Batches {
				if b.Cut() == CutSize || b.Cut() == CutLargeRecord || b.Cut() == CutLinger {
					t.Fatalf("batch @%d cut %s: %s", b.BaseOffset, b.Cut(), b.Evidence())
				}
			}
		})
	}
}
