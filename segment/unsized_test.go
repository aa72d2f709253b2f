package segment

import (
	"bytes"
	"io"
	"testing"

	"github.com/kseg/kseg/batch"
)

// TestStreamUnknownSize: a source whose size is not known ahead (Size -1,
// as bytes fetched from a broker) frames the same entries as the same bytes
// with their size, ends quietly where ReadAt returns io.EOF, and reports
// that end as its Size; a torn last entry is the tail, as in a file.
func TestStreamUnknownSize(t *testing.T) {
	data := testSegment(t, 7, batch.CodecNone, batch.CodecGzip, batch.CodecZstd)
	starts := entryStarts(data)
	for _, tc := range []struct {
		name  string
		data  []byte
		want  int
		block int
	}{
		{"whole", data, len(starts), 0},
		{"small blocks", data, len(starts), 64},
		{"torn last entry", data[:len(data)-5], len(starts) - 1, 0},
		{"empty", nil, 0, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			st := NewStream(Source{Name: "wire", R: bytes.NewReader(tc.data), Size: -1}, Options{BlockSize: tc.block})
			var got []int64
			for st.Next() {
				if _, err := st.Batch().Bytes(); err != nil {
					t.Fatal(err)
				}
				got = append(got, st.Batch().Pos)
			}
			if st.Err() != nil {
				t.Fatal(st.Err())
			}
			if len(got) != tc.want {
				t.Fatalf("%d entries, want %d", len(got), tc.want)
			}
			for i, p := range got {
				if p != starts[i] {
					t.Fatalf("entry %d at %d, want %d", i, p, starts[i])
				}
			}
			if st.Size() != int64(len(tc.data)) {
				t.Fatalf("Size %d, want %d", st.Size(), len(tc.data))
			}
			wantTail := int64(len(tc.data))
			if tc.want < len(starts) && tc.want > 0 {
				wantTail = starts[tc.want]
			}
			if st.Tail() != wantTail {
				t.Fatalf("Tail %d, want %d", st.Tail(), wantTail)
			}
		})
	}
}

// A failed read of an unsized source stops the stream with the error.
func TestStreamUnknownSizeReadError(t *testing.T) {
	data := testSegment(t, 3, batch.CodecNone)
	st := NewStream(Source{Name: "wire", R: failAfter{bytes.NewReader(data), int64(len(data) / 2)}, Size: -1}, Options{BlockSize: 32})
	for st.Next() {
	}
	if st.Err() == nil {
		t.Fatal("no error from a failed read")
	}
}

type failAfter struct {
	r *bytes.Reader
	n int64
}

func (f failAfter) ReadAt(p []byte, off int64) (int, error) {
	if off+int64(len(p)) > f.n {
		return 0, io.ErrClosedPipe
	}
	return f.r.ReadAt(p, off)
}
