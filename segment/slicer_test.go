package segment

import (
	"testing"

	"github.com/kseg/kseg/batch"
)

// TestBytesSourceInPlace: a stream over BytesSource hands out its entries
// as slices of the bytes given (no copy), the same entries a copying
// reader gives, and a source cut short still ends where it is cut.
func TestBytesSourceInPlace(t *testing.T) {
	data := testSegment(t, 6, batch.CodecNone, batch.CodecGzip)
	starts := entryStarts(data)
	for _, size := range []int64{int64(len(data)), starts[3] + 10} {
		src := BytesSource("x.log", data)
		src.Size = size
		st := NewStream(src, Options{VerifyCRC: true})
		n := 0
		for st.Next() {
			b := st.Batch()
			raw, err := b.Bytes()
			if err != nil {
				t.Fatal(err)
			}
			if &raw[0] != &data[b.Pos] || int64(len(raw)) != b.Size {
				t.Fatalf("entry at %d: not the source's own bytes", b.Pos)
			}
			n++
		}
		if err := st.Err(); err != nil {
			t.Fatal(err)
		}
		want := len(starts)
		if size < int64(len(data)) {
			want = 3
		}
		if n != want {
			t.Fatalf("size %d: %d entries, want %d", size, n, want)
		}
	}
}
