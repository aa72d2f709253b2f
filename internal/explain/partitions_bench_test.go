package explain

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/kseg/kseg/batch"
	"github.com/kseg/kseg/segment"
)

// writeSpread writes one sticky producer's batches spread over n
// partitions of one topic: batch j goes to partition j mod n, four records
// a batch, a batch every 3 ms (each linger-cut), the same batches whatever
// n, so time per batch can be compared across partition counts.
func writeSpread(tb testing.TB, dir string, n, batches int) []segment.Partition {
	tb.Helper()
	bufs := make([][]byte, n)
	offs := make([]int64, n)
	seqs := make([]int32, n)
	b := batch.NewBuilder(batch.CodecNone)
	value := make([]byte, 100)
	const t0 = 1_700_000_000_000
	for j := range batches {
		p := j % n
		b.Reset(batch.CodecNone)
		for r := range 4 {
			b.Append(t0+int64(j)*3+int64(r/2), nil, value, nil)
		}
		var err error
		bufs[p], err = b.Build(bufs[p], batch.Header{BaseOffset: offs[p], ProducerID: 7, BaseSequence: seqs[p]}, nil)
		if err != nil {
			tb.Fatal(err)
		}
		offs[p] += 4
		seqs[p] += 4
	}
	var paths []string
	for p := range n {
		d := filepath.Join(dir, fmt.Sprintf("spread-%d", p))
		if err := os.MkdirAll(d, 0o755); err != nil {
			tb.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(d, "00000000000000000000.log"), bufs[p], 0o644); err != nil {
			tb.Fatal(err)
		}
		paths = append(paths, d)
	}
	parts, err := segment.Partitions(paths)
	if err != nil {
		tb.Fatal(err)
	}
	return parts
}

// BenchmarkExplainPartitions: explain of one producer's 20,000 batches
// over 1 to 1,000 partitions; the time should not grow with the count
// (issue: 1,000 partitions within 2x of one).
func BenchmarkExplainPartitions(b *testing.B) {
	for _, n := range []int{1, 10, 100, 1000} {
		b.Run(fmt.Sprintf("partitions=%d", n), func(b *testing.B) {
			parts := writeSpread(b, b.TempDir(), n, 20000)
			b.ResetTimer()
			for range b.N {
				if _, err := Run(parts); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
