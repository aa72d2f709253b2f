package segment

// readAhead reads the block after the scanner's window on another
// goroutine while the window's entries are framed and checked (audit's
// CRC scan: the copy out of the page cache on one core, the checksums on
// the other). It is used for local files only (Options.ReadAhead through
// OpenFile): an *os.File's ReadAt is safe beside the scanner's own reads.
//
// Buffers: cur is the allocation the window lies in, spare the one the
// next block is read into, at spare[raSlack:]. When the scanner moves its
// window to an entry that starts at most raSlack bytes before the end of
// the current window, the entry's start is copied in front of the block
// read ahead and the buffers swap; otherwise (a resync, a larger entry, a
// failed or short read) the scanner reads synchronously as without it.
type readAhead struct {
	cur, spare []byte
	off        int64 // file offset of spare[raSlack]
	m          int
	err        error
	done       chan struct{}
	pending    bool
	hits       int // windows moved onto a block read ahead (tests)
}

// raSlack is how much of an entry cut by the window's end the next block
// can take in front of it without a new read.
const raSlack = 64 << 10

// wait waits for a read in flight, so that no buffer is written behind
// the scanner's back.
func (ra *readAhead) wait() {
	if ra.pending {
		<-ra.done
		ra.pending = false
	}
}

// use moves s's window to [off, off+n) from the block read ahead, if it
// covers it; it reports false when the scanner must read itself.
func (ra *readAhead) use(s *scanner, off int64, n int) ([]byte, bool) {
	if !ra.pending {
		return nil, false
	}
	ra.wait()
	end := s.winStart + int64(s.winLen)
	carry := end - off
	if ra.err != nil || ra.off != end || s.winLen == 0 || off < s.winStart || carry < 0 || carry > raSlack || off+int64(n) > end+int64(ra.m) {
		return nil, false
	}
	c := int(carry)
	copy(ra.spare[raSlack-c:raSlack], s.buf[int(off-s.winStart):s.winLen])
	ra.cur, ra.spare = ra.spare, ra.cur
	s.buf = ra.cur[raSlack-c : raSlack+ra.m]
	s.winStart, s.winLen = off, c+ra.m
	ra.hits++
	ra.start(s)
	return s.buf[:n], true
}

// start reads the block after s's window into spare, on another goroutine.
func (ra *readAhead) start(s *scanner) {
	off := s.winStart + int64(s.winLen)
	want := int64(s.block)
	if rem := s.end - off; rem < want {
		want = rem
	}
	if want <= 0 || s.open {
		return
	}
	if cap(ra.spare) < raSlack+s.block {
		ra.spare = make([]byte, raSlack+s.block)
	}
	ra.spare = ra.spare[:cap(ra.spare)]
	if ra.done == nil {
		ra.done = make(chan struct{}, 1)
	}
	buf := ra.spare[raSlack : raSlack+int(want)]
	r := s.r
	ra.off, ra.pending = off, true
	go func() {
		m, err := r.ReadAt(buf, off)
		if m == len(buf) {
			err = nil
		}
		ra.m, ra.err = m, err
		ra.done <- struct{}{}
	}()
}
