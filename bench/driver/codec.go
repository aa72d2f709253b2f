package main

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/golang/snappy"
	"github.com/klauspost/compress/gzip"
	"github.com/klauspost/compress/zstd"
	"github.com/pierrec/lz4/v4"

	"github.com/kseg/kseg/batch"
	"github.com/kseg/kseg/segment"
)

// The codec library alone, as the yardstick for deep iteration: every
// compressed batch's payload is loaded into memory first (framing and
// reading are not timed), then each library decodes all payloads into one
// reused output buffer with one reused decoder, through each of its APIs
// that can decode Kafka's payloads; the fastest API is the figure. Nothing
// here is kseg code but the payloads' framing (xerial snappy chunks and
// the LZ4 frame's block walk, which the libraries do not do for Kafka's
// framing; neither checks more than the library must).

// payloads returns the compressed payloads of the file's v2 batches, their
// codec, and the file's size.
func payloads(path string) ([][]byte, batch.Codec, int64, error) {
	st, err := segment.OpenFile(path, 0, segment.Options{})
	if err != nil {
		return nil, 0, 0, err
	}
	defer st.Close()
	var out [][]byte
	codec := batch.CodecNone
	for st.Next() {
		b := st.Batch()
		raw, err := b.Bytes()
		if err != nil {
			return nil, 0, 0, err
		}
		if c := b.Header.Codec(); c != batch.CodecNone && !b.IsLegacy() {
			codec = c
			out = append(out, bytes.Clone(raw[batch.HeaderSize:]))
		}
	}
	return out, codec, st.Tail(), st.Err()
}

// libDecoder decodes one payload into dst[:0] and returns the output.
type libDecoder struct {
	name string
	dec  func(dst, src []byte) ([]byte, error)
}

func libDecoders(c batch.Codec) ([]libDecoder, error) {
	switch c {
	case batch.CodecGzip:
		var gz gzip.Reader
		var r bytes.Reader
		return []libDecoder{{"klauspost/compress/gzip Reader.Reset+Read", func(dst, src []byte) ([]byte, error) {
			r.Reset(src)
			if err := gz.Reset(&r); err != nil {
				return nil, err
			}
			return readInto(dst, &gz)
		}}}, nil
	case batch.CodecSnappy:
		return []libDecoder{{"golang/snappy Decode per xerial chunk", func(dst, src []byte) ([]byte, error) {
			return xerialDecode(dst, src)
		}}}, nil
	case batch.CodecLZ4:
		lr := lz4.NewReader(nil)
		var r bytes.Reader
		return []libDecoder{
			{"pierrec/lz4 UncompressBlock per frame block", lz4Blocks},
			{"pierrec/lz4 Reader.Reset+Read", func(dst, src []byte) ([]byte, error) {
				r.Reset(src)
				lr.Reset(&r)
				return readInto(dst, lr)
			}},
		}, nil
	case batch.CodecZstd:
		all, err := zstd.NewReader(nil, zstd.WithDecoderConcurrency(1))
		if err != nil {
			return nil, err
		}
		stream, err := zstd.NewReader(nil, zstd.WithDecoderConcurrency(1))
		if err != nil {
			return nil, err
		}
		var r bytes.Reader
		return []libDecoder{
			{"klauspost/compress/zstd DecodeAll", func(dst, src []byte) ([]byte, error) { return all.DecodeAll(src, dst) }},
			{"klauspost/compress/zstd Decoder.Reset+Read", func(dst, src []byte) ([]byte, error) {
				r.Reset(src)
				if err := stream.Reset(&r); err != nil {
					return nil, err
				}
				return readInto(dst, stream)
			}},
		}, nil
	}
	return nil, fmt.Errorf("no compressed v2 batches (codec %v)", c)
}

// readInto drains r after dst, growing dst as needed.
func readInto(dst []byte, r io.Reader) ([]byte, error) {
	for {
		if len(dst) == cap(dst) {
			dst = append(dst, 0)[:len(dst)]
		}
		n, err := r.Read(dst[len(dst):cap(dst)])
		dst = dst[:len(dst)+n]
		if err == io.EOF {
			return dst, nil
		}
		if err != nil {
			return dst, err
		}
	}
}

func xerialDecode(dst, src []byte) ([]byte, error) {
	if len(src) < 16 {
		return nil, errors.New("short xerial header")
	}
	for p := 16; p+4 <= len(src); {
		n := int(binary.BigEndian.Uint32(src[p:]))
		p += 4
		if n > len(src)-p {
			return nil, errors.New("bad chunk")
		}
		l, err := snappy.DecodedLen(src[p : p+n])
		if err != nil {
			return nil, err
		}
		if cap(dst)-len(dst) < l {
			dst = append(dst, make([]byte, l)...)[:len(dst)]
		}
		if _, err := snappy.Decode(dst[len(dst):len(dst)+l], src[p:p+n]); err != nil {
			return nil, err
		}
		dst = dst[:len(dst)+l]
		p += n
	}
	return dst, nil
}

// lz4Blocks walks the LZ4 frame (independent blocks, as Kafka writes) and
// hands each block to the library's block decoder.
func lz4Blocks(dst, src []byte) ([]byte, error) {
	flg, bd := src[4], src[5]
	maxBlock := 1 << (2*int((bd>>4)&7) + 8)
	p := 7
	if flg&0x08 != 0 {
		p += 8
	}
	for p+4 <= len(src) {
		word := binary.LittleEndian.Uint32(src[p:])
		p += 4
		size := int(word & 0x7fffffff)
		if size == 0 {
			break
		}
		block := src[p : p+size]
		p += size
		if flg&0x10 != 0 {
			p += 4
		}
		if word&0x80000000 != 0 {
			dst = append(dst, block...)
			continue
		}
		if cap(dst)-len(dst) < maxBlock {
			dst = append(dst, make([]byte, maxBlock)...)[:len(dst)]
		}
		n, err := lz4.UncompressBlock(block, dst[len(dst):len(dst)+maxBlock])
		if err != nil {
			return nil, err
		}
		dst = dst[:len(dst)+n]
	}
	return dst, nil
}

// libPass decodes every payload once with d; returns the seconds taken and
// the decompressed bytes.
func libPass(d libDecoder, ps [][]byte, buf *[]byte) (float64, float64, int64, error) {
	t := startClock()
	var out int64
	for _, p := range ps {
		o, err := d.dec((*buf)[:0], p)
		if err != nil {
			return 0, 0, 0, fmt.Errorf("%s: %w", d.name, err)
		}
		out += int64(len(o))
		*buf = o
	}
	wall, cpu := t.stop()
	return wall, cpu, out, nil
}

// streamPass reads, frames and decompresses every batch through the stream
// (Batch.Decompress), decoding no record: deep iteration less the records.
func streamPass(path string) (float64, float64, error) {
	t := startClock()
	st, err := segment.OpenFile(path, 0, segment.Options{})
	if err != nil {
		return 0, 0, err
	}
	defer st.Close()
	for st.Next() {
		if b := st.Batch(); !b.IsLegacy() {
			if _, err := b.Decompress(); err != nil {
				return 0, 0, err
			}
		}
	}
	if err := st.Err(); err != nil {
		return 0, 0, err
	}
	wall, cpu := t.stop()
	return wall, cpu, nil
}

// deepPass is what every command's record loop runs: segment.Stream frames
// the file (reading it in blocks), Batch.Records decompresses a batch and
// BatchReader.Next decodes each record. Returns seconds and records.
func deepPass(path string) (float64, float64, int64, error) {
	t := startClock()
	st, err := segment.OpenFile(path, 0, segment.Options{})
	if err != nil {
		return 0, 0, 0, err
	}
	defer st.Close()
	var rec batch.Record
	var n int64
	for st.Next() {
		b := st.Batch()
		if b.IsLegacy() {
			continue
		}
		br, err := b.Records()
		if err != nil {
			return 0, 0, 0, err
		}
		for {
			ok, err := br.Next(&rec)
			if err != nil {
				return 0, 0, 0, err
			}
			if !ok {
				break
			}
			n++
		}
	}
	if err := st.Err(); err != nil {
		return 0, 0, 0, err
	}
	wall, cpu := t.stop()
	return wall, cpu, n, nil
}

// codecDeep runs rounds of: each library API over the payloads, then
// kseg's deep iteration over the file, interleaved so that both see the
// same machine. It prints the best round of each in process CPU time
// (robust to other tenants) and in wall time, and the ratios.
func codecDeep(path string, rounds int) error {
	ps, codec, size, err := payloads(path)
	if err != nil {
		return err
	}
	decs, err := libDecoders(codec)
	if err != nil {
		return err
	}
	var buf []byte
	type best struct{ wall, cpu float64 }
	keep := func(b *best, r int, wall, cpu float64) {
		if r == 0 || wall < b.wall {
			b.wall = wall
		}
		if r == 0 || cpu < b.cpu {
			b.cpu = cpu
		}
	}
	libs := make([]best, len(decs))
	var deep, stream best
	var outBytes, records int64
	for r := 0; r < rounds; r++ {
		for i, d := range decs {
			wall, cpu, out, err := libPass(d, ps, &buf)
			if err != nil {
				return err
			}
			outBytes = out
			keep(&libs[i], r, wall, cpu)
		}
		wall, cpu, n, err := deepPass(path)
		if err != nil {
			return err
		}
		records = n
		keep(&deep, r, wall, cpu)
		if wall, cpu, err = streamPass(path); err != nil {
			return err
		}
		keep(&stream, r, wall, cpu)
	}
	mbs := func(sec float64) float64 { return float64(size) / sec / 1e6 }
	lib := 0
	for i := range decs {
		fmt.Fprintf(os.Stderr, "  %-46s %8.1f MB/s per CPU second, %8.1f MB/s wall\n", decs[i].name, mbs(libs[i].cpu), mbs(libs[i].wall))
		if libs[i].cpu < libs[lib].cpu {
			lib = i
		}
	}
	fmt.Printf("%s: %d bytes, %d batches, %d bytes decompressed, %d records, best of %d rounds\n", codec, size, len(ps), outBytes, records, rounds)
	fmt.Printf("  codec alone (%s): %.1f MB/s per CPU second, %.1f MB/s wall\n", decs[lib].name, mbs(libs[lib].cpu), mbs(libs[lib].wall))
	fmt.Printf("  deep iteration:                %.1f MB/s per CPU second (ratio %.2f), %.1f MB/s wall (ratio %.2f)\n",
		mbs(deep.cpu), libs[lib].cpu/deep.cpu, mbs(deep.wall), libs[lib].wall/deep.wall)
	fmt.Printf("  read+frame+decompress, no records: %.1f MB/s per CPU second (ratio %.2f); deep / this: %.2f\n",
		mbs(stream.cpu), libs[lib].cpu/stream.cpu, stream.cpu/deep.cpu)
	return nil
}
