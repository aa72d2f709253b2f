package segment

import (
	"bytes"
	"crypto/sha256"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"

	"github.com/kseg/kseg/batch"
)

// variedSegment is n v2 batches of 1 to 40 records of 1 to 3,000 bytes:
// entries from under a hundred bytes to over 100 KB, so that some cross
// any block boundary and some are larger than raSlack.
func variedSegment(t *testing.T, n int) []byte {
	t.Helper()
	rng := rand.New(rand.NewPCG(1, 2))
	var out []byte
	var c batch.Compressor
	b := batch.NewBuilder(batch.CodecNone)
	off := int64(0)
	for range n {
		b.Reset(batch.CodecNone)
		recs := 1 + rng.IntN(40)
		if rng.IntN(20) == 0 {
			recs = 60 // about 90 KB: more than raSlack
		}
		for r := range recs {
			v := bytes.Repeat([]byte{byte(r)}, 1+rng.IntN(3000))
			b.Append(1700000000000, nil, v, nil)
		}
		var err error
		out, err = b.Build(out, batch.Header{BaseOffset: off, ProducerID: -1, ProducerEpoch: -1, BaseSequence: -1}, &c)
		if err != nil {
			t.Fatal(err)
		}
		off += int64(recs)
	}
	return out
}

type raEntry struct {
	pos, size int64
	sum       [32]byte
}

func scanWith(t *testing.T, path string, opts Options) ([]raEntry, []Region, int64, error, int) {
	t.Helper()
	var regions []Region
	opts.OnRegion = func(r Region) { regions = append(regions, r) }
	st := &Stream{}
	st.SetOptions(opts)
	var got []raEntry
	// Twice through the same stream: the read-ahead's buffers are reused.
	for range 2 {
		got, regions = got[:0], regions[:0]
		if err := st.OpenFile(path, 0); err != nil {
			t.Fatal(err)
		}
		for st.Next() {
			b := st.Batch()
			raw, err := b.Bytes()
			if err != nil {
				t.Fatal(err)
			}
			got = append(got, raEntry{b.Pos, b.Size, sha256.Sum256(raw)})
		}
		st.Close()
	}
	hits := 0
	if st.sc.ra != nil {
		hits = st.sc.ra.hits
	}
	return got, regions, st.Tail(), st.Err(), hits
}

// TestReadAheadSameEntries: with ReadAhead a stream yields the same
// entries, bytes, regions and tail as without, at block sizes smaller and
// larger than the entries, over intact and damaged logs (a resync moves
// the window where the block read ahead is not).
func TestReadAheadSameEntries(t *testing.T) {
	seg := variedSegment(t, 400)
	damaged := bytes.Clone(seg)
	starts := entryStarts(seg)
	for _, i := range []int{3, 100, 101, 250} {
		damaged[starts[i]+70] ^= 0xff // a record byte: the CRC fails
	}
	damaged[starts[300]+9] ^= 0x7f // a length field: framing fails
	dir := t.TempDir()
	for name, data := range map[string][]byte{"intact": seg, "damaged": damaged, "torn": seg[:len(seg)-1000]} {
		path := filepath.Join(dir, name+".log")
		if err := os.WriteFile(path, data, 0o444); err != nil {
			t.Fatal(err)
		}
		for _, block := range []int{4096, 65536, 1 << 20} {
			opts := Options{KeepGoing: true, VerifyCRC: true, BlockSize: block}
			want, wantRegions, wantTail, wantErr, _ := scanWith(t, path, opts)
			opts.ReadAhead = true
			got, gotRegions, gotTail, gotErr, hits := scanWith(t, path, opts)
			// Entries larger than a 4 KiB block are read whole, without it.
			if hits == 0 || (block >= 65536 && hits < len(data)/block/2) {
				t.Fatalf("%s, block %d: %d windows read ahead of %d bytes", name, block, hits, len(data))
			}
			if len(got) != len(want) {
				t.Fatalf("%s, block %d: %d entries with read-ahead, %d without", name, block, len(got), len(want))
			}
			for i := range got {
				if got[i] != want[i] {
					t.Fatalf("%s, block %d: entry %d at %d differs with read-ahead", name, block, i, want[i].pos)
				}
			}
			if len(gotRegions) != len(wantRegions) || gotTail != wantTail || (gotErr == nil) != (wantErr == nil) {
				t.Fatalf("%s, block %d: regions %v tail %d err %v with read-ahead; %v %d %v without",
					name, block, gotRegions, gotTail, gotErr, wantRegions, wantTail, wantErr)
			}
			if name == "damaged" && len(wantRegions) == 0 {
				t.Fatal("the damaged log has no region: the test lost its point")
			}
		}
	}
}

// BenchmarkVerifyCRCFile: a stream with VerifyCRC over a 32 MiB file in
// the page cache, reading each block itself and with ReadAhead (audit's
// path: the copy out of the page cache on another core).
func BenchmarkVerifyCRCFile(b *testing.B) {
	data := benchSegments(b)[batch.CodecNone]
	path := filepath.Join(b.TempDir(), "00000000000000000000.log")
	if err := os.WriteFile(path, data, 0o444); err != nil {
		b.Fatal(err)
	}
	for _, ra := range []bool{false, true} {
		name := "read-ahead=off"
		if ra {
			name = "read-ahead=on"
		}
		b.Run(name, func(b *testing.B) {
			b.SetBytes(int64(len(data)))
			b.ReportAllocs()
			st := &Stream{}
			st.SetOptions(Options{VerifyCRC: true, KeepGoing: true, ReadAhead: ra})
			for b.Loop() {
				if err := st.OpenFile(path, 0); err != nil {
					b.Fatal(err)
				}
				n := 0
				for st.Next() {
					n++
				}
				if st.Err() != nil || n == 0 {
					b.Fatal(st.Err(), n)
				}
				st.Close()
			}
		})
	}
}
