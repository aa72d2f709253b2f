package batch

import (
	"bytes"
	"errors"
	"strings"
	"testing"

	"github.com/klauspost/compress/gzip"
	"github.com/klauspost/compress/zstd"
)

// TestOverCapNamesFlag: a decompressed size over the cap is ErrTooLarge
// and names --max-decompressed for every codec that can exceed it,
// including zstd, whose decoder enforces the cap itself.
func TestOverCapNamesFlag(t *testing.T) {
	plain := bytes.Repeat([]byte("abcdefgh"), 1<<14) // 128 KiB
	zenc, err := zstd.NewWriter(nil)
	if err != nil {
		t.Fatal(err)
	}
	var gz bytes.Buffer
	gw := gzip.NewWriter(&gz)
	gw.Write(plain)
	gw.Close()
	for _, tc := range []struct {
		name  string
		codec Codec
		src   []byte
	}{
		{"gzip", CodecGzip, gz.Bytes()},
		{"zstd", CodecZstd, zenc.EncodeAll(plain, nil)},
		// A small frame whose window alone is over the cap.
		{"zstd-window", CodecZstd, zenc.EncodeAll(plain[:800], nil)},
	} {
		d := Decompressor{Max: 700}
		_, err := d.Decompress(tc.codec, tc.src, MagicV2)
		if !errors.Is(err, ErrTooLarge) || !strings.Contains(err.Error(), "--max-decompressed") || !strings.Contains(err.Error(), "700") {
			t.Errorf("%s: %v, want ErrTooLarge naming --max-decompressed and 700", tc.name, err)
		}
	}
}
