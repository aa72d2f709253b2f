package batch

import (
	"bytes"
	"encoding/binary"
	"fmt"

	"github.com/golang/snappy"
	"github.com/klauspost/compress/gzip"
	"github.com/klauspost/compress/zstd"
	"github.com/pierrec/lz4/v4"
)

// Compressor writes the compressed records section of a v2 batch in the
// stream format the Java producer uses for each codec. The bytes are ours
// (Go encoders), not Java's, but every Kafka reader accepts them:
//
//   - gzip: one RFC 1952 member, default level, OS byte 0 as Java writes it;
//   - snappy: xerial SnappyOutputStream framing (16-byte header, then
//     int32 BE length + raw snappy block per 32 KiB of input);
//   - lz4: the LZ4 frame Kafka's Lz4BlockOutputStream writes (FLG 0x60,
//     BD 0x40: 64 KiB independent blocks, no checksums, end mark);
//   - zstd: one zstd frame at the default level.
//
// A Compressor reuses its encoders; it is not safe for concurrent use.
// The zero value is ready to use.
type Compressor struct {
	gz   *gzip.Writer
	zstd *zstd.Encoder
	buf  bytes.Buffer
	lz4  []byte
}

// Compress appends the compressed form of src to dst.
func (c *Compressor) Compress(codec Codec, dst, src []byte) ([]byte, error) {
	switch codec {
	case CodecNone:
		return append(dst, src...), nil
	case CodecGzip:
		return c.compressGzip(dst, src)
	case CodecSnappy:
		return compressXerialSnappy(dst, src), nil
	case CodecLZ4:
		return c.compressLZ4(dst, src)
	case CodecZstd:
		return c.compressZstd(dst, src)
	}
	return dst, fmt.Errorf("batch: compress: %w %d", ErrUnknownCodec, codec)
}

func (c *Compressor) compressGzip(dst, src []byte) ([]byte, error) {
	c.buf.Reset()
	if c.gz == nil {
		c.gz = gzip.NewWriter(&c.buf)
	} else {
		c.gz.Reset(&c.buf)
	}
	c.gz.OS = 0 // java.util.zip.GZIPOutputStream writes OS 0
	if _, err := c.gz.Write(src); err != nil {
		return dst, err
	}
	if err := c.gz.Close(); err != nil {
		return dst, err
	}
	return append(dst, c.buf.Bytes()...), nil
}

// xerialHeader is snappy-java's stream magic, version 1, compatible version 1.
var xerialHeader = [16]byte{0x82, 'S', 'N', 'A', 'P', 'P', 'Y', 0, 0, 0, 0, 1, 0, 0, 0, 1}

const xerialBlockSize = 32 << 10

func compressXerialSnappy(dst, src []byte) []byte {
	dst = append(dst, xerialHeader[:]...)
	for len(src) > 0 {
		chunk := src
		if len(chunk) > xerialBlockSize {
			chunk = chunk[:xerialBlockSize]
		}
		src = src[len(chunk):]
		lenAt := len(dst)
		dst = append(dst, 0, 0, 0, 0)
		bound := snappy.MaxEncodedLen(len(chunk))
		dst = grow(dst, bound)
		enc := snappy.Encode(dst[len(dst):len(dst)+bound], chunk)
		binary.BigEndian.PutUint32(dst[lenAt:], uint32(len(enc)))
		dst = dst[:len(dst)+len(enc)]
	}
	return dst
}

// lz4FrameHeader is magic 0x184D2204 (LE), FLG 0x60 (version 1, independent
// blocks), BD 0x40 (64 KiB max block) and HC = (xxh32(FLG,BD) >> 8) & 0xFF.
var lz4FrameHeader = [7]byte{0x04, 0x22, 0x4D, 0x18, 0x60, 0x40, 0x82}

const lz4BlockSize = 64 << 10

func (c *Compressor) compressLZ4(dst, src []byte) ([]byte, error) {
	dst = append(dst, lz4FrameHeader[:]...)
	if cap(c.lz4) < lz4.CompressBlockBound(lz4BlockSize) {
		c.lz4 = make([]byte, lz4.CompressBlockBound(lz4BlockSize))
	}
	for len(src) > 0 {
		chunk := src
		if len(chunk) > lz4BlockSize {
			chunk = chunk[:lz4BlockSize]
		}
		src = src[len(chunk):]
		n, err := lz4.CompressBlock(chunk, c.lz4, nil)
		if err != nil {
			return dst, err
		}
		if n == 0 || n >= len(chunk) {
			// Incompressible: stored, flagged with the high bit, as
			// Lz4BlockOutputStream does.
			dst = binary.LittleEndian.AppendUint32(dst, uint32(len(chunk))|0x80000000)
			dst = append(dst, chunk...)
			continue
		}
		dst = binary.LittleEndian.AppendUint32(dst, uint32(n))
		dst = append(dst, c.lz4[:n]...)
	}
	return binary.LittleEndian.AppendUint32(dst, 0), nil // end mark
}

func (c *Compressor) compressZstd(dst, src []byte) ([]byte, error) {
	if c.zstd == nil {
		enc, err := zstd.NewWriter(nil, zstd.WithEncoderConcurrency(1), zstd.WithEncoderLevel(zstd.SpeedDefault))
		if err != nil {
			return dst, err
		}
		c.zstd = enc
	}
	return c.zstd.EncodeAll(src, dst), nil
}
