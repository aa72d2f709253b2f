package batch

import "bytes"

// SniffCodec guesses a payload's compression from its magic bytes. One
// real client shipped zstd payloads in batches whose attributes said none;
// kseg flags such batches.
func SniffCodec(payload []byte) Codec {
	switch {
	case len(payload) >= 2 && payload[0] == 0x1f && payload[1] == 0x8b:
		return CodecGzip
	case len(payload) >= 8 && bytes.Equal(payload[:8], xerialMagic):
		return CodecSnappy
	case len(payload) >= 4 && payload[0] == 0x04 && payload[1] == 0x22 && payload[2] == 0x4d && payload[3] == 0x18:
		return CodecLZ4
	case len(payload) >= 4 && payload[0] == 0x28 && payload[1] == 0xb5 && payload[2] == 0x2f && payload[3] == 0xfd:
		return CodecZstd
	}
	return CodecNone
}
