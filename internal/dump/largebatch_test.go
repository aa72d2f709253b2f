package dump

import (
	"bytes"
	"os"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/kseg/kseg/batch"
	"github.com/kseg/kseg/segment"
)

// bigBatchLog writes k batches of n one-byte records each with codec.
func bigBatchLog(t *testing.T, k, n int, codec batch.Codec) string {
	t.Helper()
	var log []byte
	c := &batch.Compressor{}
	for j := range k {
		b := batch.NewBuilder(codec)
		for i := range n {
			b.Append(1700000000000, nil, []byte{byte(i)}, nil)
		}
		var err error
		log, err = b.Build(log, batch.Header{BaseOffset: int64(j * n), ProducerID: -1, ProducerEpoch: -1, BaseSequence: -1}, c)
		if err != nil {
			t.Fatal(err)
		}
	}
	p := filepath.Join(t.TempDir(), "00000000000000000000.log")
	if err := os.WriteFile(p, log, 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestParallelDumpBoundsLargeBatches: item 5's v2 reproducer, gzip
// batches of 6 M one-byte records, took 1.6 GB at GOMAXPROCS=8 (300 MiB
// is the bound): each of 8 workers inflated a 66 MB batch whose output it
// could not keep (its chunk's cap is 8 MiB) only to hand it to the writer,
// and 17 chunks of 15 MB each were in flight. Scaled down here: a worker
// leaves a batch whose record lines alone would pass its cap to the
// writer without decoding it, the chunks in flight hold about
// inFlightBytes, and the output is the sequential dump's.
func TestParallelDumpBoundsLargeBatches(t *testing.T) {
	defer func(o, b int) { chunkOutput, inFlightBytes = o, b }(chunkOutput, inFlightBytes)
	chunkOutput, inFlightBytes = 64<<10, 256<<10

	// A worker does not inflate a batch it cannot keep the output of.
	p := bigBatchLog(t, 1, 100_000, batch.CodecGzip)
	data, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	st := segment.NewStream(segment.BytesSource(p, data), segment.Options{})
	if !st.Next() {
		t.Fatal(st.Err())
	}
	raw, err := st.Batch().Bytes()
	if err != nil {
		t.Fatal(err)
	}
	c := &dumpChunk{done: make(chan struct{}, 1), resume: -1}
	c.add(st.Batch(), raw, nil)
	opts := DefaultDumpOptions()
	opts.DeepIteration = true
	d := NewDumper(opts, nil, nil)
	f := d.newChunkFormatter()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	f.format(p, c, true)
	runtime.ReadMemStats(&after)
	if c.resume != 0 || len(c.out.b) != 0 || c.err != nil {
		t.Errorf("chunk of one 100,000-record batch: resume %d, %d bytes out, err %v; want it left to the writer", c.resume, len(c.out.b), c.err)
	}
	if n := after.TotalAlloc - before.TotalAlloc; n > 256<<10 {
		t.Errorf("the worker allocated %d bytes for a batch it leaves to the writer (it inflates to 1.1 MB)", n)
	}

	// Many batches larger than a chunk: few in flight, same output.
	p = bigBatchLog(t, 24, 20_000, batch.CodecNone)
	for _, format := range []Format{FormatKafka, FormatJSON} {
		opts := DefaultDumpOptions()
		opts.DeepIteration, opts.Format = true, format
		seq, _, e1 := dumpWith(t, 1, []string{p}, opts)
		so, se := new(bytes.Buffer), new(bytes.Buffer)
		d := NewDumper(opts, so, se)
		d.workers = 8
		e2 := ""
		if err := d.Dump(File(p)); err != nil {
			e2 = err.Error()
		}
		if err := d.Finish(); err != nil {
			t.Fatal(err)
		}
		if so.String() != seq || e1 != e2 {
			t.Errorf("format %d: 8 workers printed %d bytes (err %q), one printed %d (err %q)", format, so.Len(), e2, len(seq), e1)
		}
		if fi, _ := os.Stat(p); d.peakHeld > inFlightBytes+int(fi.Size())/24+1 {
			t.Errorf("format %d: chunks in flight held %d bytes at once, want at most %d and one batch", format, d.peakHeld, inFlightBytes)
		}
		if d.peakHeld == 0 {
			t.Errorf("format %d: the dump did not run in parallel", format)
		}
	}
}
