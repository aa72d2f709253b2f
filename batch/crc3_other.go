//go:build !amd64 || purego

package batch

func crc32c3(a, b, c []byte) (uint32, uint32, uint32) {
	return CRC32C(a), CRC32C(b), CRC32C(c)
}
