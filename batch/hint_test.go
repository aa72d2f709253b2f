package batch

import (
	"bytes"
	"encoding/binary"
	"testing"

	"github.com/klauspost/compress/gzip"
)

// TestDecompressSizeHint: the output buffer is sized once from the size a
// stream declares, and a declared size that is wrong (smaller, larger,
// only the last member's, or absurd for the input) changes nothing but
// the allocation.
func TestDecompressSizeHint(t *testing.T) {
	member := func(p []byte) []byte {
		var b bytes.Buffer
		w := gzip.NewWriter(&b)
		w.Write(p)
		w.Close()
		return b.Bytes()
	}
	withISize := func(src []byte, n uint32) []byte {
		src = bytes.Clone(src)
		binary.LittleEndian.PutUint32(src[len(src)-4:], n)
		return src
	}
	big := bytes.Repeat([]byte("0123456789abcdef"), 1<<16) // 1 MiB
	small := []byte("tiny")
	two := append(member(small), member(big)...)
	for _, tc := range []struct {
		name string
		src  []byte
		want []byte
	}{
		{"exact", member(big), big},
		{"two members", two, append(bytes.Clone(small), big...)},
		{"two members, last small", append(member(big), member(small)...), append(bytes.Clone(big), small...)},
	} {
		var d Decompressor
		out, err := d.Decompress(CodecGzip, tc.src, MagicV2)
		if err != nil || !bytes.Equal(out, tc.want) {
			t.Errorf("%s: %d bytes, %v; want %d bytes", tc.name, len(out), err, len(tc.want))
		}
	}
	// Exact: one allocation of the declared size (plus the byte that sees EOF).
	var d Decompressor
	if _, err := d.Decompress(CodecGzip, member(big), MagicV2); err != nil {
		t.Fatal(err)
	}
	if c := cap(d.out); c != len(big)+1 {
		t.Errorf("buffer capacity %d after a %d-byte stream, want %d", c, len(big), len(big)+1)
	}
	// Reused: a smaller batch after it takes no new buffer.
	before := &d.out[:1][0]
	if _, err := d.Decompress(CodecGzip, member(small), MagicV2); err != nil {
		t.Fatal(err)
	}
	if &d.out[:1][0] != before {
		t.Error("a smaller batch did not reuse the buffer")
	}
	// A lying trailer fails the gzip check, as before, whatever it claims.
	for _, n := range []uint32{0, 1, 1 << 31, 0xffffffff} {
		var d Decompressor
		d.Max = 8 << 20
		if _, err := d.Decompress(CodecGzip, withISize(member(big), n), MagicV2); err == nil {
			t.Errorf("ISIZE %d: no error for a wrong trailer", n)
		}
		if c := cap(d.out); c > d.Max+1 {
			t.Errorf("ISIZE %d: buffer of %d bytes, over the %d-byte limit", n, c, d.Max)
		}
	}
	// A tiny stream cannot claim a large buffer: deflate's ratio bounds it.
	if n := outputHint(CodecGzip, withISize(member(small), 0xffffffff)); n > 1032*len(member(small)) {
		t.Errorf("hint %d for a %d-byte stream", n, len(member(small)))
	}
}

// TestDecompressHintAllCodecs: for each codec as kseg writes it, the
// output is decoded into the one buffer its hint reserved (no regrowth),
// and that buffer is not much larger than the output.
func TestDecompressHintAllCodecs(t *testing.T) {
	var plain []byte
	for i := range 1 << 18 {
		plain = binary.BigEndian.AppendUint32(plain, uint32(i%1000))
	}
	plain = append(plain, "tail"...) // 1 MiB + 4: the last block is short
	var c Compressor
	for _, codec := range []Codec{CodecGzip, CodecSnappy, CodecLZ4, CodecZstd} {
		src, err := c.Compress(codec, nil, plain)
		if err != nil {
			t.Fatal(err)
		}
		hint := outputHint(codec, src)
		t.Logf("%s: %d bytes stored, hint %d for %d", codec, len(src), hint, len(plain))
		if hint < len(plain) || hint > len(plain)+4<<20 {
			t.Errorf("%s: hint %d for %d bytes", codec, hint, len(plain))
		}
		var d Decompressor
		out, err := d.Decompress(codec, src, MagicV2)
		if err != nil || !bytes.Equal(out, plain) {
			t.Fatalf("%s: %d bytes, %v", codec, len(out), err)
		}
		if cap(d.out) != hint+1 {
			t.Errorf("%s: buffer grew from %d to %d", codec, hint+1, cap(d.out))
		}
		// Truncated and garbled streams give a hint or none, never a panic.
		for i := 0; i < len(src); i += 1 + len(src)/64 {
			outputHint(codec, src[:i])
			bad := bytes.Clone(src)
			bad[i] ^= 0xff
			outputHint(codec, bad)
		}
	}
}

// TestDecompressReleasesHugeBuffer: after a batch of more than 8 MiB the
// buffer is dropped for a batch declaring far less, and kept for one
// declaring about as much.
func TestDecompressReleasesHugeBuffer(t *testing.T) {
	var c Compressor
	big, _ := c.Compress(CodecGzip, nil, make([]byte, 16<<20))
	mid, _ := c.Compress(CodecGzip, nil, make([]byte, 12<<20))
	small, _ := c.Compress(CodecGzip, nil, []byte("small"))
	var d Decompressor
	for _, step := range []struct {
		src     []byte
		minCap  int
		maxCap  int
		comment string
	}{
		{big, 16 << 20, 16<<20 + 1, "sized"},
		{mid, 16 << 20, 16<<20 + 1, "kept for a batch of about its size"},
		{small, 0, 64, "dropped for a small batch"},
	} {
		if _, err := d.Decompress(CodecGzip, step.src, MagicV2); err != nil {
			t.Fatal(err)
		}
		if c := cap(d.out); c < step.minCap || c > step.maxCap {
			t.Errorf("%s: capacity %d, want %d-%d", step.comment, c, step.minCap, step.maxCap)
		}
	}
}
