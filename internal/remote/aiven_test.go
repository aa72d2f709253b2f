package remote

import (
	"encoding/json"
	"testing"

	"github.com/kseg/kseg/internal/aivenfmt"
)

// FuzzChunkSizes: decodeChunkSizes never panics, and reads back what
// ChunkSizesBinaryCodec.encode (aivenfmt.ChunkSizesBinary) wrote.
func FuzzChunkSizes(f *testing.F) {
	f.Add([]byte{}, uint16(0), uint32(0))
	f.Add([]byte{0, 0, 0, 1, 0, 0, 0, 5}, uint16(1), uint32(7))
	f.Add(aivenfmt.ChunkSizesBinary([]int{4124, 4100, 70000, 12}), uint16(9), uint32(300))
	f.Fuzz(func(t *testing.T, raw []byte, n uint16, step uint32) {
		decodeChunkSizes(raw) // must not panic
		n %= 300
		vals := make([]int, n)
		for i := range vals {
			vals[i] = int((uint64(step)*uint64(i*7919+1))%(1<<31-1)) & 0x7fffffff
		}
		got, err := decodeChunkSizes(aivenfmt.ChunkSizesBinary(vals))
		if err != nil || len(got) != len(vals) {
			t.Fatalf("%v: %v, %d values", vals, err, len(got))
		}
		for i := range vals {
			if got[i] != int64(vals[i]) {
				t.Fatalf("value %d: %d, want %d", i, got[i], vals[i])
			}
		}
	})
}

// FuzzManifestChunks: any manifest either fails or gives chunks that tile
// the original file and the transformed object without gaps.
func FuzzManifestChunks(f *testing.F) {
	f.Add([]byte(`{"version":"1","chunkIndex":{"type":"fixed","originalChunkSize":4096,"originalFileSize":10000,"transformedChunkSize":4124,"finalTransformedChunkSize":1836},"compression":false}`))
	f.Add([]byte(`{"version":"1","chunkIndex":{"type":"variable","originalChunkSize":4,"originalFileSize":9,"transformedChunks":"KLUv/SAQgQAAAAADAAAAAQEAAgAAAAY="},"compression":true}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		var m aivenManifest
		if json.Unmarshal(b, &m) != nil {
			return
		}
		if m.ChunkIndex.OriginalFileSize > 1<<34 || m.ChunkIndex.OriginalFileSize/max(m.ChunkIndex.OriginalChunkSize, 1) > 1<<16 {
			return // a huge chunk count only costs memory
		}
		cs, err := m.chunks()
		if err != nil {
			return
		}
		var orig, tr int64
		for i, c := range cs {
			if c.origOff != orig || c.tOff != tr || c.origSize <= 0 || c.origSize > m.ChunkIndex.OriginalChunkSize || c.tSize < 0 {
				t.Fatalf("chunk %d: %+v after %d/%d", i, c, orig, tr)
			}
			orig += c.origSize
			tr += c.tSize
		}
		if orig != m.ChunkIndex.OriginalFileSize {
			t.Fatalf("chunks cover %d bytes of %d", orig, m.ChunkIndex.OriginalFileSize)
		}
	})
}
