package segment

import (
	"encoding/binary"
	"io"
	"os"
	"sync"

	"github.com/kseg/kseg/batch"
)

// Checksums on several cores (Options.CRCWorkers).
//
// Framing is sequential (an entry's position is the end of the one before
// it), but the checksum of each entry is independent of the others. A
// scanner with par > 1 reads a block that starts at an entry boundary in
// par parts, each on its own goroutine (so each part lands in that core's
// cache), frames the entries wholly in the block from their length fields,
// and has each goroutine compute the checksums of the entries that start
// in its part. Stream.checkCRC then takes the checksum of the entry it
// checks from that list (entryCRC: position, size and magic, so it is the
// checksum of exactly the bytes checkCRC would hash) instead of computing
// it; an entry not in the list (a resync, a block read for any other
// reason) is hashed as before. What is found, and in what order, does not
// change: only where the hashing runs.

// minParPart is the smallest part a goroutine reads and hashes: below it
// the goroutine costs more than it saves.
const minParPart = 128 << 10

// entryCRC is the checksum of one entry of the current block, computed as
// checkCRC computes it (v2: CRC-32C from the attributes on; legacy: IEEE
// from the magic byte on).
type entryCRC struct {
	pos  int64
	size int64
	crc  uint32
	v2   bool
}

// parOK says whether a read at an entry boundary is split across
// goroutines: with par > 1, from a local file (os.File's ReadAt may run
// concurrently) of known size. Other sources read as with one worker.
func (s *scanner) parOK() bool {
	if s.par < 2 || s.open || s.slicer != nil {
		return false
	}
	_, ok := s.r.(*os.File)
	return ok
}

// readPar reads s.buf[:want] from off in parts on s.par goroutines (the
// caller's included) and hashes the entries wholly in what was read. It
// returns what ReadAt would: the bytes read from off without a gap, and
// the error of the first part that came up short.
func (s *scanner) readPar(off int64, want int) (int, error) {
	parts := min(s.par, want/minParPart)
	type res struct {
		n   int
		err error
	}
	var rs [maxParts]res
	parts = min(parts, maxParts)
	bounds := func(i int) (int, int) { return want * i / parts, want * (i + 1) / parts }
	var wg sync.WaitGroup
	for i := 1; i < parts; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			lo, hi := bounds(i)
			rs[i].n, rs[i].err = s.r.ReadAt(s.buf[lo:hi], off+int64(lo))
		}()
	}
	lo, hi := bounds(0)
	rs[0].n, rs[0].err = s.r.ReadAt(s.buf[lo:hi], off)
	wg.Wait()
	m := 0
	var err error
	for i := range parts {
		lo, hi := bounds(i)
		m += rs[i].n
		if rs[i].n < hi-lo {
			err = rs[i].err
			if err == nil {
				err = io.ErrUnexpectedEOF
			}
			break
		}
	}
	if m > 0 {
		s.hashPar(off, s.buf[:m], parts)
	}
	return m, err
}

// maxParts bounds the goroutines of one block.
const maxParts = 16

// hashPar frames the entries wholly in b (the file's bytes from off, an
// entry boundary) and computes their checksums on parts goroutines, each
// those of the entries that start in its share of b.
func (s *scanner) hashPar(off int64, b []byte, parts int) {
	s.crcs = s.crcs[:0]
	s.crcAt = 0
	lim := s.maxEntry()
	for p := 0; p+batch.HeaderSizeUpToMagic <= len(b); {
		size := int64(int32(binary.BigEndian.Uint32(b[p+8:])))
		if size < batch.MinEntrySize {
			break
		}
		n := batch.LogOverhead + size
		if n > lim || int64(p)+n > int64(len(b)) {
			break
		}
		s.crcs = append(s.crcs, entryCRC{pos: int64(p), size: n, v2: int8(b[p+16]) >= batch.MagicV2})
		p += int(n)
	}
	// Split by bytes, not by entries: each goroutine hashes about as much.
	var starts [maxParts + 1]int
	j := 0
	for i := 1; i < parts; i++ {
		cut := int64(len(b) * i / parts)
		for j < len(s.crcs) && s.crcs[j].pos < cut {
			j++
		}
		starts[i] = j
	}
	starts[parts] = len(s.crcs)
	hash := func(es []entryCRC) {
		for k := range es {
			e := &es[k]
			raw := b[e.pos : e.pos+e.size]
			switch {
			case e.v2 && len(raw) >= batch.HeaderSize:
				e.crc = batch.ComputeCRC(raw)
			case !e.v2 && len(raw) >= 16:
				e.crc = batch.LegacyCRC(raw)
			default:
				e.size = -1 // too short: checkCRC says so itself
			}
			e.pos += off
		}
	}
	var wg sync.WaitGroup
	for i := 1; i < parts; i++ {
		if es := s.crcs[starts[i]:starts[i+1]]; len(es) > 0 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				hash(es)
			}()
		}
	}
	hash(s.crcs[starts[0]:starts[1]])
	wg.Wait()
}

// crcOf is the checksum hashPar computed for the entry of size bytes at
// pos (v2 or legacy), if it did. Entries are asked for in file order.
func (s *scanner) crcOf(pos, size int64, v2 bool) (uint32, bool) {
	for s.crcAt < len(s.crcs) && s.crcs[s.crcAt].pos < pos {
		s.crcAt++
	}
	if s.crcAt < len(s.crcs) {
		if e := &s.crcs[s.crcAt]; e.pos == pos && e.size == size && e.v2 == v2 {
			return e.crc, true
		}
	}
	return 0, false
}
