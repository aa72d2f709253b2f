package dump

import (
	"bytes"
	"encoding/binary"
	"errors"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/kseg/kseg/batch"
	"github.com/kseg/kseg/content"
	"github.com/kseg/kseg/segment"
)

// genSegment builds n batches of recs records each with codec, offsets
// consecutive from 0.
func genSegment(tb testing.TB, n, recs, valueSize int, codec batch.Codec) []byte {
	tb.Helper()
	var out []byte
	var c batch.Compressor
	b := batch.NewBuilder(codec)
	v := bytes.Repeat([]byte("0123456789abcdef"), valueSize/16+1)[:valueSize]
	key := []byte("key-00000")
	for i := 0; i < n; i++ {
		b.Reset(codec)
		for r := 0; r < recs; r++ {
			key[len(key)-1] = byte('0' + r%10)
			b.Append(1700000000000+int64(r), key, v, nil)
		}
		var err error
		out, err = b.Build(out, batch.Header{BaseOffset: int64(i * recs), ProducerID: -1, ProducerEpoch: -1, BaseSequence: -1}, &c)
		if err != nil {
			tb.Fatal(err)
		}
	}
	return out
}

func fuzzDumpOptions(t testing.TB, format Format, keepGoing bool) DumpOptions {
	opts := DefaultDumpOptions()
	opts.DeepIteration = true
	opts.PrintDataLog = true
	opts.Format = format
	opts.KeepGoing = keepGoing
	opts.MaxDecompressed = 1 << 20
	p, err := content.NewStringParser("", "")
	if err != nil {
		t.Fatal(err)
	}
	opts.Parser = p
	return opts
}

// FuzzDump runs the Dumper over arbitrary bytes in a .log file with deep
// iteration and --print-data-log, in every format and with --keep-going. It
// must not panic, must leave the input alone, and every error must be a
// *segment.Error naming the source at an offset inside it.
func FuzzDump(f *testing.F) {
	f.Add(genSegment(f, 2, 3, 20, batch.CodecNone), uint8(0))
	f.Add(genSegment(f, 2, 3, 20, batch.CodecSnappy), uint8(1))
	f.Add(genSegment(f, 1, 2, 200, batch.CodecLZ4), uint8(2))
	f.Add(genSegment(f, 1, 2, 20, batch.CodecGzip), uint8(3))
	f.Add(genSegment(f, 1, 2, 20, batch.CodecZstd), uint8(4))
	bad := genSegment(f, 3, 2, 20, batch.CodecNone)
	binary.BigEndian.PutUint32(bad[57:], 9) // record count larger than the bytes
	f.Add(bad, uint8(5))
	f.Add(append(genSegment(f, 1, 1, 10, batch.CodecNone), make([]byte, 30)...), uint8(0))
	// In memory: the dumper reads a segment held in a segment.Source, not a
	// file per input.
	const path = "fuzz-0/00000000000000000000.log"
	f.Fuzz(func(t *testing.T, data []byte, mode uint8) {
		orig := bytes.Clone(data)
		format := Format(mode % 4)
		keepGoing := mode&4 != 0
		d := NewDumper(fuzzDumpOptions(t, format, keepGoing), io.Discard, io.Discard)
		err := d.Dump(segment.Segment{Path: path, Open: func() (segment.Source, io.Closer, error) {
			return segment.BytesSource(path, data), nil, nil
		}})
		if ferr := d.Finish(); ferr != nil {
			t.Fatalf("Finish: %v", ferr)
		}
		if err != nil {
			var se *segment.Error
			if !errors.As(err, &se) {
				t.Fatalf("error %T is not a *segment.Error: %v", err, err)
			}
			if se.File != path || se.Offset < 0 || se.Offset > int64(len(data)) {
				t.Fatalf("error located at %s:%d, file has %d bytes: %v", se.File, se.Offset, len(data), err)
			}
			if keepGoing {
				t.Fatalf("--keep-going still stopped: %v", err)
			}
		}
		if !bytes.Equal(orig, data) {
			t.Fatal("input bytes changed")
		}
	})
}

// FuzzParallelDumpFromBlocks: arbitrary bytes in a .log file, dumped on
// three workers from the file's shared blocks (blocks and chunks as small
// as 61 bytes, so entries straddle and outgrow them), print exactly what
// the sequential dump prints, stop with the same error, let go of every
// block and leave the file alone. It writes each input to a file, since
// the blocks are a file's (about 1,300 runs a second over two workers
// here; go's progress line shows few, as it counts a worker's runs only
// when the worker reports).
func FuzzParallelDumpFromBlocks(f *testing.F) {
	f.Add(genSegment(f, 3, 3, 20, batch.CodecNone), uint8(0), uint16(61))
	f.Add(genSegment(f, 2, 9, 100, batch.CodecGzip), uint8(1), uint16(500))
	f.Add(genSegment(f, 4, 2, 20, batch.CodecLZ4), uint8(2), uint16(4096))
	bad := genSegment(f, 3, 2, 20, batch.CodecNone)
	binary.BigEndian.PutUint32(bad[57:], 9)
	f.Add(bad, uint8(3), uint16(100))
	f.Add(append(genSegment(f, 2, 1, 10, batch.CodecNone), make([]byte, 30)...), uint8(4), uint16(80))
	oldBlock, oldChunk := fileBlockSize, chunkBytes
	f.Cleanup(func() { fileBlockSize, chunkBytes = oldBlock, oldChunk })
	f.Fuzz(func(t *testing.T, data []byte, mode uint8, block uint16) {
		path := filepath.Join(t.TempDir(), "00000000000000000000.log")
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
		fileBlockSize = 61 + int(block)%8192
		chunkBytes = 61 + int(block/3)%8192
		opts := fuzzDumpOptions(t, FormatKafka, false)
		opts.DeepIteration = mode&1 != 0
		opts.PrintDataLog = mode&2 != 0
		so1, se1, e1 := dumpWith(t, 1, []string{path}, opts)
		var so, se bytes.Buffer
		d := NewDumper(opts, &so, &se)
		d.workers = 3
		e3 := ""
		if err := d.Dump(File(path)); err != nil {
			e3 = err.Error()
		}
		if err := d.Finish(); err != nil {
			t.Fatal(err)
		}
		if so.String() != so1 || se.String() != se1 || e3 != e1 {
			t.Fatalf("blocks of %d, chunks of %d: parallel dump differs (stdout %d vs %d bytes, stderr %q vs %q, error %q vs %q)",
				fileBlockSize, chunkBytes, so.Len(), len(so1), se.String(), se1, e3, e1)
		}
		if d.blocksLeft != 0 {
			t.Fatalf("%d blocks still held after the dump", d.blocksLeft)
		}
		if got, err := os.ReadFile(path); err != nil || !bytes.Equal(got, data) {
			t.Fatal("input file changed")
		}
	})
}
