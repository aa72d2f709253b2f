package batch

import "github.com/kseg/kseg/internal/varint"

// Kafka's record fields are zigzag varints (protobuf base-128). The decoders
// inline the one- and two-byte cases, which cover nearly every field of a
// typical record.

// Varint decodes a zigzag int32 (at most 5 bytes) as Kafka does.
func Varint(b []byte) (int32, int) {
	if len(b) > 0 && b[0] < 0x80 {
		u := uint32(b[0])
		return int32(u>>1) ^ -int32(u&1), 1
	}
	if len(b) > 1 && b[1] < 0x80 {
		u := uint32(b[0]&0x7f) | uint32(b[1])<<7
		return int32(u>>1) ^ -int32(u&1), 2
	}
	u, n := varint.Uvarint(b, 5)
	if n <= 0 {
		return 0, n
	}
	v := uint32(u)
	return int32(v>>1) ^ -int32(v&1), n
}

// Varlong decodes a zigzag int64 (at most 10 bytes).
func Varlong(b []byte) (int64, int) {
	if len(b) > 0 && b[0] < 0x80 {
		u := uint64(b[0])
		return int64(u>>1) ^ -int64(u&1), 1
	}
	u, n := varint.Uvarint(b, 10)
	if n <= 0 {
		return 0, n
	}
	return int64(u>>1) ^ -int64(u&1), n
}

// AppendVarint appends the zigzag encoding of v.
func AppendVarint(dst []byte, v int32) []byte {
	return varint.Append(dst, uint64(uint32((v<<1)^(v>>31))))
}

// AppendVarlong appends the zigzag encoding of v.
func AppendVarlong(dst []byte, v int64) []byte {
	return varint.Append(dst, uint64((v<<1)^(v>>63)))
}

// SizeOfVarint is the encoded length of v as a zigzag varint.
func SizeOfVarint(v int32) int { return varint.Size(uint64(uint32((v << 1) ^ (v >> 31)))) }

// SizeOfVarlong is the encoded length of v as a zigzag varlong.
func SizeOfVarlong(v int64) int { return varint.Size(uint64((v << 1) ^ (v >> 63))) }
