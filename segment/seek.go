package segment

import (
	"fmt"
	"io"
	"math"
	"path/filepath"
	"strings"

	"github.com/kseg/kseg/batch"
	"github.com/kseg/kseg/index"
	"github.com/kseg/kseg/internal/rfile"
)

// Query is what a command asks of every partition it reads: an offset
// range [From, To) and a filter. Apply turns it into each partition's
// Window, resolved against the partition's own log: on files by the
// broker's seek (the segment by its base offset, then the .index or
// .timeindex entry at or before the target, checked against the log),
// on remote segments by their base offsets and a scan, on kafka:// by the
// broker (ListOffsets; the fetched reader's OffsetRange).
type Query struct {
	From, To Bound
	Filter   Filter
	// Note is told when an index cannot be used (missing, stale, corrupt)
	// and a scan replaces it; the answer is the same, only slower.
	Note func(string)
}

// Active tells that the query selects anything.
func (q *Query) Active() bool {
	return q != nil && (q.From.Kind != BoundDefault || q.To.Kind != BoundDefault || q.Filter.Active())
}

// Apply gives every partition of parts its Window and leaves out the
// segments that hold no offset of it (by their base offsets: a segment
// ends before the next one's base offset). Without an active query parts
// are returned unchanged.
func (q *Query) Apply(parts []Partition) ([]Partition, error) {
	if !q.Active() {
		return parts, nil
	}
	out := make([]Partition, len(parts))
	for i := range parts {
		p, err := q.partition(parts[i])
		if err != nil {
			return nil, err
		}
		out[i] = p
	}
	return out, nil
}

func (q *Query) partition(p Partition) (Partition, error) {
	w := &Window{From: math.MinInt64, To: Unbounded, Note: q.Note}
	if q.Filter.Active() {
		f := q.Filter
		w.Filter = &f
	}
	ranged := false
	for _, s := range p.Segments {
		ranged = ranged || s.Ranged
	}
	segs := p.Segments
	if !ranged {
		var err error
		if w.From, err = q.resolve(q.From, segs, true, w); err != nil {
			return p, err
		}
		if w.To, err = q.resolve(q.To, segs, false, w); err != nil {
			return p, err
		}
	}
	kept := make([]Segment, 0, len(segs))
	for i, s := range segs {
		if !ranged && !s.unnamed {
			if s.BaseOffset >= w.To && i > 0 {
				continue // starts at or past the end (the first is kept to say so)
			}
			if i+1 < len(segs) && !segs[i+1].unnamed && segs[i+1].BaseOffset > s.BaseOffset && segs[i+1].BaseOffset <= w.From {
				continue // ends before the start
			}
		}
		s.Window = w
		kept = append(kept, s)
	}
	p.Segments = kept
	p.window = w
	return p, nil
}

// resolve is a bound's offset in the log of segs (from: the start of the
// range, else its end).
func (q *Query) resolve(b Bound, segs []Segment, from bool, w *Window) (int64, error) {
	switch b.Kind {
	case BoundOffset:
		return b.Offset, nil
	case BoundEarliest:
		if from {
			return math.MinInt64, nil
		}
		return math.MinInt64, nil // an empty range
	case BoundLatest:
		return Unbounded, nil // from: nothing is past the end; to: no end
	case BoundTime:
		off, ok, err := offsetForTime(segs, b.Millis, w)
		if err != nil || ok {
			return off, err
		}
		return Unbounded, nil
	}
	if from {
		return math.MinInt64, nil
	}
	return Unbounded, nil
}

// Window is the partition's window after Query.Apply (nil before, or
// without an active query).
func (p *Partition) Window() *Window { return p.window }

// OpenSource opens the segment's bytes: its file, or what its Open gives.
// With a Window, the source carries it and, for a file whose range starts
// after its base offset, starts at the seek's position (seekOffset).
func (seg Segment) OpenSource() (Source, io.Closer, error) {
	var src Source
	var closer io.Closer
	if seg.Open != nil {
		s, c, err := seg.Open()
		if err != nil {
			return Source{}, nil, Locate(seg.Path, -1, err)
		}
		src, closer = s, c
	} else {
		f, info, err := rfile.OpenInfo(seg.Path)
		if err != nil {
			return Source{}, nil, err
		}
		if info.Dir {
			f.Close()
			return Source{}, nil, &Error{File: seg.Path, Offset: -1, Err: ErrIsDirectory}
		}
		src, closer = Source{Name: seg.Path, R: f, Size: info.Size}, f
	}
	w := seg.Window
	if w == nil {
		return src, closer, nil
	}
	if r, ok := src.R.(interface{ OffsetRange() (int64, int64) }); ok && seg.Ranged {
		c := *w
		c.From, c.To = r.OffsetRange()
		w = &c
	}
	src.Window = w
	if (seg.Open == nil || seg.Indexed) && w.From > seg.BaseOffset && !w.Empty() {
		src.Start = seekOffset(seg.Path, seg.BaseOffset, src, w.From, w)
	}
	return src, closer, nil
}

// seekBlock is the read size of a seek's checks: a batch header or two,
// not the 1 MiB a scan reads at a time.
const seekBlock = 4 << 10

// seekScanLimit bounds the bytes a check scans after an index position
// (Kafka indexes every 4 KiB by default).
const seekScanLimit = 8 << 20

// indexPath is the index file of kind ext (".index", ".timeindex") next to
// the log at path, or "" when path is not named like a log.
func indexPath(path, ext string) string {
	stem, ok := strings.CutSuffix(path, ".log")
	if !ok {
		return ""
	}
	return stem + ext
}

// seekOffset is where to start framing the log src (at path) to find the
// batches holding target and after: the position of the .index entry at or
// before target, when a batch starts there with a valid checksum, a base
// offset at or before target and at or before the entry's offset (so every
// batch before it holds only offsets below target). Otherwise 0 (a scan
// from the start), with a note saying why.
func seekOffset(path string, base int64, src Source, target int64, w *Window) int64 {
	ip := indexPath(path, ".index")
	if ip == "" {
		return 0
	}
	x, closer, err := openOffsetIndex(ip, base)
	if err != nil {
		w.note(fmt.Sprintf("%s: %v; scanning %s from its start", ip, err, filepath.Base(path)))
		return 0
	}
	defer closer.Close()
	e, found, err := x.Lookup(target)
	if err != nil {
		w.note(fmt.Sprintf("%s: %v; scanning %s from its start", ip, err, filepath.Base(path)))
		return 0
	}
	if !found {
		return 0
	}
	if why := framesAt(src, int64(e.Position), func(in *BatchInfo) string {
		if in.BaseOffset > target || in.BaseOffset > e.Offset {
			return fmt.Sprintf("holds offsets from %d", in.BaseOffset)
		}
		return ""
	}); why != "" {
		w.note(fmt.Sprintf("%s: the entry for offset %d points at byte %d of %s, which %s; scanning it from its start",
			ip, e.Offset, e.Position, filepath.Base(path), why))
		return 0
	}
	return int64(e.Position)
}

// openOffsetIndex opens the offset index at path of a segment whose base
// offset is base (an index named otherwise, as LocalTieredStorage names
// them, is read with the segment's base offset).
func openOffsetIndex(path string, base int64) (*index.OffsetIndex, io.Closer, error) {
	f, info, err := rfile.OpenInfo(path)
	if err != nil {
		return nil, nil, err
	}
	return index.NewOffsetIndex(f, info.Size, base, path), f, nil
}

// framesAt checks that an entry with a valid checksum starts at pos of src
// and that check (given its summary) finds nothing wrong; it returns what
// is wrong, or "".
func framesAt(src Source, pos int64, check func(*BatchInfo) string) string {
	if pos < 0 || pos >= src.Size {
		return "is past its end"
	}
	st := NewStream(Source{Name: src.Name, R: src.R, Size: src.Size, Start: pos}, Options{VerifyCRC: true, BlockSize: seekBlock, LenientTail: true})
	if !st.Next() {
		if err := st.Err(); err != nil {
			return "frames no batch (" + err.Error() + ")"
		}
		return "frames no batch"
	}
	in, err := st.Batch().Info()
	if err != nil {
		return "frames no batch (" + err.Error() + ")"
	}
	return check(&in)
}

// offsetForTime is the offset of the first record, in offset order, of
// the first batch whose largest timestamp is at or after ms that has a
// record at or after ms: Kafka's ListOffsets by timestamp. ok is false
// when there is none. Local segments are passed over by their time
// indexes when those check out against the log (timeStart), else
// scanned; remote segments are scanned.
func offsetForTime(segs []Segment, ms int64, w *Window) (int64, bool, error) {
	noted := false
	for _, seg := range segs {
		var start int64
		if seg.Open == nil || seg.Indexed {
			pos, skip := timeStart(seg, ms, w)
			if skip {
				continue
			}
			start = pos
		} else if !noted {
			noted = true
			w.note(fmt.Sprintf("%s: a time is found by scanning the batch headers of segments held elsewhere", seg.Path))
		}
		off, ok, err := firstAtOrAfter(seg, start, ms)
		if err != nil || ok {
			return off, ok, err
		}
	}
	return 0, false, nil
}

// firstAtOrAfter scans seg from byte start for the first record whose
// batch's largest timestamp and own timestamp are at or after ms.
func firstAtOrAfter(seg Segment, start, ms int64) (int64, bool, error) {
	src, closer, err := seg.OpenSource()
	if err != nil {
		return 0, false, err
	}
	if closer != nil {
		defer closer.Close()
	}
	src.Start, src.Window = start, nil
	st := NewStream(src, Options{BlockSize: windowBlock}) // a short scan, usually

	for st.Next() {
		b := st.Batch()
		in, err := b.Info()
		if err != nil {
			return 0, false, err
		}
		if in.MaxTimestamp < ms {
			continue
		}
		if b.IsLegacy() {
			it, err := b.InnerIter()
			if err != nil {
				return 0, false, err
			}
			for it.Next() {
				if m := it.Message(); m.Timestamp >= ms {
					return m.Offset, true, nil
				}
			}
			continue
		}
		h := &b.Header
		if h.TimestampType() == batch.LogAppendTime {
			return h.BaseOffset, true, nil
		}
		br, err := b.Records()
		if err != nil {
			return 0, false, err
		}
		var r batch.Record
		for {
			ok, err := br.Next(&r)
			if err != nil {
				return 0, false, Locate(src.Name, b.Pos, err)
			}
			if !ok {
				break
			}
			if h.BaseTimestamp+r.TimestampDelta >= ms {
				return h.BaseOffset + int64(r.OffsetDelta), true, nil
			}
		}
	}
	return 0, false, st.Err()
}

// timeStart is where a scan of the local segment seg for the first record
// at or after ms may start (skip: the segment holds none), from its
// .timeindex and .index. Every entry used is checked against the log:
// the offset entry's position frames a batch, and the batch holding a
// time entry's offset has that entry's timestamp as its largest, as the
// broker writes them. A segment whose indexes do not check out is scanned
// from its start, with a note.
func timeStart(seg Segment, ms int64, w *Window) (pos int64, skip bool) {
	tp, op := indexPath(seg.Path, ".timeindex"), indexPath(seg.Path, ".index")
	if tp == "" {
		return 0, false
	}
	base := filepath.Base(seg.Path)
	fail := func(why string) (int64, bool) {
		w.note(fmt.Sprintf("%s: %s; scanning %s from its start for the time", filepath.Base(tp), why, base))
		return 0, false
	}
	f, info, err := rfile.OpenInfo(seg.Path)
	if err != nil {
		return 0, false // the scan reports it
	}
	defer f.Close()
	src := Source{Name: seg.Path, R: f, Size: info.Size}
	tf, tinfo, err := rfile.OpenInfo(tp)
	if err != nil {
		return fail(err.Error())
	}
	defer tf.Close()
	ti := index.NewTimeIndex(tf, tinfo.Size, seg.BaseOffset, tp)
	oi, oc, err := openOffsetIndex(op, seg.BaseOffset)
	if err != nil {
		return fail(err.Error())
	}
	defer oc.Close()
	if max, ok, why := segmentMaxTime(src, ti, oi); ok && max < ms {
		return 0, true
	} else if why != "" {
		return fail(why)
	}
	e, found, err := ti.Lookup(ms - 1)
	if err != nil {
		return fail(err.Error())
	}
	if !found {
		return 0, false // the first entry is at or after ms already
	}
	at, why := timeEntryAt(src, oi, e)
	if why == "" {
		why = framesAt(src, at, func(*BatchInfo) string { return "" })
	}
	if why != "" {
		return fail(why)
	}
	return at, false
}

// segmentMaxTime is the largest timestamp in the log src: its time
// index's last entry (checked: the batch holding its offset has that
// largest timestamp) and the batches after the offset index's last entry,
// scanned. ok is false when it cannot be known that way (an index still
// preallocated, an active segment's); why says what did not check out.
func segmentMaxTime(src Source, ti *index.TimeIndex, oi *index.OffsetIndex) (max int64, ok bool, why string) {
	n, m := ti.Entries(), oi.Entries()
	if n == 0 || m == 0 {
		return 0, false, ""
	}
	last, err := ti.Entry(n - 1)
	if err != nil {
		return 0, false, err.Error()
	}
	lo, err := oi.Entry(m - 1)
	if err != nil {
		return 0, false, err.Error()
	}
	if (n > 1 && last.Offset == ti.BaseOffset()) || (m > 1 && lo.Offset == oi.BaseOffset()) {
		return 0, false, "" // zero padding: a preallocated (active) index
	}
	max, covered := last.Timestamp, false
	st := NewStream(Source{Name: src.Name, R: src.R, Size: src.Size, Start: int64(lo.Position)}, Options{BlockSize: seekBlock, LenientTail: true})
	first := true
	for st.Next() {
		b := st.Batch()
		in, err := b.Info()
		if err != nil {
			return 0, false, "the log does not frame after the last offset entry (" + err.Error() + ")"
		}
		if first {
			// Headers only: the offsets must agree with the entry (the
			// checksum is checked where a scan starts, not here).
			first = false
			if b.Pos != int64(lo.Position) || in.BaseOffset > lo.Offset || in.LastOffset < in.BaseOffset {
				return 0, false, "the last offset entry does not frame its batch"
			}
		}
		if in.BaseOffset <= last.Offset && last.Offset <= in.LastOffset {
			if in.MaxTimestamp != last.Timestamp {
				return 0, false, fmt.Sprintf("its last entry (%d at offset %d) does not match the batch holding that offset (largest timestamp %d)", last.Timestamp, last.Offset, in.MaxTimestamp)
			}
			covered = true
		}
		max = maxI(max, in.MaxTimestamp)
		if b.Pos-int64(lo.Position) > seekScanLimit {
			return 0, false, ""
		}
	}
	if st.Err() != nil || first {
		return 0, false, "the log does not frame at the last offset entry"
	}
	if !covered {
		if _, why := timeEntryAt(src, oi, last); why != "" {
			return 0, false, why
		}
	}
	return max, true, ""
}

func maxI(a, b int64) int64 {
	if a > b {
		return a
	}
	return b
}

// validEntry checks an entry's stored checksum.
func validEntry(b *Batch, raw []byte) bool {
	if b.IsLegacy() {
		m, err := batch.ParseLegacy(raw)
		return err == nil && m.Valid()
	}
	return batch.ValidCRC(raw)
}

// timeEntryAt is the position of the batch the offset index gives for the
// time entry e's offset, checked: a batch with a valid checksum starts
// there, and the batch holding e's offset, found by scanning on from it,
// has e's timestamp as its largest. why says what did not check out.
func timeEntryAt(src Source, oi *index.OffsetIndex, e index.TimeEntry) (pos int64, why string) {
	oe, found, err := oi.Lookup(e.Offset)
	if err != nil {
		return 0, err.Error()
	}
	if found {
		pos = int64(oe.Position)
	}
	if pos < 0 || pos >= src.Size {
		return 0, fmt.Sprintf("the offset entry for %d points past the end of the log", oe.Offset)
	}
	st := NewStream(Source{Name: src.Name, R: src.R, Size: src.Size, Start: pos}, Options{BlockSize: seekBlock, LenientTail: true})
	for st.Next() {
		b := st.Batch()
		in, err := b.Info()
		if err != nil {
			break
		}
		if b.Pos == pos && (in.BaseOffset > e.Offset || in.LastOffset < in.BaseOffset) {
			break
		}
		if in.BaseOffset > e.Offset || b.Pos-pos > seekScanLimit {
			break
		}
		if e.Offset <= in.LastOffset {
			if in.MaxTimestamp != e.Timestamp {
				break
			}
			return pos, ""
		}
	}
	return 0, fmt.Sprintf("the entry %d at offset %d does not match the batches of the log there", e.Timestamp, e.Offset)
}
