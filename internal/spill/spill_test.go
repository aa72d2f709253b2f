package spill

import (
	"bytes"
	"io"
	"os"
	"testing"
)

// TestBuffer: bytes up to the limit stay in memory, the rest go to a
// temporary file; both read back in order, and Close removes the file.
func TestBuffer(t *testing.T) {
	for _, limit := range []int{0, 5, 1 << 10} {
		b := New(limit)
		var want []byte
		for i := range 300 {
			p := bytes.Repeat([]byte{byte('a' + i%26)}, i%7)
			want = append(want, p...)
			if _, err := b.Write(p); err != nil {
				t.Fatal(err)
			}
		}
		if b.Size() != int64(len(want)) || b.Spilled() != (len(want) > limit) {
			t.Fatalf("limit %d: size %d spilled %v, want %d", limit, b.Size(), b.Spilled(), len(want))
		}
		var name string
		if b.f != nil {
			name = b.f.Name()
		}
		r, err := b.Reader()
		if err != nil {
			t.Fatal(err)
		}
		got, err := io.ReadAll(r)
		if err != nil || !bytes.Equal(got, want) {
			t.Fatalf("limit %d: read back %d bytes (%v), want %d", limit, len(got), err, len(want))
		}
		var out bytes.Buffer
		if _, err := b.WriteTo(&out); err != nil || !bytes.Equal(out.Bytes(), want) {
			t.Fatalf("limit %d: WriteTo %d bytes (%v)", limit, out.Len(), err)
		}
		if err := b.Close(); err != nil {
			t.Fatal(err)
		}
		if name != "" {
			if _, err := os.Stat(name); !os.IsNotExist(err) {
				t.Errorf("limit %d: %s still there after Close (%v)", limit, name, err)
			}
		}
	}
}
