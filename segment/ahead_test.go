package segment

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/kseg/kseg/batch"
)

// trace is everything a command can see of a stream: each entry, its
// bytes, its records, every region, the error and the tail.
func trace(st *Stream) string {
	var sb strings.Builder
	var rec batch.Record
	for st.Next() {
		b := st.Batch()
		fmt.Fprintf(&sb, "entry %d +%d magic %d", b.Pos, b.Size, b.Magic)
		raw, err := b.Bytes()
		if err != nil {
			fmt.Fprintf(&sb, " bytes: %v\n", err)
			continue
		}
		fmt.Fprintf(&sb, " %x", sha256.Sum256(raw))
		if !b.IsLegacy() {
			br, err := b.Records()
			for err == nil {
				var ok bool
				if ok, err = br.Next(&rec); !ok {
					break
				}
				fmt.Fprintf(&sb, " r%d:%d", rec.OffsetDelta, len(rec.Value))
			}
			if err != nil {
				fmt.Fprintf(&sb, " records: %v", err)
			}
		}
		sb.WriteByte('\n')
	}
	fmt.Fprintf(&sb, "err %v tail %d\n", st.Err(), st.Tail())
	return sb.String()
}

// aheadCompare frames data from a file (read-ahead on) and from memory
// (no read-ahead) with the same options; the traces must be identical.
func aheadCompare(t *testing.T, path string, data []byte, opts Options) {
	t.Helper()
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	var got, want strings.Builder
	o := opts
	o.OnRegion = func(r Region) { fmt.Fprintf(&got, "region %d-%d %v %v\n", r.From, r.To, r.Resumed, r.Cause) }
	st, err := OpenFile(path, 0, o)
	if err != nil {
		t.Fatal(err)
	}
	if !st.sc.ah.on {
		t.Fatal("read-ahead is off for a file with GOMAXPROCS > 1")
	}
	got.WriteString(trace(st))
	aheadHits += st.sc.ah.hits
	st.Close()
	o.OnRegion = func(r Region) { fmt.Fprintf(&want, "region %d-%d %v %v\n", r.From, r.To, r.Resumed, r.Cause) }
	mem := NewStream(BytesSource(path, data), o)
	want.WriteString(trace(mem))
	if got.String() != want.String() {
		t.Fatalf("block %d keep-going %v crc %v: with read-ahead\n%s\nwithout\n%s", opts.BlockSize, opts.KeepGoing, opts.VerifyCRC, got.String(), want.String())
	}
}

var aheadHits int

// aheadSegment: batches from 1 to 40 records of varied sizes, so entries
// straddle block ends at every offset and some are longer than the room.
func aheadSegment(tb testing.TB) []byte {
	var out []byte
	var c batch.Compressor
	off := int64(0)
	for i := 0; i < 60; i++ {
		codec := []batch.Codec{batch.CodecNone, batch.CodecLZ4, batch.CodecNone, batch.CodecZstd}[i%4]
		b := batch.NewBuilder(codec)
		n := 1 + (i*7)%40
		for r := 0; r < n; r++ {
			b.Append(int64(1000+r), nil, bytes.Repeat([]byte{byte('a' + r%26)}, 10+(i*31+r*17)%300), nil)
		}
		var err error
		if out, err = b.Build(out, batch.Header{BaseOffset: off, ProducerID: -1, ProducerEpoch: -1, BaseSequence: -1}, &c); err != nil {
			tb.Fatal(err)
		}
		off += int64(n)
	}
	return out
}

// TestReadAheadSameAsMemory: over whole, corrupt, truncated and padded
// files, at block sizes from tiny to larger than the file, with and without
// keep-going and CRC checks, reading ahead changes nothing a caller sees.
func TestReadAheadSameAsMemory(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(2))
	seg := aheadSegment(t)
	flip := func(at int) []byte { b := bytes.Clone(seg); b[at] ^= 0x40; return b }
	small := bytes.Clone(seg)
	binary.BigEndian.PutUint32(small[len(seg)/2+8:], 3)
	files := map[string][]byte{
		"whole":     seg,
		"truncated": seg[:len(seg)-77],
		"zero tail": append(bytes.Clone(seg), make([]byte, 5000)...),
		"flip 100":  flip(100),
		"flip mid":  flip(len(seg) / 3),
		"flip size": flip(len(seg)/2 + 10),
		"size 3":    small,
	}
	path := filepath.Join(t.TempDir(), "00000000000000000000.log")
	for name, data := range files {
		for _, block := range []int{61, 300, 1000, 4096, 1 << 20} {
			for _, kg := range []bool{false, true} {
				t.Run(fmt.Sprintf("%s/%d/%v", name, block, kg), func(t *testing.T) {
					aheadCompare(t, path, data, Options{BlockSize: block, KeepGoing: kg, VerifyCRC: kg})
				})
			}
		}
	}
	if aheadHits < 100 {
		t.Errorf("only %d windows came from a read ahead", aheadHits)
	}
}

// FuzzReadAhead: any file bytes at any block size frame the same with and
// without read-ahead.
func FuzzReadAhead(f *testing.F) {
	seg := aheadSegment(f)
	f.Add(seg[:3000], uint16(500), true)
	f.Add(seg[:5000], uint16(64), false)
	f.Fuzz(func(t *testing.T, data []byte, block uint16, kg bool) {
		defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(2))
		aheadCompare(t, filepath.Join(t.TempDir(), "f.log"), data, Options{BlockSize: int(block) + 17, KeepGoing: kg, VerifyCRC: kg})
	})
}
