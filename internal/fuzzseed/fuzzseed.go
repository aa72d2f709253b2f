// Package fuzzseed cuts the Kafka-written test segments into fuzz seeds.
//
// A fuzz seed should be short: the fuzzer minimizes every input that finds
// new coverage, in a number of runs quadratic in its length, and a mutated
// whole segment (1 KB and more) kept a worker minimizing for the minute
// -fuzzminimizetime allows, reporting no executions meanwhile. A few
// neighbouring entries keep what the code under test looks at across
// batches (one producer's sequence to the next batch, a batch to a
// transaction marker, one producer to another).
package fuzzseed

import (
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/kseg/kseg/internal/goldens"
	"github.com/kseg/kseg/segment"
)

// Entries returns the runs of n consecutive entries of the first segment
// of testdata/segments/rel (a partition directory), one starting at every
// step-th entry; a shorter run ends the segment. It fails tb when the
// segment is missing or does not frame into whole entries.
func Entries(tb testing.TB, rel string, n, step int) [][]byte {
	tb.Helper()
	path := filepath.Join(goldens.Segments(tb), rel, "00000000000000000000.log")
	seg, err := os.ReadFile(path)
	if err != nil {
		tb.Fatal(err)
	}
	s := segment.NewStream(segment.BytesSource(path, seg), segment.Options{})
	ends := []int64{0}
	for s.Next() {
		b := s.Batch()
		ends = append(ends, b.Pos+b.Size)
	}
	if s.Err() != nil || len(ends) < 2 || ends[len(ends)-1] != int64(len(seg)) {
		tb.Fatalf("%s does not frame into whole entries: %v", path, s.Err())
	}
	var out [][]byte
	for i := 0; i+1 < len(ends); i += step {
		out = append(out, seg[ends[i]:ends[min(i+n, len(ends)-1)]])
		if i+n >= len(ends)-1 {
			break
		}
	}
	return out
}

// Add adds to f the runs of three entries (Entries, step 3) of each of
// the partition directories rels: enough for a producer's story with a
// cut between two batches.
func Add(f *testing.F, rels ...string) {
	f.Helper()
	for _, rel := range rels {
		for _, s := range Entries(f, rel, 3, 3) {
			f.Add(s)
		}
	}
}

// SegmentName is the name Partition gives its one segment, which a
// located error names.
const SegmentName = "fuzz-0/00000000000000000000.log"

// Partition is partition 0 of topic "fuzz" whose one segment is data,
// read in memory (no file per input).
func Partition(data []byte) segment.Partition {
	return segment.NewRemotePartition("fuzz", 0, "fuzz-0", []segment.Segment{{Path: SegmentName,
		Open: func() (segment.Source, io.Closer, error) { return segment.BytesSource(SegmentName, data), nil, nil }}})
}
