package remote

import (
	"encoding/binary"
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
		decodeChunkSizes(raw, int64(n)) // must not panic
		if len(raw) >= 4 {
			decodeChunkSizes(raw, int64(int32(binary.BigEndian.Uint32(raw))))
		}
		n %= 300
		vals := make([]int, n)
		for i := range vals {
			vals[i] = int((uint64(step)*uint64(i*7919+1))%(1<<31-1)) & 0x7fffffff
		}
		got, err := decodeChunkSizes(aivenfmt.ChunkSizesBinary(vals), int64(len(vals)))
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

// FuzzManifestChunks: any manifest, against any object size, either fails
// or gives chunks that tile the original file and fit the transformed
// object without gaps. Nothing is skipped: the counts and sizes a manifest
// claims are bounded before they size an allocation, so huge ones cost no
// more than small ones (the chunks are checked in full when there are few,
// else at both ends and a sample between).
func FuzzManifestChunks(f *testing.F) {
	f.Add([]byte(`{"version":"1","chunkIndex":{"type":"fixed","originalChunkSize":4096,"originalFileSize":10000,"transformedChunkSize":4124,"finalTransformedChunkSize":1836},"compression":false}`), int64(10084))
	f.Add([]byte(`{"version":"1","chunkIndex":{"type":"variable","originalChunkSize":4,"originalFileSize":9,"transformedChunks":"KLUv/SAQgQAAAAADAAAAAQEAAgAAAAY="},"compression":true}`), int64(20))
	f.Add([]byte(`{"version":"1","chunkIndex":{"type":"fixed","originalChunkSize":1,"originalFileSize":4611686018427387904,"transformedChunkSize":1,"finalTransformedChunkSize":1},"compression":false}`), int64(1)<<62)
	f.Add([]byte(`{"version":"1","chunkIndex":{"type":"fixed","originalChunkSize":1,"originalFileSize":2147483647,"transformedChunkSize":1,"finalTransformedChunkSize":1},"compression":false}`), int64(1)<<40)
	f.Add([]byte(`{"version":"1","chunkIndex":{"type":"variable","originalChunkSize":1,"originalFileSize":4194304,"transformedChunks":"KLUv/SAQgQAAAAADAAAAAQEAAgAAAAY="},"compression":true}`), int64(1)<<40)
	f.Fuzz(func(t *testing.T, b []byte, objSize int64) {
		var m aivenManifest
		if json.Unmarshal(b, &m) != nil {
			return
		}
		x, err := m.chunks(objSize)
		if err != nil {
			return
		}
		ci := m.ChunkIndex
		if x.n*ci.OriginalChunkSize < ci.OriginalFileSize || (x.n > 0 && (x.n-1)*ci.OriginalChunkSize >= ci.OriginalFileSize) {
			t.Fatalf("%d chunks of %d for %d bytes", x.n, ci.OriginalChunkSize, ci.OriginalFileSize)
		}
		check := func(i int64) {
			c := x.at(i)
			if c.origOff != i*ci.OriginalChunkSize || c.origSize <= 0 || c.origSize > ci.OriginalChunkSize || c.tSize < 1 || c.tOff < 0 || c.tOff+c.tSize > objSize {
				t.Fatalf("chunk %d of %d: %+v (object %d bytes)", i, x.n, c, objSize)
			}
			if i+1 < x.n {
				if d := x.at(i + 1); d.tOff != c.tOff+c.tSize || d.origOff != c.origOff+c.origSize {
					t.Fatalf("chunks %d and %d: %+v, %+v", i, i+1, c, d)
				}
			} else if c.origOff+c.origSize != ci.OriginalFileSize {
				t.Fatalf("the last chunk %+v ends before %d", c, ci.OriginalFileSize)
			}
		}
		if x.n <= 4096 {
			for i := range x.n {
				check(i)
			}
			return
		}
		for i := range int64(64) {
			check(i)
			check(x.n - 1 - i)
			check(x.n / 64 * i)
		}
	})
}
