package batch

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"testing"

	"github.com/golang/snappy"
	"github.com/klauspost/compress/gzip"
	"github.com/klauspost/compress/zstd"
	"github.com/pierrec/lz4/v4"
)

// testDecodeRecord is a minimal record decoder for the encoder's tests
// (the real one lives in records.go, owned elsewhere).
func testDecodeRecord(b []byte) (Record, int, error) {
	var r Record
	length, n := Varint(b)
	if n <= 0 || length < 0 || int(length) > len(b)-n {
		return r, 0, errors.New("bad length")
	}
	body := b[n : n+int(length)]
	r.Size = n + int(length)
	p := 0
	next := func() (int32, error) {
		v, k := Varint(body[p:])
		if k <= 0 {
			return 0, fmt.Errorf("bad varint at %d", p)
		}
		p += k
		return v, nil
	}
	bytesField := func() ([]byte, error) {
		l, err := next()
		if err != nil {
			return nil, err
		}
		if l < 0 {
			return nil, nil
		}
		if int(l) > len(body)-p {
			return nil, errors.New("short field")
		}
		v := body[p : p+int(l)]
		p += int(l)
		return v, nil
	}
	if len(body) < 1 {
		return r, 0, errors.New("empty body")
	}
	r.Attributes = int8(body[0])
	p = 1
	ts, k := Varlong(body[p:])
	if k <= 0 {
		return r, 0, errors.New("bad ts")
	}
	r.TimestampDelta = ts
	p += k
	od, err := next()
	if err != nil {
		return r, 0, err
	}
	r.OffsetDelta = od
	if r.Key, err = bytesField(); err != nil {
		return r, 0, err
	}
	if r.Value, err = bytesField(); err != nil {
		return r, 0, err
	}
	nh, err := next()
	if err != nil {
		return r, 0, err
	}
	for i := int32(0); i < nh; i++ {
		hk, err := bytesField()
		if err != nil {
			return r, 0, err
		}
		hv, err := bytesField()
		if err != nil {
			return r, 0, err
		}
		if hk == nil {
			hk = []byte{}
		}
		r.Headers = append(r.Headers, RecordHeader{Key: hk, Value: hv})
	}
	if p != len(body) {
		return r, 0, fmt.Errorf("%d trailing bytes in record", len(body)-p)
	}
	return r, r.Size, nil
}

// testDecompress undoes Compressor.Compress with the libraries' readers.
func testDecompress(codec Codec, src []byte) ([]byte, error) {
	switch codec {
	case CodecNone:
		return src, nil
	case CodecGzip:
		zr, err := gzip.NewReader(bytes.NewReader(src))
		if err != nil {
			return nil, err
		}
		return io.ReadAll(zr)
	case CodecSnappy:
		if len(src) < 16 || !bytes.Equal(src[:16], xerialHeader[:]) {
			return nil, errors.New("no xerial header")
		}
		var out []byte
		for p := 16; p < len(src); {
			if len(src)-p < 4 {
				return nil, errors.New("short chunk length")
			}
			n := int(uint32(src[p])<<24 | uint32(src[p+1])<<16 | uint32(src[p+2])<<8 | uint32(src[p+3]))
			p += 4
			if n > len(src)-p {
				return nil, errors.New("short chunk")
			}
			d, err := snappy.Decode(nil, src[p:p+n])
			if err != nil {
				return nil, err
			}
			out = append(out, d...)
			p += n
		}
		return out, nil
	case CodecLZ4:
		return io.ReadAll(lz4.NewReader(bytes.NewReader(src)))
	case CodecZstd:
		d, err := zstd.NewReader(nil)
		if err != nil {
			return nil, err
		}
		defer d.Close()
		return d.DecodeAll(src, nil)
	}
	return nil, ErrUnknownCodec
}

// testDecodeBatch decodes a whole v2 batch built by Builder.
func testDecodeBatch(b []byte) (Header, []Record, error) {
	h, err := ParseHeader(b)
	if err != nil {
		return h, nil, err
	}
	if int(h.Size()) != len(b) {
		return h, nil, fmt.Errorf("batch length %d, have %d bytes", h.Size(), len(b))
	}
	if !ValidCRC(b) {
		return h, nil, errors.New("bad CRC")
	}
	raw, err := testDecompress(h.Codec(), b[HeaderSize:])
	if err != nil {
		return h, nil, err
	}
	var recs []Record
	for p := 0; p < len(raw); {
		r, n, err := testDecodeRecord(raw[p:])
		if err != nil {
			return h, nil, fmt.Errorf("record %d: %w", len(recs), err)
		}
		recs = append(recs, r)
		p += n
	}
	if len(recs) != int(h.RecordCount) {
		return h, nil, fmt.Errorf("count %d, decoded %d", h.RecordCount, len(recs))
	}
	return h, recs, nil
}

func TestRecordSizeInBytes(t *testing.T) {
	v100 := bytes.Repeat([]byte{'v'}, 100)
	tests := []struct {
		name    string
		od      int32
		tsd     int64
		key     []byte
		value   []byte
		headers []RecordHeader
		want    int
	}{
		{"null key small deltas", 0, 0, nil, v100, nil, 109},
		{"offset delta 63", 63, 63, nil, v100, nil, 109},
		{"offset delta 64", 64, 0, nil, v100, nil, 110},
		{"ts delta 64", 1, 64, nil, v100, nil, 110},
		{"ts delta -65", 1, -65, nil, v100, nil, 110},
		{"both 64", 64, 64, nil, v100, nil, 111},
		{"keyed", 3, 5, []byte("key-7"), v100, nil, 114},
		{"keyed late", 3, 70, []byte("key-7"), v100, nil, 115},
		{"empty", 0, 0, nil, nil, nil, 7},
		{"header", 0, 0, nil, v100, []RecordHeader{{Key: []byte("h"), Value: []byte("abc")}}, 115},
		{"null header value", 0, 0, nil, nil, []RecordHeader{{Key: []byte("h")}}, 10},
		{"empty vs null value", 0, 0, nil, []byte{}, nil, 7},
		{"2-byte body length", 0, 0, nil, bytes.Repeat([]byte{'v'}, 130), nil, 139},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := RecordSizeInBytes(tt.od, tt.tsd, tt.key, tt.value, tt.headers)
			if got != tt.want {
				t.Errorf("RecordSizeInBytes = %d, want %d", got, tt.want)
			}
			r := Record{OffsetDelta: tt.od, TimestampDelta: tt.tsd, Key: tt.key, Value: tt.value, Headers: tt.headers}
			enc := AppendRecord(nil, &r)
			if len(enc) != got {
				t.Fatalf("AppendRecord wrote %d bytes, size says %d", len(enc), got)
			}
			back, n, err := testDecodeRecord(enc)
			if err != nil || n != len(enc) {
				t.Fatalf("decode: n=%d err=%v", n, err)
			}
			if back.OffsetDelta != tt.od || back.TimestampDelta != tt.tsd ||
				!bytes.Equal(back.Key, tt.key) || (back.Key == nil) != (tt.key == nil) ||
				!bytes.Equal(back.Value, tt.value) || (back.Value == nil) != (tt.value == nil) ||
				len(back.Headers) != len(tt.headers) {
				t.Errorf("round trip: got %+v", back)
			}
		})
	}
}

func TestEstimateSizeUpperBound(t *testing.T) {
	v100 := bytes.Repeat([]byte{'v'}, 100)
	for _, tt := range []struct {
		key, value []byte
		want       int
	}{{nil, v100, 186}, {[]byte("key-3"), v100, 191}, {nil, nil, 85}} {
		if got := EstimateSizeUpperBound(tt.key, tt.value, nil); got != tt.want {
			t.Errorf("EstimateSizeUpperBound(%q, %d B) = %d, want %d", tt.key, len(tt.value), got, tt.want)
		}
	}
}

// TestBuilderSeedSizes checks the batch sizes of the seed's dump lines:
// 8 records of 100-byte values are 933 bytes, 940 when records 2..8 are
// 64 ms or more after the first.
func TestBuilderSeedSizes(t *testing.T) {
	v100 := bytes.Repeat([]byte{'v'}, 100)
	for _, tt := range []struct {
		name  string
		tsOf  func(i int) int64
		count int
		want  int
	}{
		{"burst", func(int) int64 { return 1000 }, 8, 933},
		{"cold start", func(i int) int64 {
			if i == 0 {
				return 1000
			}
			return 1070
		}, 8, 940},
		{"148 records", func(int) int64 { return 5 }, 148, 16277},
		{"one record", func(int) int64 { return 5 }, 1, 170},
	} {
		t.Run(tt.name, func(t *testing.T) {
			b := NewBuilder(CodecNone)
			for i := 0; i < tt.count; i++ {
				b.Append(tt.tsOf(i), nil, v100, nil)
			}
			out, err := b.Build(nil, Header{ProducerID: 1, ProducerEpoch: 0, BaseSequence: 8, PartitionLeaderEpoch: -1}, nil)
			if err != nil {
				t.Fatal(err)
			}
			if len(out) != tt.want {
				t.Errorf("batch size %d, want %d", len(out), tt.want)
			}
			h, recs, err := testDecodeBatch(out)
			if err != nil {
				t.Fatal(err)
			}
			if h.RecordCount != int32(tt.count) || h.LastOffsetDelta != int32(tt.count-1) ||
				h.BaseTimestamp != tt.tsOf(0) || h.MaxTimestamp != tt.tsOf(tt.count-1) ||
				h.ProducerID != 1 || h.BaseSequence != 8 || h.Magic != 2 || h.Codec() != CodecNone {
				t.Errorf("header %+v", h)
			}
			for i, r := range recs {
				if r.OffsetDelta != int32(i) || r.TimestampDelta != tt.tsOf(i)-tt.tsOf(0) || r.Key != nil {
					t.Errorf("record %d: %+v", i, r)
				}
			}
		})
	}
}

func TestBuilderCompressedRoundTrip(t *testing.T) {
	var c Compressor
	b := NewBuilder(CodecNone)
	for _, codec := range []Codec{CodecNone, CodecGzip, CodecSnappy, CodecLZ4, CodecZstd} {
		for _, n := range []int{1, 7, 1000, 3000} { // 3000 records cross the 32 and 64 KiB chunks
			t.Run(fmt.Sprintf("codec=%v/records=%d", codec, n), func(t *testing.T) {
				b.Reset(codec)
				for i := 0; i < n; i++ {
					key := []byte(fmt.Sprintf("key-%d", i%10))
					var hdr []RecordHeader
					if i%3 == 0 {
						hdr = []RecordHeader{{Key: []byte("h"), Value: []byte{byte(i)}}}
					}
					b.Append(int64(1000+i), key, bytes.Repeat([]byte{byte('a' + i%26)}, 20+i%50), hdr)
				}
				out, err := b.Build([]byte("prefix"), Header{ProducerID: -1, ProducerEpoch: -1, BaseSequence: -1, Attributes: AttrLogAppendTime, MaxTimestamp: 99}, &c)
				if err != nil {
					t.Fatal(err)
				}
				if string(out[:6]) != "prefix" {
					t.Fatal("Build clobbered dst")
				}
				h, recs, err := testDecodeBatch(out[6:])
				if err != nil {
					t.Fatal(err)
				}
				if h.Codec() != codec || h.TimestampType() != LogAppendTime || h.MaxTimestamp != 99 || len(recs) != n {
					t.Errorf("header %+v, %d records", h, len(recs))
				}
				for i, r := range recs {
					if string(r.Key) != fmt.Sprintf("key-%d", i%10) || len(r.Value) != 20+i%50 || r.TimestampDelta != int64(i) {
						t.Fatalf("record %d: %+v", i, r)
					}
				}
			})
		}
	}
}

func TestCompressFrameHeaders(t *testing.T) {
	var c Compressor
	src := bytes.Repeat([]byte("kafka "), 20000) // > 64 KiB: two lz4 blocks, four snappy chunks
	lz, err := c.Compress(CodecLZ4, nil, src)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(lz[:7], []byte{0x04, 0x22, 0x4D, 0x18, 0x60, 0x40, 0x82}) {
		t.Errorf("lz4 frame header % x", lz[:7])
	}
	if !bytes.Equal(lz[len(lz)-4:], []byte{0, 0, 0, 0}) {
		t.Errorf("lz4 frame does not end with an end mark")
	}
	sn, _ := c.Compress(CodecSnappy, nil, src)
	if !bytes.Equal(sn[:16], []byte{0x82, 'S', 'N', 'A', 'P', 'P', 'Y', 0, 0, 0, 0, 1, 0, 0, 0, 1}) {
		t.Errorf("xerial header % x", sn[:16])
	}
	chunks := 0
	for p := 16; p < len(sn); chunks++ {
		n := int(uint32(sn[p])<<24 | uint32(sn[p+1])<<16 | uint32(sn[p+2])<<8 | uint32(sn[p+3]))
		d, err := snappy.DecodedLen(sn[p+4 : p+4+n])
		if err != nil || d > 32<<10 {
			t.Fatalf("chunk %d decodes to %d bytes (%v)", chunks, d, err)
		}
		p += 4 + n
	}
	if want := (len(src) + 32<<10 - 1) / (32 << 10); chunks != want {
		t.Errorf("%d snappy chunks, want %d", chunks, want)
	}
	gz, _ := c.Compress(CodecGzip, nil, src)
	if gz[0] != 0x1f || gz[1] != 0x8b || gz[9] != 0 {
		t.Errorf("gzip header % x (want OS byte 0)", gz[:10])
	}
	// Incompressible input is stored with the lz4 high bit.
	rnd := make([]byte, 1000)
	x := uint32(1)
	for i := range rnd {
		x = x*1664525 + 1013904223
		rnd[i] = byte(x >> 24)
	}
	lr, _ := c.Compress(CodecLZ4, nil, rnd)
	if got := uint32(lr[7]) | uint32(lr[8])<<8 | uint32(lr[9])<<16 | uint32(lr[10])<<24; got != 0x80000000|1000 {
		t.Errorf("stored block word %#x", got)
	}
	for _, codec := range []Codec{CodecLZ4, CodecGzip, CodecSnappy, CodecZstd} {
		for _, in := range [][]byte{src, rnd} {
			enc, err := c.Compress(codec, nil, in)
			if err != nil {
				t.Fatal(err)
			}
			dec, err := testDecompress(codec, enc)
			if err != nil || !bytes.Equal(dec, in) {
				t.Errorf("%v round trip failed: %v", codec, err)
			}
		}
	}
}

func FuzzAppendRecord(f *testing.F) {
	f.Add(int32(0), int64(0), []byte(nil), []byte("v"), []byte("h"), false)
	f.Add(int32(64), int64(-65), []byte("k"), []byte(nil), []byte(nil), true)
	f.Add(int32(1<<30), int64(1)<<40, []byte{}, []byte{}, []byte{}, true)
	f.Fuzz(func(t *testing.T, od int32, tsd int64, key, value, hk []byte, withHeader bool) {
		var hdr []RecordHeader
		if withHeader {
			if hk == nil {
				hk = []byte{}
			}
			hdr = []RecordHeader{{Key: hk, Value: value}}
		}
		r := Record{OffsetDelta: od, TimestampDelta: tsd, Key: key, Value: value, Headers: hdr}
		enc := AppendRecord(nil, &r)
		if len(enc) != RecordSizeInBytes(od, tsd, key, value, hdr) {
			t.Fatalf("size %d != RecordSizeInBytes", len(enc))
		}
		back, n, err := testDecodeRecord(enc)
		if err != nil || n != len(enc) {
			t.Fatalf("decode: %v", err)
		}
		if back.OffsetDelta != od || back.TimestampDelta != tsd || !bytes.Equal(back.Key, key) ||
			(back.Key == nil) != (key == nil) || !bytes.Equal(back.Value, value) || len(back.Headers) != len(hdr) {
			t.Fatalf("round trip mismatch")
		}
		if EstimateSizeUpperBound(key, value, hdr) < HeaderSize+len(enc) {
			t.Fatalf("upper bound %d below actual %d", EstimateSizeUpperBound(key, value, hdr), HeaderSize+len(enc))
		}
	})
}

func BenchmarkBuilder(b *testing.B) {
	v := bytes.Repeat([]byte{'v'}, 100)
	bl := NewBuilder(CodecNone)
	var out []byte
	b.ReportAllocs()
	b.SetBytes(16277)
	for b.Loop() {
		bl.Reset(CodecNone)
		for i := 0; i < 148; i++ {
			bl.Append(5, nil, v, nil)
		}
		out, _ = bl.Build(out[:0], Header{ProducerID: 1, BaseSequence: 0}, nil)
	}
}
