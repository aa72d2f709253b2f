// Package varint is the one decoder of Kafka's unsigned base-128 varints,
// shared by package batch (record fields) and package content (the
// generated-message encoding), which do not import each other.
package varint

// Uvarint decodes an unsigned varint of at most max bytes (5 for Kafka's
// int32 varints, 10 for varlongs) from the front of b, as ByteUtils'
// readUnsignedVarint/readUnsignedVarlong do.
//
// n > 0 is the number of bytes read. n == 0 means b ends inside the varint
// (Java: BufferUnderflowException). n == -1 means the max-th byte still has
// its continuation bit set (Java: IllegalArgumentException "Varint is too
// long"); x then holds the bits gathered so far, so that uint32(x) is the
// "converted value" Kafka prints in that message. Like Java, the verdict
// "too long" needs no byte after the max-th.
func Uvarint(b []byte, max int) (x uint64, n int) {
	var s uint
	for i := 0; i < len(b) && i < max; i++ {
		c := b[i]
		x |= uint64(c&0x7f) << s
		if c < 0x80 {
			return x, i + 1
		}
		if i == max-1 {
			return x, -1
		}
		s += 7
	}
	return 0, 0
}

// Append appends u as an unsigned varint (ByteUtils.writeUnsignedVarlong).
func Append(dst []byte, u uint64) []byte {
	for u >= 0x80 {
		dst = append(dst, byte(u)|0x80)
		u >>= 7
	}
	return append(dst, byte(u))
}

// Size is the encoded length of u as an unsigned varint.
func Size(u uint64) int {
	n := 1
	for u >= 0x80 {
		u >>= 7
		n++
	}
	return n
}
