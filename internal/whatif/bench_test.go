package whatif

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"

	"github.com/kseg/kseg/batch"
	"github.com/kseg/kseg/producer"
	"github.com/kseg/kseg/segment"
)

// writeBenchLog writes a topic "bench" of parts partitions under dir
// with records records as an unkeyed producer at about 100,000 records
// a second would: exponential gaps (mean 10 us), 100-byte values of
// text, batches of up to 16 KiB in one sticky partition at a time,
// compressed with codec.
func writeBenchLog(t testing.TB, dir string, parts int, records int64, codec batch.Codec) {
	t.Helper()
	rng := rand.New(rand.NewPCG(1, 2))
	words := []string{"order", "id", "customer", "amount", "currency", "EUR", "status", "paid", "shipped", "item", "sku", "qty"}
	files := make([]*os.File, parts)
	offs := make([]int64, parts)
	for p := range parts {
		pd := filepath.Join(dir, fmt.Sprintf("bench-%d", p))
		if err := os.MkdirAll(pd, 0o755); err != nil {
			t.Fatal(err)
		}
		f, err := os.Create(filepath.Join(pd, "00000000000000000000.log"))
		if err != nil {
			t.Fatal(err)
		}
		files[p] = f
	}
	var comp batch.Compressor
	b := batch.NewBuilder(codec)
	var out []byte
	ns := int64(1_700_000_000_000) * 1e6
	part := 0
	value := make([]byte, 0, 128)
	flush := func() {
		if b.NumRecords() == 0 {
			return
		}
		h := batch.Header{BaseOffset: offs[part], ProducerID: 1, BaseSequence: int32(offs[part])}
		var err error
		out, err = b.Build(out[:0], h, &comp)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := files[part].Write(out); err != nil {
			t.Fatal(err)
		}
		offs[part] += int64(b.NumRecords())
		b.Reset(codec)
		part = rng.IntN(parts)
	}
	for range records {
		ns += int64(rng.ExpFloat64() * 10000)
		value = value[:0]
		for len(value) < 100 {
			value = append(value, words[rng.IntN(len(words))]...)
			value = append(value, ' ')
		}
		value = value[:100]
		if batch.HeaderSize+b.UncompressedBytes()+b.SizeOfNext(ns/1e6, nil, value, nil) > 16384 {
			flush()
		}
		b.Append(ns/1e6, nil, value, nil)
	}
	flush()
	for _, f := range files {
		if err := f.Close(); err != nil {
			t.Fatal(err)
		}
	}
}

// TestWriteBenchLog writes the benchmark's log into $KSEG_WHATIF_BENCH_OUT
// ($KSEG_WHATIF_BENCH_RECORDS records, default 10 million; compressed
// with $KSEG_WHATIF_BENCH_CODEC, default none), to measure the kseg binary
// on it (docs/whatif.md, Speed).
func TestWriteBenchLog(t *testing.T) {
	dir := os.Getenv("KSEG_WHATIF_BENCH_OUT")
	if dir == "" {
		t.Skip("KSEG_WHATIF_BENCH_OUT not set")
	}
	n := int64(10_000_000)
	if s := os.Getenv("KSEG_WHATIF_BENCH_RECORDS"); s != "" {
		fmt.Sscan(s, &n)
	}
	codec := batch.CodecNone
	if s := os.Getenv("KSEG_WHATIF_BENCH_CODEC"); s != "" {
		var err error
		if codec, err = batch.ParseCodec(s); err != nil {
			t.Fatal(err)
		}
	}
	writeBenchLog(t, dir, 4, n, codec)
}

// BenchmarkWhatif is kseg whatif's work (read, fit, replay under the
// original and the new settings, 200 runs) on a log of 1 million
// records; the 10-million-record figure is measured on the binary.
func BenchmarkWhatif(b *testing.B) {
	dir := b.TempDir()
	writeBenchLog(b, dir, 4, 1_000_000, batch.CodecNone)
	parts, err := segment.Partitions([]string{dir})
	if err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for range b.N {
		_, _, err := Run(parts, Options{Runs: 200, Seed: 1,
			Was: []producer.Property{{Key: "linger.ms", Value: "5"}},
			Set: []producer.Property{{Key: "linger.ms", Value: "20"}}})
		if err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkWhatifCompressed is kseg whatif on a compressed log of 20,000
// records over 2 partitions: the fit and the replay simulate it some
// thousand times. Each simulation used to make its own compressor (a zstd
// encoder allocates megabytes of tables); measured in one run, -benchtime
// 3x, before and after the workers kept theirs: zstd 16.4 s and 4.5 GB an
// operation before, 14.2 s and 1.6 GB after; gzip 16.0 s and 3.5 GB, 15.0
// s and 1.6 GB; lz4 the same. On a log of three zstd batches whatif took
// ten times as long as now.
func BenchmarkWhatifCompressed(b *testing.B) {
	for _, codec := range []batch.Codec{batch.CodecZstd, batch.CodecGzip, batch.CodecLZ4} {
		b.Run(codec.String(), func(b *testing.B) {
			dir := b.TempDir()
			writeBenchLog(b, dir, 2, 20_000, codec)
			parts, err := segment.Partitions([]string{dir})
			if err != nil {
				b.Fatal(err)
			}
			b.ReportAllocs()
			b.ResetTimer()
			for range b.N {
				_, _, err := Run(parts, Options{Runs: 200, Seed: 1,
					Was: []producer.Property{{Key: "linger.ms", Value: "5"}, {Key: "compression.type", Value: codec.String()}},
					Set: []producer.Property{{Key: "linger.ms", Value: "20"}}})
				if err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkWhatifManySessions is kseg whatif on a log written by a new
// producer per request: 100,000 producer sessions of one record each, in
// partition 0 of a one-partition topic, and 5,000 in partition 999 (a
// topic of 1,000 partitions). Each session replays with its own
// accumulator; before windows were costed by their setup and grouped into
// jobs, a trace's first chunk of records started small and a simulation's
// state was reused, the first took more than 5 minutes and 845 MB, the
// second 198 s and 779 MB.
func BenchmarkWhatifManySessions(b *testing.B) {
	for _, c := range []struct{ sessions, partition int }{{100000, 0}, {5000, 999}} {
		b.Run(fmt.Sprintf("sessions=%d/partitions=%d", c.sessions, c.partition+1), func(b *testing.B) {
			dir := b.TempDir()
			var bs []testBatch
			for i := range int64(c.sessions) {
				bs = append(bs, testBatch{pid: i + 1, ts: []int64{1_700_000_000_000 + i}})
			}
			writeBatches(b, dir, 0, bs)
			pd := filepath.Join(dir, fmt.Sprintf("t-%d", c.partition))
			if c.partition != 0 {
				if err := os.Rename(filepath.Join(dir, "t-0"), pd); err != nil {
					b.Fatal(err)
				}
			}
			parts, err := segment.Partitions([]string{pd})
			if err != nil {
				b.Fatal(err)
			}
			b.ResetTimer()
			for range b.N {
				res, _, err := Run(parts, Options{Runs: 200, Seed: 1,
					Was: []producer.Property{{Key: "linger.ms", Value: "5"}},
					Set: []producer.Property{{Key: "linger.ms", Value: "20"}}})
				if err != nil {
					b.Fatal(err)
				}
				if got := res[0].Predicted.TotalBatches().P50; got != c.sessions {
					b.Fatalf("%d batches predicted for %d one-record sessions", got, c.sessions)
				}
			}
		})
	}
}
