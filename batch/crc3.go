package batch

// CRC32C3 returns CRC32C(a), CRC32C(b) and CRC32C(c), computed together.
//
// hash/crc32 runs a single buffer on three interleaved CRC32 chains only
// for whole multiples of 504 bytes and on one dependent chain after that,
// so a batch of about 1 KiB spends half its bytes waiting on the
// instruction's latency. Three separate buffers have no such limit: on
// amd64 with SSE4.2 their common length runs on three chains in lockstep,
// and each one's rest goes through hash/crc32. Elsewhere (and with the
// purego build tag) this is three calls of CRC32C.
func CRC32C3(a, b, c []byte) (uint32, uint32, uint32) { return crc32c3(a, b, c) }

// ValidCRCs sets valid[i] to ValidCRC(batches[i]) for each of batches (v2
// batches, complete), checking their CRCs three at a time as CRC32C3
// does. valid must be at least as long as batches.
//
// The three chains walk the first, second and last third of batches side
// by side, each through memory in order: three neighbouring batches side
// by side ran at less than half the speed of one chain on memory not in
// cache, though faster in cache.
func ValidCRCs(valid []bool, batches [][]byte) {
	valid = valid[:len(batches)]
	third := (len(batches) + 2) / 3
	for i := range third {
		j, k := i+third, i+2*third
		a := batches[i]
		switch {
		case k < len(batches) && min(len(a), len(batches[j]), len(batches[k])) >= HeaderSize:
			b, c := batches[j], batches[k]
			ca, cb, cc := crc32c3(a[21:], b[21:], c[21:])
			valid[i], valid[j], valid[k] = storedCRC(a) == ca, storedCRC(b) == cb, storedCRC(c) == cc
		case k >= len(batches) && j < len(batches) && min(len(a), len(batches[j])) >= HeaderSize:
			// Two chains take as long as three: the second goes twice.
			b := batches[j]
			ca, cb, _ := crc32c3(a[21:], b[21:], b[21:])
			valid[i], valid[j] = storedCRC(a) == ca, storedCRC(b) == cb
		default:
			for _, x := range [3]int{i, j, k} {
				if x < len(batches) {
					valid[x] = ValidCRC(batches[x])
				}
			}
		}
	}
}

// storedCRC is the CRC field of a v2 batch of at least HeaderSize bytes.
func storedCRC(b []byte) uint32 {
	return uint32(b[17])<<24 | uint32(b[18])<<16 | uint32(b[19])<<8 | uint32(b[20])
}
