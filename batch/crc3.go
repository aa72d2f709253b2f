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
func ValidCRCs(valid []bool, batches [][]byte) {
	valid = valid[:len(batches)]
	var (
		at   [3]int
		body [3][]byte
		n    int
	)
	for i, b := range batches {
		if len(b) < HeaderSize {
			valid[i] = false
			continue
		}
		at[n], body[n] = i, b[21:]
		if n++; n < 3 {
			continue
		}
		ca, cb, cc := crc32c3(body[0], body[1], body[2])
		valid[at[0]] = storedCRC(batches[at[0]]) == ca
		valid[at[1]] = storedCRC(batches[at[1]]) == cb
		valid[at[2]] = storedCRC(batches[at[2]]) == cc
		n = 0
	}
	switch n {
	case 1:
		valid[at[0]] = ValidCRC(batches[at[0]])
	case 2:
		// Two chains take as long as three: the second goes twice.
		ca, cb, _ := crc32c3(body[0], body[1], body[1])
		valid[at[0]] = storedCRC(batches[at[0]]) == ca
		valid[at[1]] = storedCRC(batches[at[1]]) == cb
	}
}

// storedCRC is the CRC field of a v2 batch of at least HeaderSize bytes.
func storedCRC(b []byte) uint32 {
	return uint32(b[17])<<24 | uint32(b[18])<<16 | uint32(b[19])<<8 | uint32(b[20])
}
