//go:build !purego

package batch

import (
	"hash/crc32"

	"golang.org/x/sys/cpu"
)

var crcLanes = cpu.X86.HasSSE42

// castagnoli3 updates three non-inverted CRC-32C states with words
// 8-byte words from each of a, b and c, one CRC32Q of each in turn
// (crc3_amd64.s). words must be positive and each buffer that long.
//
//go:noescape
func castagnoli3(crcA, crcB, crcC uint32, a, b, c *byte, words int) (retA, retB, retC uint32)

func crc32c3(a, b, c []byte) (uint32, uint32, uint32) {
	words := min(len(a), len(b), len(c)) / 8
	if words == 0 || !crcLanes {
		return CRC32C(a), CRC32C(b), CRC32C(c)
	}
	sa, sb, sc := castagnoli3(^uint32(0), ^uint32(0), ^uint32(0), &a[0], &b[0], &c[0], words)
	// ^s is the checksum of the bytes so far, what crc32.Update continues.
	n := words * 8
	return crcRest(^sa, a[n:]), crcRest(^sb, b[n:]), crcRest(^sc, c[n:])
}

// crcRest is crc32.Update of crc with p, without its calls when p is empty
// (batches often are whole words).
func crcRest(crc uint32, p []byte) uint32 {
	if len(p) == 0 {
		return crc
	}
	return crc32.Update(crc, castagnoli, p)
}
