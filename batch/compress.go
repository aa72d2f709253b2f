package batch

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"

	"github.com/golang/snappy"
	"github.com/klauspost/compress/gzip"
	"github.com/klauspost/compress/zstd"
	"github.com/pierrec/lz4/v4"
)

// DefaultMaxDecompressed caps one batch's decompressed records section, so a
// hostile batch cannot claim gigabytes. Kafka's own limit is message.max.bytes
// on the compressed side; 64 MiB of output is far beyond any real batch.
const DefaultMaxDecompressed = 64 << 20

// Decompressor decodes compressed record sections. It keeps its readers and
// output buffer between calls: the slice returned by Decompress is valid only
// until the next call. Not safe for concurrent use.
type Decompressor struct {
	// Max is the largest decompressed output accepted; 0 means
	// DefaultMaxDecompressed.
	Max int

	out  []byte
	gz   *gzip.Reader
	zstd *zstd.Decoder
	src  bytes.Reader
}

func (d *Decompressor) limit() int {
	if d.Max > 0 {
		return d.Max
	}
	return DefaultMaxDecompressed
}

// Decompress decodes src compressed with codec. magic is the batch or
// wrapper magic, which changes the LZ4 header-checksum rule.
func (d *Decompressor) Decompress(codec Codec, src []byte, magic int8) ([]byte, error) {
	var err error
	if codec == CodecNone {
		return src, nil
	}
	d.reserve(codec, src)
	switch codec {
	case CodecGzip:
		err = d.gunzip(src)
	case CodecSnappy:
		err = d.unsnappy(src)
	case CodecLZ4:
		err = d.unlz4(src, magic)
	case CodecZstd:
		err = d.unzstd(src)
	default:
		return nil, &FormatError{Err: ErrUnknownCodec, Detail: fmt.Sprintf("Unknown compression type id: %d", int8(codec))}
	}
	if err != nil {
		var fe *FormatError
		if errors.As(err, &fe) {
			return nil, err
		}
		switch { // zstd enforces the cap itself (WithDecoderMaxMemory)
		case errors.Is(err, zstd.ErrDecoderSizeExceeded):
			return nil, d.tooLarge()
		case errors.Is(err, zstd.ErrWindowSizeExceeded):
			return nil, &FormatError{Err: ErrTooLarge, Detail: fmt.Sprintf("zstd frame needs a window larger than the %d-byte limit (--max-decompressed)", d.limit())}
		}
		return nil, &FormatError{Err: ErrDecompress, Detail: fmt.Sprintf("%s: %v", codec, err)}
	}
	return d.out, nil
}

// reserve empties d.out and sizes it for src's output when the stream
// says how large that is, so a large batch is decoded into one allocation
// instead of a chain of doublings, each left to the collector. The hint is
// only a capacity: a stream that lies about it costs a regrowth, never a
// wrong answer, and it is capped by the limit and by the codec's largest
// ratio, so a few bytes cannot make kseg allocate much.
func (d *Decompressor) reserve(codec Codec, src []byte) {
	d.out = d.out[:0]
	n := min(outputHint(codec, src), d.limit())
	n++ // room to see the end of the stream without growing
	if cap(d.out) > keepSpare && cap(d.out) > 4*n {
		// A huge batch's buffer is not kept for the small ones after
		// it: on every worker that met one it would stay alive.
		d.out = nil
	}
	if n <= 1 || cap(d.out) >= n {
		return
	}
	d.out = nil // let the old buffer go before the new one is taken
	d.out = make([]byte, 0, n)
}

// keepSpare is the largest output buffer a Decompressor keeps for
// batches declaring far less.
const keepSpare = 8 << 20

// outputHint is the decompressed size src declares, or 0 when it declares
// none this package trusts enough to allocate for.
func outputHint(codec Codec, src []byte) int {
	switch codec {
	case CodecGzip:
		// ISIZE, the last 4 bytes: the last member's size mod 2^32. Deflate
		// expands at most 1032:1.
		if len(src) < 18 {
			return 0
		}
		n := int64(binary.LittleEndian.Uint32(src[len(src)-4:]))
		return int(min(n, 1032*int64(len(src))))
	case CodecLZ4:
		return lz4Hint(src)
	case CodecZstd:
		return zstdHint(src)
	case CodecSnappy:
		return snappyHint(src)
	}
	return 0
}

// hintCap stops a hint's sum well before it could overflow; the caller
// caps it by the limit anyway.
const hintCap = 1 << 40

// lz4Hint bounds an LZ4 frame's output by its blocks: each yields at most
// the frame's block size and at most 256 bytes per stored byte (LZ4's
// ratio is under 255:1), plus one block of room, as unlz4 asks for a whole
// block's room before it decodes one.
func lz4Hint(src []byte) int {
	fr, err := lz4Frame(src, MagicV2) // the checksum rule does not change the layout
	if err != nil {
		return 0
	}
	n := fr.maxBlock
	for p := fr.start; len(src)-p >= 4 && n < hintCap; {
		word := binary.LittleEndian.Uint32(src[p:])
		p += 4
		size := int(word & 0x7fffffff)
		if size == 0 || size > fr.maxBlock || len(src)-p < size {
			break
		}
		n += min(fr.maxBlock, 256*size+64)
		p += size
		if fr.blockChecksum {
			p += 4
		}
	}
	return n
}

// zstdHint bounds the output of src's zstd frames by their block headers:
// a raw or RLE block states its size, a compressed one yields at most the
// block maximum (128 KiB, or the window when smaller); a frame content
// size, when declared, bounds its frame too.
func zstdHint(src []byte) int {
	n := 0
	for len(src) >= 4 && n < hintCap {
		var h zstd.Header
		if h.Decode(src) != nil {
			return n
		}
		if h.Skippable {
			if len(src) < h.HeaderSize+int(h.SkippableSize) {
				return n
			}
			src = src[h.HeaderSize+int(h.SkippableSize):]
			continue
		}
		blockMax := 128 << 10
		if !h.SingleSegment && h.WindowSize < uint64(blockMax) {
			blockMax = int(h.WindowSize)
		}
		frame := 0
		p := h.HeaderSize
		for {
			if len(src)-p < 3 {
				return n + frame
			}
			hdr := int(src[p]) | int(src[p+1])<<8 | int(src[p+2])<<16
			p += 3
			size := hdr >> 3
			switch (hdr >> 1) & 3 {
			case 0: // raw
				frame += size
				p += size
			case 1: // RLE: one byte, repeated size times
				frame += size
				p++
			case 2:
				frame += blockMax
				p += size
			default:
				return n + frame
			}
			if hdr&1 != 0 || p > len(src) || frame > hintCap {
				break
			}
		}
		if h.HasFCS && h.FrameContentSize < uint64(frame) {
			frame = int(h.FrameContentSize)
		}
		n += frame
		if h.HasCheckSum {
			p += 4
		}
		if p > len(src) {
			return n
		}
		src = src[p:]
	}
	return n
}

// snappyHint sums the lengths xerial-framed snappy's blocks declare (or
// the one raw block's). Snappy checks each against the block as it
// decodes it; a length stated is at most 64 bytes per stored byte.
func snappyHint(src []byte) int {
	block := func(b []byte) int {
		n, err := snappy.DecodedLen(b)
		if err != nil {
			return 0
		}
		return min(n, 64*len(b)+64)
	}
	if len(src) < 16 || !bytes.Equal(src[:8], xerialMagic) {
		return block(src)
	}
	n := 0
	for p := 16; len(src)-p >= 4 && n < hintCap; {
		c := int32(binary.BigEndian.Uint32(src[p:]))
		p += 4
		if c == -2108469695 {
			p += 12
			continue
		}
		if c < 0 || int(c) > len(src)-p {
			break
		}
		n += block(src[p : p+int(c)])
		p += int(c)
	}
	return n
}

func (d *Decompressor) tooLarge() error {
	return &FormatError{Err: ErrTooLarge, Detail: fmt.Sprintf("decompressed records exceed the %d-byte limit (--max-decompressed)", d.limit())}
}

// readAll drains r into d.out, enforcing the cap.
func (d *Decompressor) readAll(r io.Reader) error {
	max := d.limit()
	for {
		if len(d.out) == cap(d.out) {
			if len(d.out) > max {
				return d.tooLarge()
			}
			d.out = append(d.out, 0)[:len(d.out)]
		}
		n, err := r.Read(d.out[len(d.out):cap(d.out)])
		d.out = d.out[:len(d.out)+n]
		if len(d.out) > max {
			return d.tooLarge()
		}
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
	}
}

func (d *Decompressor) gunzip(src []byte) error {
	d.src.Reset(src)
	if d.gz == nil {
		gz, err := gzip.NewReader(&d.src)
		if err != nil {
			return err
		}
		d.gz = gz
	} else if err := d.gz.Reset(&d.src); err != nil {
		return err
	}
	d.gz.Multistream(true)
	return d.readAll(d.gz)
}

func (d *Decompressor) unzstd(src []byte) error {
	if d.zstd == nil {
		dec, err := zstd.NewReader(nil, zstd.WithDecoderConcurrency(1), zstd.WithDecoderLowmem(true),
			zstd.WithDecoderMaxMemory(uint64(d.limit())))
		if err != nil {
			return err
		}
		d.zstd = dec
	}
	d.src.Reset(src)
	if err := d.zstd.Reset(&d.src); err != nil {
		return err
	}
	// The decoder's own cap (WithDecoderMaxMemory) is the same limit.
	err := d.readAll(d.zstd)
	if errors.Is(err, zstd.ErrDecoderSizeExceeded) {
		return d.tooLarge()
	}
	return err
}

var xerialMagic = []byte{0x82, 'S', 'N', 'A', 'P', 'P', 'Y', 0}

// unsnappy reads xerial-framed snappy, falling back to one raw block when
// the header is absent, as snappy-java does.
func (d *Decompressor) unsnappy(src []byte) error {
	if len(src) == 0 {
		return errors.New("Cannot decompress empty stream")
	}
	if len(src) < 16 || !bytes.Equal(src[:8], xerialMagic) {
		return d.snappyBlock(src)
	}
	p := 16
	for len(src)-p >= 4 {
		n := int32(binary.BigEndian.Uint32(src[p:]))
		p += 4
		if n == -2108469695 { // concatenated stream: skip the rest of its header
			if len(src)-p < 12 {
				return nil
			}
			p += 12
			continue
		}
		if n < 0 || int(n) > len(src)-p {
			return errors.New("failed to read chunk")
		}
		if err := d.snappyBlock(src[p : p+int(n)]); err != nil {
			return err
		}
		p += int(n)
	}
	return nil
}

func (d *Decompressor) snappyBlock(block []byte) error {
	n, err := snappy.DecodedLen(block)
	if err != nil {
		return err
	}
	if len(d.out)+n > d.limit() {
		return d.tooLarge()
	}
	d.out = grow(d.out, n)
	_, err = snappy.Decode(d.out[len(d.out):len(d.out)+n], block)
	if err != nil {
		return err
	}
	d.out = d.out[:len(d.out)+n]
	return nil
}

// grow makes room for n more bytes after len(b).
func grow(b []byte, n int) []byte {
	if cap(b)-len(b) >= n {
		return b
	}
	nb := make([]byte, len(b), 2*cap(b)+n)
	copy(nb, b)
	return nb
}

// unlz4 parses Kafka's LZ4 frame itself and decodes each independent block
// straight into the output buffer; the frame Reader would copy twice.
func (d *Decompressor) unlz4(src []byte, magic int8) error {
	fr, err := lz4Frame(src, magic)
	if err != nil {
		return err
	}
	for p := fr.start; ; {
		if len(src)-p < 4 {
			return errors.New("Stream ended prematurely")
		}
		word := binary.LittleEndian.Uint32(src[p:])
		p += 4
		size := int(word & 0x7fffffff)
		if size == 0 {
			break
		}
		if size > fr.maxBlock {
			return fmt.Errorf("Block size %d exceeded max: %d", size, fr.maxBlock)
		}
		if len(src)-p < size {
			return errors.New("Stream ended prematurely")
		}
		block := src[p : p+size]
		p += size
		if fr.blockChecksum {
			if len(src)-p < 4 {
				return errors.New("Stream ended prematurely")
			}
			if binary.LittleEndian.Uint32(src[p:]) != xxh32(block, 0) {
				return errors.New("Block checksum mismatch")
			}
			p += 4
		}
		if word&0x80000000 != 0 {
			d.out = append(d.out, block...)
		} else {
			d.out = grow(d.out, fr.maxBlock)
			n, err := lz4.UncompressBlock(block, d.out[len(d.out):len(d.out)+fr.maxBlock])
			if err != nil {
				return err
			}
			d.out = d.out[:len(d.out)+n]
		}
		if len(d.out) > d.limit() {
			return d.tooLarge()
		}
	}
	return nil
}

// lz4FrameInfo is what an LZ4 frame descriptor says of the blocks after
// it, which begin at start.
type lz4FrameInfo struct {
	start         int
	maxBlock      int
	blockChecksum bool
}

// lz4Frame checks the LZ4 frame descriptor at the start of src as Kafka's
// KafkaLZ4BlockInputStream does, with its messages: the header checksum
// from magic 1 on, and a content checksum flag read but not verified.
func lz4Frame(src []byte, magic int8) (lz4FrameInfo, error) {
	var fr lz4FrameInfo
	if len(src) < 7 {
		return fr, errors.New("Stream ended prematurely")
	}
	if binary.LittleEndian.Uint32(src) != 0x184D2204 {
		return fr, errors.New("Stream unsupported (invalid magic bytes)")
	}
	flg, bd := src[4], src[5]
	if flg>>6 != 1 {
		return fr, fmt.Errorf("Version %d not supported", flg>>6)
	}
	if flg&0x03 != 0 {
		return fr, errors.New("Reserved bits must be 0")
	}
	if flg&0x20 == 0 {
		return fr, errors.New("Dependent block stream is unsupported")
	}
	if bd&0x8f != 0 {
		return fr, errors.New("Reserved bits must be 0")
	}
	code := (bd >> 4) & 7
	if code < 4 {
		return fr, fmt.Errorf("Block size %d not supported", code)
	}
	fr.maxBlock = 1 << (2*int(code) + 8)
	fr.blockChecksum = flg&0x10 != 0
	contentSize := flg&0x08 != 0
	p := 6
	if contentSize {
		p += 8
	}
	if len(src) < p+1 {
		return fr, errors.New("Stream ended prematurely")
	}
	hc := src[p]
	if magic >= 1 {
		if want := byte(xxh32(src[4:p], 0) >> 8); hc != want {
			return fr, errors.New("Stream frame descriptor corrupted")
		}
	}
	fr.start = p + 1
	return fr, nil
}
