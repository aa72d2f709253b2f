package segment

import "runtime"

// Read-ahead: for a file the stream opened itself, with more than one CPU,
// the scanner reads the block after its window on another goroutine while
// the caller works on the current one (checks CRCs, decompresses, decodes
// records), so the copy out of the page cache overlaps the work. The
// window then moves to the other buffer: the tail of the old window (the
// entry that straddled the block end) is copied in front of the bytes read
// ahead. Anything unusual (a read error or a short read ahead, a jump
// backwards or past the block read ahead, a straddling entry longer than
// the room in front) discards the read-ahead and reads synchronously as
// before, so errors, their offsets and every output are those of the
// synchronous scanner.
type ahead struct {
	on      bool
	bufs    [2][]byte // each: front room, then a block
	cur     int       // the buffer holding the window (when pending is false or true)
	pending bool      // a read into bufs[cur^1] is in flight
	off     int64     // where the read ahead starts
	want    int       // bytes asked for
	got     int
	err     error
	done    chan struct{}
	hits    int // windows served from a read ahead (tests)
}

// aheadRoom is the room in front of a block read ahead, for the tail of
// the window before it.
func (s *scanner) aheadRoom() int { return s.block / 4 }

// enableAhead turns read-ahead on for the current source when it can help.
func (s *scanner) enableAhead() {
	s.ah.on = !s.open && runtime.GOMAXPROCS(0) > 1
}

// settle waits for a read in flight and discards it.
func (s *scanner) settle() {
	if s.ah.pending {
		<-s.ah.done
		s.ah.pending = false
	}
}

// startAhead reads the block at off into the other buffer on a goroutine.
func (s *scanner) startAhead(off int64) {
	a := &s.ah
	want := s.block
	if rem := s.end - off; int64(want) > rem {
		want = int(rem)
	}
	if want <= 0 {
		return
	}
	room := s.aheadRoom()
	o := a.cur ^ 1
	if cap(a.bufs[o]) < room+s.block {
		a.bufs[o] = make([]byte, room+s.block)
	}
	if a.done == nil {
		a.done = make(chan struct{}, 1)
	}
	a.off, a.want, a.got, a.err, a.pending = off, want, 0, nil, true
	dst, r := a.bufs[o][room:room+want], s.r
	go func() {
		a.got, a.err = r.ReadAt(dst, off)
		a.done <- struct{}{}
	}()
}

// windowAhead is window's miss path with read-ahead: bytes [off, off+n).
func (s *scanner) windowAhead(off int64, n int) ([]byte, error) {
	a := &s.ah
	if a.pending {
		<-a.done
		a.pending = false
		room := s.aheadRoom()
		winEnd := s.winStart + int64(s.winLen)
		tail := int(a.off - off)
		if a.err == nil && a.got == a.want && s.winLen > 0 && a.off == winEnd &&
			off >= s.winStart && tail >= 0 && tail <= room && off+int64(n) <= a.off+int64(a.got) {
			o := a.cur ^ 1
			copy(a.bufs[o][room-tail:room], s.buf[int(off-s.winStart):s.winLen])
			a.cur = o
			a.hits++
			s.buf = a.bufs[o][room-tail : room+a.got]
			s.winStart, s.winLen = off, len(s.buf)
			s.startAhead(a.off + int64(a.got))
			return s.buf[:n], nil
		}
	}
	// The synchronous read, as window does it, into the current buffer.
	want := max(s.block, n)
	if rem := s.end - off; int64(want) > rem {
		want = int(rem)
	}
	if want < n {
		return nil, errUnexpectedEOF
	}
	if cap(a.bufs[a.cur]) < want {
		a.bufs[a.cur] = make([]byte, max(want, s.aheadRoom()+s.block))
	}
	s.buf = a.bufs[a.cur][:want]
	m, err := s.r.ReadAt(s.buf, off)
	if m < n {
		s.winLen = 0
		if err == nil || err == errEOF {
			err = errUnexpectedEOF
		}
		return nil, err
	}
	s.winStart, s.winLen = off, m
	s.startAhead(off + int64(m))
	return s.buf[:n], nil
}
