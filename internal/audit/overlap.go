package audit

import (
	"fmt"
	"path/filepath"
	"strings"

	"github.com/kseg/kseg/batch"
)

// segExtent is what the audit keeps of each segment read: its offsets.
type segExtent struct {
	path        string
	base        int64
	first, last int64 // lowest base offset and highest last offset, None when empty
}

func (e *segExtent) add(base, last int64) {
	if e.first == None || base < e.first {
		e.first = base
	}
	e.last = max(e.last, last)
}

// overlapRun gathers the current segment's batches that lie at or below
// the last offset the earlier segments hold.
type overlapRun struct {
	n                 int64
	firstPos, lastPos int64
	minOff, maxOff    int64
	detail            []BatchDetail
}

// startSegment begins a segment: its batches at or below the last offset
// read so far overlap the earlier segments.
func (a *auditor) startSegment(path string, base int64) {
	a.ovlMax = -1
	if len(a.segs) > 0 {
		a.ovlMax = a.prevLast
	}
	a.segs = append(a.segs, segExtent{path: path, base: base, first: None, last: None})
	a.ovl = overlapRun{}
}

// overlaps records a batch's offsets in the current segment's extent and
// reports whether the batch lies in an overlap with earlier segments (it
// then belongs to the overlap's finding). h is nil for legacy entries.
func (a *auditor) overlaps(pos, base, last int64, h *batch.Header) bool {
	a.segs[len(a.segs)-1].add(base, last)
	if a.ovlMax < 0 || base > a.ovlMax {
		return false
	}
	o := &a.ovl
	if o.n == 0 {
		o.firstPos, o.minOff, o.maxOff = pos, base, last
	}
	o.n++
	o.lastPos = pos
	o.minOff, o.maxOff = min(o.minOff, base), max(o.maxOff, last)
	if a.opts.Detail {
		d := BatchDetail{File: a.file, Position: pos, FirstOffset: base, LastOffset: last,
			BaseSequence: None, LastSequence: None, Count: min(last, a.ovlMax) - base + 1,
			Message: fmt.Sprintf("at or below offset %d, which earlier segments hold", a.ovlMax)}
		if h != nil {
			d.BaseSequence, d.LastSequence = h.BaseSequence, h.LastSequence()
		}
		o.detail = append(o.detail, d)
	}
	return true
}

// endSegment turns the segment's overlap, if any, into one finding. Its
// severity and likely cause are settled in finish, once the whole log has
// been read (a delete horizon may show up later).
func (a *auditor) endSegment() {
	o := &a.ovl
	if o.n == 0 {
		return
	}
	cur := a.segs[len(a.segs)-1]
	earlier := a.segs[:len(a.segs)-1]
	var with []segExtent
	for _, e := range earlier {
		if e.first != None && e.last >= o.minOff && e.first <= o.maxOff {
			with = append(with, e)
		}
	}
	if len(with) == 0 { // the batches lie wholly below what those segments hold
		for _, e := range earlier {
			if e.first != None && e.last >= o.minOff {
				with = append(with, e)
			}
		}
	}
	if len(with) == 0 { // cannot happen: ovlMax is an earlier segment's last offset
		*o = overlapRun{}
		return
	}
	efirst, elast := with[0].first, with[0].last
	names := make([]string, 0, len(with))
	for _, e := range with {
		efirst, elast = min(efirst, e.first), max(elast, e.last)
		names = append(names, filepath.Base(e.path))
	}
	if len(names) > 3 {
		names = append(names[:3], fmt.Sprintf("%d more", len(names)-3))
	}
	them := strings.Join(names, ", ")
	hi := min(o.maxOff, a.ovlMax)
	fd := at(SegmentOverlap, Error, cur.path, o.firstPos, nil)
	fd.LastFile, fd.LastPosition = cur.path, o.lastPos
	fd.RelatedOffset = with[0].base
	fd.BatchCount = o.n
	fd.Batches = o.detail
	this := filepath.Base(cur.path)
	lo, shi := max(o.minOff, efirst), min(hi, elast)
	if lo <= shi {
		fd.FirstOffset, fd.LastOffset = lo, shi
		fd.Message = fmt.Sprintf("segment %s overlaps %s: both hold offsets %d..%d. %d batches of %s (offsets %d..%d, positions %d..%d) lie at or below offset %d, which %s already holds (offsets %d..%d)",
			this, them, lo, shi, o.n, this, o.minOff, o.maxOff, o.firstPos, o.lastPos, a.ovlMax, them, efirst, elast)
	} else {
		fd.FirstOffset, fd.LastOffset = o.minOff, hi
		fd.Message = fmt.Sprintf("segment %s goes back below %s: %d batches of %s (offsets %d..%d, positions %d..%d) lie below offsets %d..%d, which %s already holds",
			this, them, o.n, this, o.minOff, o.maxOff, o.firstPos, o.lastPos, efirst, elast, them)
	}
	fd.Count = fd.LastOffset - fd.FirstOffset + 1
	// Its severity and the likely cause are settled at the end (settle).
	a.rawAt(a.add(fd, false)).m.overlap = true
	*o = overlapRun{}
}
