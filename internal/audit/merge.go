package audit

import (
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"

	"github.com/kseg/kseg/segment"
)

// findMeta is what the audit keeps beside each finding until finish.
type findMeta struct {
	// ord is the ordinal of the batch or skipped region the finding is
	// about (0: none, such as an index or snapshot entry); start and end
	// are its bytes in its file.
	ord        int64
	start, end int64
	explained  bool // compaction can cause it
	removed    bool // a sequence gap filled later by an out-of-order batch
	overlap    bool // a segment overlap, whose cause finish settles
}

// runKey is what findings must share to merge.
type runKey struct {
	code      Code
	sev       Severity
	pid       int64
	epoch     int16
	explained bool
}

// run is a merged sequence of findings about adjacent batches.
type run struct {
	key            runKey
	first, last    Finding
	start          int64 // the first batch's or region's first byte
	lastOrd, end   int64
	n, count       int64
	minOff, maxOff int64
	detail         []BatchDetail
}

func newRun(f Finding, m findMeta, detail bool) *run {
	r := &run{first: f, start: m.start, minOff: None, maxOff: None}
	r.add(f, m, detail)
	return r
}

func (r *run) add(f Finding, m findMeta, detail bool) {
	r.last, r.lastOrd, r.end = f, m.ord, m.end
	r.n++
	r.count += f.Count
	if f.FirstOffset != None && (r.minOff == None || f.FirstOffset < r.minOff) {
		r.minOff = f.FirstOffset
	}
	if f.LastOffset != None {
		r.maxOff = max(r.maxOff, f.LastOffset)
	}
	if detail {
		r.detail = append(r.detail, BatchDetail{File: f.File, Position: f.Position, FirstOffset: f.FirstOffset, LastOffset: f.LastOffset,
			BaseSequence: f.BaseSequence, LastSequence: f.LastSequence, Count: f.Count, Message: f.Message})
	}
}

// adjacent reports whether a finding about batch m extends the run: the
// batch right after the run's last one, and for corrupt regions, bytes
// that touch.
func (r *run) adjacent(f *Finding, m findMeta) bool {
	if m.ord != r.lastOrd+1 {
		return false
	}
	return f.Code != CorruptBatch || (f.File == r.last.File && m.start == r.end)
}

// final is the finding the run gives: its first for a run of one.
func (r *run) final() Finding {
	if r.n > 1 {
		return r.finding()
	}
	return r.first
}

// finding is the run as one finding.
func (r *run) finding() Finding {
	f := r.first
	f.LastFile, f.LastPosition = r.last.File, r.last.Position
	f.FirstOffset, f.LastOffset = r.minOff, r.maxOff
	f.LastSequence = r.last.LastSequence
	f.Count, f.BatchCount = r.count, r.n
	f.Batches = r.detail
	f.Message = r.message()
	return f
}

// where is the run's extent in the files.
func (r *run) where() string {
	a, b := &r.first, &r.last
	if a.File == b.File {
		return fmt.Sprintf("positions %d..%d of %s", a.Position, b.Position, filepath.Base(a.File))
	}
	return fmt.Sprintf("from %s@%d to %s@%d", filepath.Base(a.File), a.Position, filepath.Base(b.File), b.Position)
}

func (r *run) message() string {
	f, l := &r.first, &r.last
	span := fmt.Sprintf("%d consecutive batches (offsets %d..%d, %s)", r.n, r.minOff, r.maxOff, r.where())
	seqs := fmt.Sprintf("sequences %d..%d", f.BaseSequence, l.LastSequence)
	switch f.Code {
	case OffsetGap:
		if f.FirstOffset <= f.RelatedOffset {
			return fmt.Sprintf("offsets go backwards in %s: each starts at or below offsets already in the log (up to %d); %d offsets repeated", span, l.RelatedOffset, r.count)
		}
		return fmt.Sprintf("offsets are missing before each of %s: %d offsets missing in all, the first gap before offset %d", span, r.count, f.FirstOffset)
	case SequenceGap:
		return fmt.Sprintf("producer %d (epoch %d) skips sequences before each of %s, %s: %d sequences missing in all, the first gap after offset %d", f.ProducerID, f.ProducerEpoch, span, seqs, r.count, f.RelatedOffset)
	case DuplicateSequence:
		return fmt.Sprintf("producer %d (epoch %d) repeats sequences in %s, %s: %d sequences written twice; the first copy of the first batch is at offset %d", f.ProducerID, f.ProducerEpoch, span, seqs, r.count, f.RelatedOffset)
	case SequenceRegression:
		return fmt.Sprintf("producer %d (epoch %d) goes back in sequence in %s, %s, without an epoch change; the first: %s", f.ProducerID, f.ProducerEpoch, span, seqs, f.Message)
	case EpochRegression:
		return fmt.Sprintf("producer %d writes with epoch %d after a higher epoch in %s: a fenced (zombie) producer's batches are in the log", f.ProducerID, f.ProducerEpoch, span)
	case CorruptBatch:
		return fmt.Sprintf("%d corrupt regions that touch were skipped, %d bytes from position %d to %d of %s; the first: %s", r.n, r.end-r.start, r.start, r.end, filepath.Base(f.File), f.Message)
	}
	return fmt.Sprintf("%s: %s", span, f.Message)
}

// unreadable marks err as ErrUnreadable and locates it (see locate).
func unreadable(file string, off int64, err error) error {
	return fmt.Errorf("%w: %w", ErrUnreadable, locate(file, off, err))
}

// locate makes errors.As find a *segment.Error with the file and byte
// offset (-1 when no byte applies, such as a file that cannot be opened).
// A *fs.PathError gives way to its operation and cause, and a walker error
// to its cause, so that the path is not said twice.
func locate(file string, off int64, err error) error {
	var se *segment.Error
	if errors.As(err, &se) {
		return err
	}
	var pe *fs.PathError
	switch {
	case errors.As(err, &pe) && (file == "" || file == pe.Path):
		file, err = pe.Path, fmt.Errorf("%s: %w", pe.Op, pe.Err)
	case errors.Is(err, segment.ErrNoPartitions):
		err = segment.ErrNoPartitions
	}
	return &segment.Error{File: file, Offset: off, Err: err}
}
