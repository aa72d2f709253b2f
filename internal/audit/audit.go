package audit

import (
	"errors"
	"fmt"
	"math"
	"path/filepath"
	"sort"
	"strings"

	"github.com/kseg/kseg/batch"
	"github.com/kseg/kseg/index"
	"github.com/kseg/kseg/segment"
)

// Options tune an audit.
type Options struct {
	// Compacted says the topic has cleanup.policy=compact even when the
	// files show no sign of the cleaner yet.
	Compacted bool
	// SkipCRC trusts every batch's CRC: a pure header scan. Corrupt
	// batches are then found only when they cannot be framed.
	SkipCRC bool
	// Detail keeps, in a finding that covers several batches, the finding
	// of each batch (Finding.Batches).
	Detail bool

	// readAhead is segment.Options.ReadAhead for each file: each sets it
	// for a partition audited alone with cores to spare.
	readAhead int
}

// ringSize is how many recent batches per producer are kept to say where
// the first copy of a duplicate is (the broker keeps 5).
const ringSize = 16

// ErrUnreadable marks input the audit could not open or read at all (as
// opposed to corrupt bytes, which are findings).
var ErrUnreadable = errors.New("unreadable input")

type batchRef struct {
	baseSeq, lastSeq int32
	base, last       int64
	file             string
	pos              int64
}

type gapRef struct {
	from, to int32 // missing sequences, inclusive
	finding  int64 // the finding's id (see rawAt)
	offset   int64 // the first offset of the batch after the gap
}

// producer is what the audit keeps per producer id.
type prodState struct {
	epoch    int16
	seenData bool
	// lastSeq is the highest sequence written in this epoch, NoSequence
	// before the first batch of the epoch.
	lastSeq int32
	ring    [ringSize]batchRef
	ringN   int
	gaps    []gapRef

	// The broker's view, as a producer snapshot records it: the last
	// appended batch of the current epoch.
	hasMeta     bool
	metaSeq     int32
	metaOffset  int64
	metaDelta   int32
	txnFirst    int64 // open transaction's first offset, -1 none
	txnFile     string
	txnPos      int64
	txnLastFile string // its last batch so far
	txnLastPos  int64
	txnBatches  int64
	firstOffset int64
	batches     int64
	lastData    int64
}

type abortRec struct {
	first   int64 // -1 when the marker closed no transaction the log shows
	file    string
	pos     int64
	matched bool
}

type snapFile struct {
	path string
	at   int64
}

type auditor struct {
	p    *Partition
	opts Options
	res  *Result
	sum  *Summary
	st   *segment.Stream // reused for each segment (and, from a worker, each partition)

	prods    map[int64]*prodState
	prevLast int64 // last offset of the previous batch, -1 before the first
	segBase0 int64 // first segment's base offset

	snaps    []snapFile
	nextSnap int

	aborts map[[2]int64]*abortRec

	nonIdem      int64
	nonIdemFirst Finding
	nonIdemFile  string // where the last non-idempotent batch is
	nonIdemPos   int64

	// Findings on their way to store (stream.go): raw holds the ids
	// rawBase.., outq the merged ones, open the runs that may grow.
	raw       []rawEntry
	rawBase   int64
	outq      []outEntry
	open      map[runKey]*run
	mergedOrd int64
	store     *store
	// Counts by severity that finish settles: findings compaction
	// explains (by their severity before that) and segment overlaps.
	explained [Error + 1]int
	nOverlap  int

	// ord numbers the batches and skipped regions in log order; cur is
	// the one being audited (ord 0 between them), which the findings added
	// meanwhile are about.
	ord int64
	cur findMeta

	// cleaner says why the log cleaner can explain a segment overlap
	// ("" when nothing does).
	cleaner string
	segs    []segExtent // the segments read so far, the current one last
	ovl     overlapRun  // the current segment's batches in an overlap
	ovlMax  int64       // last offset the earlier segments hold, -1 none

	br  batch.BatchReader
	rec batch.Record

	file string
	// afterCorrupt is set when bytes were skipped: the offsets of the
	// skipped batches are reported by the corrupt-batch finding, not
	// again as an offset gap.
	afterCorrupt bool
	// windowed: the segment is read through a window (--from/--to,
	// filters), whose edges and passed-over batches are no offset gap.
	windowed bool
}

// Run audits one partition. The error is non-nil only when a file cannot
// be opened or read (ErrUnreadable); damaged bytes become findings. The
// findings are in Result.Findings.
func Run(p *Partition, opts Options) (*Result, error) {
	return runWith(p, opts, &segment.Stream{})
}

// runWith is Run reading through st (a worker's stream, reused across
// partitions and segments: its block buffer is not made again).
func runWith(p *Partition, opts Options, st *segment.Stream) (*Result, error) {
	r, err := audit1(p, opts, false, st)
	if err != nil {
		return nil, err
	}
	s := r.held
	r.held = nil
	if s.n > 0 {
		r.Findings = make([]Finding, 0, s.n)
	}
	s.each(func(f *Finding) error { r.Findings = append(r.Findings, *f); return nil })
	return r, nil
}

// RunStream audits one partition as Run does, but keeps at most a few
// thousand findings in memory: the rest wait in a temporary file until
// they are read with Result.Each. Result.Findings starts empty. Close the
// result to remove the file.
func RunStream(p *Partition, opts Options) (*Result, error) {
	return audit1(p, opts, true, &segment.Stream{})
}

// runStream is RunStream reading through st (see runWith).
func runStream(p *Partition, opts Options, st *segment.Stream) (*Result, error) {
	return audit1(p, opts, true, st)
}

func newAuditor(p *Partition, opts Options, stream bool) *auditor {
	a := &auditor{
		p: p, opts: opts,
		res:      &Result{},
		prods:    map[int64]*prodState{},
		prevLast: -1,
		segBase0: -1,
		aborts:   map[[2]int64]*abortRec{},
		ovlMax:   -1,
		open:     map[runKey]*run{},
		store:    &store{stream: stream},
	}
	a.res.held = a.store
	a.sum = &a.res.Summary
	*a.sum = Summary{Partition: p.Name, Dir: p.Dir, Segments: len(p.Logs), LogStartOffset: None, LogEndOffset: None,
		TxnIndexes: len(p.TxnIndexes), Snapshots: len(p.Snapshots), Findings: map[Code]int{}, BySeverity: map[string]int{}}
	return a
}

func audit1(p *Partition, opts Options, stream bool, st *segment.Stream) (*Result, error) {
	a := newAuditor(p, opts, stream)
	a.st = st
	switch {
	case opts.Compacted:
		a.compacted("--compacted given")
	case p.CleanerFiles:
		a.compacted(".cleaned or .swap files present")
	default:
		if topic, _, ok := index.ParsePartitionDir(p.Name); ok && (topic == "__consumer_offsets" || topic == "__transaction_state") {
			a.compacted("internal topic " + topic + " is compacted")
		}
	}
	// Only these reasons name the cleaner: the others (a segment not
	// starting at its base offset) are also what a copied directory shows.
	a.cleaner = a.sum.CompactedReason
	if p.Whole {
		for _, s := range p.Snapshots {
			a.snaps = append(a.snaps, snapFile{s, baseOf(s)})
		}
	}
	for i, path := range p.Logs {
		if i == 0 {
			a.segBase0 = baseOf(path)
		}
		if err := a.scanFile(i, path); err != nil {
			a.store.close()
			return nil, err
		}
	}
	for ; a.nextSnap < len(a.snaps); a.nextSnap++ {
		a.compareSnapshot(a.snaps[a.nextSnap])
	}
	a.finish()
	return a.res, nil
}

func (a *auditor) compacted(reason string) {
	if !a.sum.Compacted {
		a.sum.Compacted = true
		a.sum.CompactedReason = reason
	}
}

// add records a finding and returns its index. explained marks what
// compaction can cause: it is downgraded to info on compacted partitions.
// A finding added while a batch or skipped region is being audited is
// about it, and may merge with its neighbours' in finish.
func (a *auditor) add(f Finding, explained bool) int64 {
	a.pump(false) // before the new finding joins: the caller may pin it
	f.Partition = a.p.Name
	if f.LastFile == "" {
		f.LastFile, f.LastPosition = f.File, f.Position
	}
	m := a.cur
	m.explained = explained
	if m.ord > 0 && f.BatchCount == 0 {
		f.BatchCount = 1
	}
	a.raw = append(a.raw, rawEntry{f: f, m: m})
	return a.rawBase + int64(len(a.raw)) - 1
}

// enter starts the audit of the next batch or skipped region, the bytes
// [start, end) of the current file; leave ends it.
func (a *auditor) enter(start, end int64) {
	a.ord++
	a.cur = findMeta{ord: a.ord, start: start, end: end}
	if len(a.outq) > 0 || len(a.raw) > 0 {
		a.pump(false)
	}
}

func (a *auditor) leave() { a.cur = findMeta{} }

// at fills the location fields of a finding from a batch header.
func at(code Code, sev Severity, file string, pos int64, h *batch.Header) Finding {
	f := Finding{Code: code, Severity: sev, File: file, Position: pos, ProducerID: None, ProducerEpoch: None,
		FirstOffset: None, LastOffset: None, RelatedOffset: None, BaseSequence: None, LastSequence: None}
	if h != nil {
		f.ProducerID, f.ProducerEpoch = h.ProducerID, h.ProducerEpoch
		f.FirstOffset, f.LastOffset = h.BaseOffset, h.LastOffset()
		f.BaseSequence, f.LastSequence = h.BaseSequence, h.LastSequence()
	}
	return f
}

func (a *auditor) scanFile(i int, path string) error {
	opts := segment.Options{KeepGoing: true, VerifyCRC: !a.opts.SkipCRC, OnRegion: a.region, ReadAhead: a.opts.readAhead}
	seg := segment.Segment{Path: path}
	if a.p.Remote != nil {
		seg = a.p.Remote[i]
	}
	st := a.st
	st.SetOptions(opts)
	err := st.OpenSegment(seg, 0)
	if err != nil {
		return unreadable(path, -1, err)
	}
	defer st.Close()
	a.file = path
	a.windowed = seg.Window != nil
	segBase := baseOf(path)
	a.startSegment(path, segBase)
	first := true
	for st.Next() {
		b := st.Batch()
		if b.IsLegacy() {
			a.enter(b.Pos, b.Pos+b.Size)
			a.legacy(b)
			a.leave()
			continue
		}
		h := b.Header
		var raw []byte
		if h.IsControl() {
			if raw, err = b.Bytes(); err != nil {
				return unreadable(path, b.Pos, err)
			}
		}
		if first {
			first = false
			if h.BaseOffset != segBase && segBase >= 0 && !a.windowed {
				a.compacted(fmt.Sprintf("segment %s starts at offset %d, not at its base offset %d", filepath.Base(path), h.BaseOffset, segBase))
			}
			// A base offset at or below offsets already read is an
			// overlap (its own finding), not a sign of compaction.
			if a.prevLast >= 0 && segBase >= 0 && segBase > a.prevLast+1 {
				a.compacted(fmt.Sprintf("segment %s has base offset %d after last offset %d", filepath.Base(path), segBase, a.prevLast))
			}
		}
		// Producer snapshots are taken at batch boundaries: compare each
		// one before the first batch at or past its offset.
		for a.nextSnap < len(a.snaps) && a.snaps[a.nextSnap].at <= h.BaseOffset {
			a.compareSnapshot(a.snaps[a.nextSnap])
			a.nextSnap++
		}
		a.enter(b.Pos, b.Pos+b.Size)
		a.batch(&h, b.Pos, raw)
		a.leave()
	}
	if err := st.Err(); err != nil {
		return unreadable(path, st.Tail(), err)
	}
	if rest := st.Size() - st.Tail(); rest > 0 {
		a.enter(st.Tail(), st.Size())
		fd := at(CorruptBatch, Warning, path, st.Tail(), nil)
		fd.Count = rest
		fd.Message = fmt.Sprintf("%d bytes at the end of the segment do not form a complete batch (a torn write, or a file copied while the broker was writing)", rest)
		a.add(fd, false)
		a.leave()
	}
	a.endSegment()
	return nil
}

// region turns a region the stream skipped into a finding.
func (a *auditor) region(r segment.Region) {
	a.enter(r.From, r.To)
	defer a.leave()
	skipped := r.To - r.From
	var ce *segment.ChecksumError
	var fd Finding
	switch {
	case errors.As(r.Cause, &ce) && ce.ShorterThanHeader:
		fd = at(CorruptBatch, Error, r.File, r.From, &ce.Header)
		fd.Message = fmt.Sprintf("entry of %d bytes is shorter than a v2 batch header; skipped %d bytes", ce.Size, skipped)
	case errors.As(r.Cause, &ce) && ce.Magic >= batch.MagicV2:
		fd = at(CorruptBatch, Error, r.File, r.From, &ce.Header)
		fd.Message = fmt.Sprintf("batch at offset %d fails its CRC-32C (stored %d, computed %d); skipped %d bytes", ce.Header.BaseOffset, ce.Stored, ce.Computed, skipped)
	case errors.As(r.Cause, &ce):
		fd = at(CorruptBatch, Error, r.File, r.From, nil)
		fd.Message = fmt.Sprintf("legacy message fails its CRC-32 (stored %d, computed %d); skipped %d bytes", ce.Stored, ce.Computed, skipped)
	default:
		// Locate a framing failure where the bad field is (a size field is
		// at the entry's byte 8, and Kafka names the entry).
		pos := r.From
		var se *segment.Error
		if errors.As(r.Cause, &se) && !errors.Is(r.Cause, segment.ErrRecordSize) {
			pos = se.Offset
		}
		fd = at(CorruptBatch, Error, r.File, pos, nil)
		cause := r.Cause
		if se != nil {
			cause = se.Err
		}
		fd.Message = fmt.Sprintf("cannot frame a batch here (%v); skipped %d bytes", cause, skipped)
		if !r.Resumed {
			fd.Message = fmt.Sprintf("cannot frame a batch here (%v); no valid batch follows in the remaining %d bytes", cause, skipped)
		}
	}
	fd.Count = skipped
	a.add(fd, false)
	a.afterCorrupt = true
}

// legacy accounts for a magic 0/1 entry: no producer id; its records and
// offsets are those of its inner messages, as count reports them.
func (a *auditor) legacy(b *segment.Batch) {
	in, err := b.Info()
	if err != nil {
		fd := at(CorruptBatch, Error, a.file, b.Pos, nil)
		fd.Count = b.Size
		fd.Message = fmt.Sprintf("legacy message cannot be decoded (%v); skipped %d bytes", unlocated(err), b.Size)
		a.add(fd, false)
		a.afterCorrupt = true
		return
	}
	a.sum.Batches++
	a.sum.Records += int64(in.Records)
	if a.sum.LogStartOffset == None {
		a.sum.LogStartOffset = in.BaseOffset
	}
	a.overlaps(b.Pos, in.BaseOffset, in.LastOffset, nil)
	a.prevLast = max(a.prevLast, in.LastOffset)
	a.sum.LogEndOffset = a.prevLast + 1
	a.countNonIdem(b.Pos, nil)
}

func unlocated(err error) error {
	var se *segment.Error
	if errors.As(err, &se) {
		return se.Err
	}
	return err
}

func (a *auditor) countNonIdem(pos int64, h *batch.Header) {
	a.sum.NonIdempotentBatches++
	if a.nonIdem == 0 {
		a.nonIdemFirst = at(NonIdempotentBatches, Info, a.file, pos, h)
	}
	a.nonIdem++
	a.nonIdemFile, a.nonIdemPos = a.file, pos
}

func (a *auditor) batch(h *batch.Header, pos int64, b []byte) {
	a.sum.Batches++
	a.sum.Records += int64(h.RecordCount)
	if a.sum.LogStartOffset == None {
		a.sum.LogStartOffset = h.BaseOffset
		if a.segBase0 >= 0 && h.BaseOffset > a.segBase0 && !a.windowed {
			fd := at(OffsetGap, Warning, a.file, pos, h)
			fd.RelatedOffset = a.segBase0
			fd.Count = h.BaseOffset - a.segBase0
			fd.Message = fmt.Sprintf("the first batch starts at offset %d although the segment's base offset is %d: %d offsets missing", h.BaseOffset, a.segBase0, fd.Count)
			a.add(fd, true)
		}
	}
	if h.HasDeleteHorizon() {
		why := fmt.Sprintf("batch at offset %d carries a delete horizon (written by the log cleaner)", h.BaseOffset)
		a.compacted(why)
		if a.cleaner == "" {
			a.cleaner = why
		}
	}
	// A batch of an overlap is the overlap's, and its producer's state
	// was already checked in the earlier segment.
	overlap := a.overlaps(pos, h.BaseOffset, h.LastOffset(), h)
	if a.prevLast >= 0 && !overlap {
		switch {
		case h.BaseOffset > a.prevLast+1 && !a.afterCorrupt && !a.windowed:
			fd := at(OffsetGap, Warning, a.file, pos, h)
			fd.RelatedOffset = a.prevLast
			fd.Count = h.BaseOffset - a.prevLast - 1
			fd.Message = fmt.Sprintf("offsets %d..%d are missing between the batch ending at %d and the batch starting at %d", a.prevLast+1, h.BaseOffset-1, a.prevLast, h.BaseOffset)
			a.add(fd, true)
		case h.BaseOffset <= a.prevLast:
			fd := at(OffsetGap, Error, a.file, pos, h)
			fd.RelatedOffset = a.prevLast
			fd.Count = min(h.LastOffset(), a.prevLast) - h.BaseOffset + 1
			fd.Message = fmt.Sprintf("offsets go backwards: the batch starts at %d but offsets up to %d are already in the log", h.BaseOffset, a.prevLast)
			a.add(fd, false)
		}
	}
	a.prevLast = max(a.prevLast, h.LastOffset())
	a.sum.LogEndOffset = a.prevLast + 1
	a.afterCorrupt = false

	if h.ProducerID < 0 {
		if !h.IsControl() {
			a.countNonIdem(pos, h)
		}
		return
	}
	a.sum.IdempotentBatches++
	if overlap {
		return
	}
	p := a.prods[h.ProducerID]
	if p == nil {
		p = &prodState{epoch: h.ProducerEpoch, lastSeq: batch.NoSequence, txnFirst: -1, firstOffset: h.BaseOffset, lastData: None}
		a.prods[h.ProducerID] = p
	}
	p.batches++
	if h.IsControl() {
		a.control(p, h, pos, b)
		return
	}
	a.data(p, h, pos)
}

// control handles a control batch of a producer: COMMIT and ABORT markers
// end its transaction.
func (a *auditor) control(p *prodState, h *batch.Header, pos int64, b []byte) {
	typ, err := a.controlType(h, b)
	if err != nil {
		fd := at(CorruptBatch, Error, a.file, pos, h)
		fd.Message = fmt.Sprintf("control batch at offset %d cannot be decoded: %v", h.BaseOffset, err)
		a.add(fd, false)
		return
	}
	if typ != batch.ControlCommit && typ != batch.ControlAbort {
		return
	}
	if typ == batch.ControlCommit {
		a.sum.Committed++
	} else {
		a.sum.Aborted++
	}
	if h.ProducerEpoch < p.epoch {
		fd := at(EpochRegression, Error, a.file, pos, h)
		fd.Message = fmt.Sprintf("%s marker of producer %d has epoch %d after epoch %d: a fenced producer's marker was written", typ.Name(), h.ProducerID, h.ProducerEpoch, p.epoch)
		a.add(fd, false)
		return
	}
	if h.ProducerEpoch > p.epoch {
		// Transaction version 2 bumps the epoch with every marker (and a
		// coordinator abort on fencing does too): a new epoch starts with
		// no sequence state.
		a.newEpoch(p, h.ProducerEpoch)
	}
	if p.txnFirst >= 0 {
		if typ == batch.ControlAbort {
			a.aborts[[2]int64{h.ProducerID, h.BaseOffset}] = &abortRec{first: p.txnFirst, file: a.file, pos: pos}
		}
		p.txnFirst = -1
		p.txnBatches = 0
		return
	}
	if typ == batch.ControlAbort {
		a.aborts[[2]int64{h.ProducerID, h.BaseOffset}] = &abortRec{first: -1, file: a.file, pos: pos}
	}
	fd := at(MarkerWithoutTransaction, Warning, a.file, pos, h)
	if !p.seenData && a.segBase0 > 0 {
		fd.Severity = Info
		fd.Message = fmt.Sprintf("%s marker of producer %d at offset %d ends no transaction in the log; it may have begun before the log start offset %d", typ.Name(), h.ProducerID, h.BaseOffset, a.segBase0)
	} else {
		fd.Message = fmt.Sprintf("%s marker of producer %d at offset %d ends no open transaction", typ.Name(), h.ProducerID, h.BaseOffset)
	}
	// The cleaner removes aborted data (and committed data superseded by
	// later keys) but keeps the marker until the delete horizon.
	a.add(fd, true)
}

func (a *auditor) controlType(h *batch.Header, b []byte) (batch.ControlType, error) {
	if err := a.br.Open(b, h); err != nil {
		return 0, err
	}
	ok, err := a.br.Next(&a.rec)
	if err != nil {
		return 0, err
	}
	if !ok {
		return 0, errors.New("control batch has no record")
	}
	return batch.ParseControlKey(a.rec.Key)
}

func (a *auditor) newEpoch(p *prodState, e int16) {
	p.epoch = e
	p.lastSeq = batch.NoSequence
	p.ringN = 0
	a.unpin(p.gaps)
	p.gaps = p.gaps[:0]
	p.hasMeta = false
}

func (p *prodState) push(r batchRef) {
	p.ring[p.ringN%ringSize] = r
	p.ringN++
}

// find returns the retained batch with exactly these sequences.
func (p *prodState) find(base, last int32) *batchRef {
	n := min(p.ringN, ringSize)
	for i := 0; i < n; i++ {
		r := &p.ring[(p.ringN-1-i)%ringSize]
		if r.baseSeq == base && r.lastSeq == last {
			return r
		}
	}
	return nil
}

// data checks a data batch of a producer against its state.
func (a *auditor) data(p *prodState, h *batch.Header, pos int64) {
	base, last := h.BaseSequence, h.LastSequence()
	firstBatch := !p.seenData
	p.seenData = true
	switch {
	case h.ProducerEpoch < p.epoch:
		fd := at(EpochRegression, Error, a.file, pos, h)
		fd.Message = fmt.Sprintf("producer %d writes with epoch %d after epoch %d: a fenced (zombie) producer's batch is in the log", h.ProducerID, h.ProducerEpoch, p.epoch)
		a.add(fd, false)
		return
	case h.ProducerEpoch > p.epoch:
		a.newEpoch(p, h.ProducerEpoch)
		if base != 0 && base != batch.NoSequence {
			fd := at(EpochBumpNonzeroSequence, Warning, a.file, pos, h)
			fd.Count = int64(base)
			fd.Message = fmt.Sprintf("producer %d starts epoch %d at sequence %d, not 0", h.ProducerID, h.ProducerEpoch, base)
			a.add(fd, true)
		}
	case base == batch.NoSequence:
	case firstBatch:
		// Data may precede the log start (retention), so any sequence is
		// acceptable — unless the log demonstrably starts at offset 0.
		if base != 0 && a.segBase0 == 0 {
			fd := at(SequenceGap, Error, a.file, pos, h)
			fd.Count = int64(base)
			fd.Message = fmt.Sprintf("the first batch of producer %d (epoch %d) starts at sequence %d although the log starts at offset 0: %d sequences missing", h.ProducerID, h.ProducerEpoch, base, base)
			a.add(fd, true)
		}
	case p.lastSeq == batch.NoSequence:
		// A marker bumped the epoch: the next batch must start at 0.
		if base != 0 {
			fd := at(EpochBumpNonzeroSequence, Warning, a.file, pos, h)
			fd.Count = int64(base)
			fd.Message = fmt.Sprintf("producer %d's first batch in epoch %d (after a transaction marker bumped it) starts at sequence %d, not 0", h.ProducerID, h.ProducerEpoch, base)
			a.add(fd, true)
		}
	default:
		a.sequence(p, h, pos, base, last)
	}
	if base != batch.NoSequence && last < base {
		fd := at(SequenceWrap, Info, a.file, pos, h)
		fd.Message = fmt.Sprintf("producer %d's sequence wraps past 2147483647 to 0 inside the batch at offset %d", h.ProducerID, h.BaseOffset)
		a.add(fd, false)
	}
	if base != batch.NoSequence {
		if p.lastSeq == batch.NoSequence || batch.SequenceAfter(last, p.lastSeq) {
			p.lastSeq = last
		}
		p.push(batchRef{baseSeq: base, lastSeq: last, base: h.BaseOffset, last: h.LastOffset(), file: a.file, pos: pos})
	}
	p.hasMeta, p.metaSeq, p.metaOffset, p.metaDelta = true, last, h.LastOffset(), h.LastOffsetDelta
	p.lastData = h.LastOffset()
	if h.IsTransactional() {
		if p.txnFirst < 0 {
			p.txnFirst, p.txnFile, p.txnPos = h.BaseOffset, a.file, pos
		}
		p.txnLastFile, p.txnLastPos = a.file, pos
		p.txnBatches++
	}
}

// sequence checks a batch in the producer's current epoch.
func (a *auditor) sequence(p *prodState, h *batch.Header, pos int64, base, last int32) {
	want := batch.IncrementSequence(p.lastSeq, 1)
	if base == want {
		if p.lastSeq == math.MaxInt32 {
			fd := at(SequenceWrap, Info, a.file, pos, h)
			fd.Message = fmt.Sprintf("producer %d's sequence wraps from 2147483647 to 0 at offset %d", h.ProducerID, h.BaseOffset)
			a.add(fd, false)
		}
		return
	}
	if batch.SequenceAfter(base, want) {
		missing := batch.SequenceDistance(want, base)
		fd := at(SequenceGap, Error, a.file, pos, h)
		fd.RelatedOffset = p.metaOffset
		fd.Count = missing
		fd.Message = fmt.Sprintf("producer %d (epoch %d) jumps from sequence %d (offset %d) to %d: %d sequences missing", h.ProducerID, h.ProducerEpoch, p.lastSeq, p.metaOffset, base, missing)
		i := a.add(fd, true)
		a.rawAt(i).pinned = true
		p.gaps = append(p.gaps, gapRef{from: want, to: batch.DecrementSequence(base, 1), finding: i, offset: h.BaseOffset})
		if len(p.gaps) > ringSize {
			a.unpin(p.gaps[:1])
			p.gaps = append(p.gaps[:0], p.gaps[1:]...)
		}
		return
	}
	// The batch goes backwards: a repeat, or one written out of order.
	if r := p.find(base, last); r != nil {
		fd := at(DuplicateSequence, Error, a.file, pos, h)
		fd.RelatedOffset = r.base
		fd.Count = int64(last) - int64(base) + 1
		fd.Message = fmt.Sprintf("producer %d (epoch %d) repeats sequences %d..%d; the first copy is at offset %d (%s, position %d)", h.ProducerID, h.ProducerEpoch, base, last, r.base, filepath.Base(r.file), r.pos)
		a.add(fd, false)
		return
	}
	for gi, g := range p.gaps {
		if !batch.SequenceAfter(g.from, base) && !batch.SequenceAfter(last, g.to) {
			fd := at(SequenceRegression, Error, a.file, pos, h)
			fd.RelatedOffset = g.offset
			fd.Count = int64(last) - int64(base) + 1
			fd.Message = fmt.Sprintf("producer %d (epoch %d) writes sequences %d..%d out of order, after the batch at offset %d that follows them", h.ProducerID, h.ProducerEpoch, base, last, g.offset)
			a.add(fd, false)
			if g.from == base && g.to == last {
				// The out-of-order batch fills the hole exactly: no data is
				// missing after all (unless the gap's finding has already
				// been let go: see window).
				if e := a.rawAt(g.finding); e != nil {
					e.m.removed = true
					e.pinned = false
				}
				p.gaps = append(p.gaps[:gi], p.gaps[gi+1:]...)
			}
			return
		}
	}
	fd := at(SequenceRegression, Error, a.file, pos, h)
	fd.RelatedOffset = p.metaOffset
	fd.Message = fmt.Sprintf("producer %d (epoch %d) goes back from sequence %d (offset %d) to %d without an epoch change", h.ProducerID, h.ProducerEpoch, p.lastSeq, p.metaOffset, base)
	if !batch.SequenceAfter(last, p.lastSeq) {
		fd.Code = DuplicateSequence
		fd.Count = int64(last) - int64(base) + 1
		fd.Message = fmt.Sprintf("producer %d (epoch %d) repeats sequences %d..%d already written in this epoch (the first copy is older than the last %d batches kept)", h.ProducerID, h.ProducerEpoch, base, last, ringSize)
	}
	a.add(fd, false)
}

// compareSnapshot compares a producer snapshot named N with the state
// replayed from the log up to offset N. Only contradictions count: a
// producer the log never shows may have written before the log start, and
// a producer the snapshot lacks may have expired.
func (a *auditor) compareSnapshot(s snapFile) {
	snap, err := index.ReadSnapshotFile(s.path)
	if err != nil {
		fd := at(SnapshotMismatch, Warning, s.path, 0, nil)
		var ie *index.Error
		if errors.As(err, &ie) && ie.Offset >= 0 {
			fd.Position = ie.Offset
		}
		fd.Message = fmt.Sprintf("producer snapshot at offset %d cannot be read: %v", s.at, err)
		a.add(fd, false)
		return
	}
	logStart := a.sum.LogStartOffset
	for i, e := range snap.Entries {
		p := a.prods[e.ProducerID]
		fd := at(SnapshotMismatch, Warning, s.path, int64(10+i*index.ProducerEntrySize), nil)
		fd.ProducerID, fd.ProducerEpoch = e.ProducerID, e.Epoch
		fd.FirstOffset = s.at
		if e.HasBatchMetadata() {
			fd.LastOffset = e.LastOffset
			fd.BaseSequence, fd.LastSequence = e.FirstSequence(), e.LastSequence
		}
		var diffs []string
		explained := false
		switch {
		case p == nil:
			if e.HasBatchMetadata() && logStart != None && e.LastOffset >= logStart && e.LastOffset < s.at && e.LastOffset < a.sum.LogEndOffset {
				diffs = append(diffs, fmt.Sprintf("it records a batch ending at offset %d but the log has no batch of this producer before offset %d", e.LastOffset, s.at))
				explained = true
			}
		case e.Epoch != p.epoch:
			diffs = append(diffs, fmt.Sprintf("epoch %d, but the log's is %d", e.Epoch, p.epoch))
			explained = true
		case e.HasBatchMetadata() && !p.hasMeta:
			if e.LastOffset >= logStart {
				diffs = append(diffs, fmt.Sprintf("it records a batch ending at offset %d in epoch %d but the log has none", e.LastOffset, e.Epoch))
			}
		case !e.HasBatchMetadata() && p.hasMeta:
			diffs = append(diffs, fmt.Sprintf("it records no batch in epoch %d but the log's last is at offset %d", e.Epoch, p.metaOffset))
		case e.HasBatchMetadata():
			if e.LastSequence != p.metaSeq {
				diffs = append(diffs, fmt.Sprintf("last sequence %d, log %d", e.LastSequence, p.metaSeq))
			}
			if e.LastOffset != p.metaOffset {
				diffs = append(diffs, fmt.Sprintf("last offset %d, log %d", e.LastOffset, p.metaOffset))
			}
			if e.OffsetDelta != p.metaDelta {
				diffs = append(diffs, fmt.Sprintf("offset delta %d, log %d", e.OffsetDelta, p.metaDelta))
			}
		}
		if p != nil {
			sf, sok := e.TxnFirstOffset()
			switch {
			case sok && sf < logStart:
			case sok != (p.txnFirst >= 0):
				diffs = append(diffs, fmt.Sprintf("open transaction %s, log %s", optOffset(sf, sok), optOffset(p.txnFirst, p.txnFirst >= 0)))
			case sok && sf != p.txnFirst:
				diffs = append(diffs, fmt.Sprintf("open transaction from offset %d, log from %d", sf, p.txnFirst))
			}
		}
		if len(diffs) == 0 {
			continue
		}
		fd.RelatedOffset = s.at
		fd.Message = fmt.Sprintf("snapshot %s disagrees with the log up to offset %d for producer %d: %s", filepath.Base(s.path), s.at, e.ProducerID, strings.Join(diffs, "; "))
		a.add(fd, explained)
	}
}

func optOffset(v int64, ok bool) string {
	if !ok {
		return "none"
	}
	return fmt.Sprintf("from offset %d", v)
}

// finish adds the end-of-log findings, resolves severities and fills in
// the summary.
func (a *auditor) finish() {
	pids := make([]int64, 0, len(a.prods))
	for id := range a.prods {
		pids = append(pids, id)
	}
	sort.Slice(pids, func(i, j int) bool { return pids[i] < pids[j] })
	a.sum.Producers = len(pids)
	for _, id := range pids {
		p := a.prods[id]
		a.res.Producers = append(a.res.Producers, ProducerState{ID: id, Epoch: p.epoch, LastSequence: p.lastSeq, LastOffset: p.lastData, Batches: p.batches})
		if p.txnFirst < 0 {
			continue
		}
		a.sum.Open++
		fd := at(UnterminatedTransaction, Warning, p.txnFile, p.txnPos, nil)
		fd.ProducerID, fd.ProducerEpoch = id, p.epoch
		fd.FirstOffset, fd.LastOffset = p.txnFirst, a.sum.LogEndOffset-1
		fd.LastFile, fd.LastPosition = p.txnLastFile, p.txnLastPos
		fd.Count, fd.BatchCount = p.txnBatches, p.txnBatches
		fd.Message = fmt.Sprintf("producer %d's transaction from offset %d (%d batches) has no COMMIT or ABORT marker by the end of the log (offset %d)", id, p.txnFirst, p.txnBatches, a.sum.LogEndOffset-1)
		a.add(fd, false)
	}
	if a.nonIdem > 0 && a.sum.IdempotentBatches > 0 {
		fd := a.nonIdemFirst
		fd.Count, fd.BatchCount = a.nonIdem, a.nonIdem
		fd.LastFile, fd.LastPosition = a.nonIdemFile, a.nonIdemPos
		fd.Message = fmt.Sprintf("%d batches without a producer id are mixed in with %d idempotent ones (the first at offset %d)", a.nonIdem, a.sum.IdempotentBatches, fd.FirstOffset)
		a.add(fd, false)
	}
	if a.p.Whole {
		a.compareTxnIndexes()
	}
	a.pump(true)
	a.settleCounts()
	a.store.settle = settle{compacted: a.sum.Compacted, cleaner: a.cleaner}
}

// compareTxnIndexes checks the aborted transactions the log shows against
// the .txnindex entries: producer id, first offset and last (marker) offset.
func (a *auditor) compareTxnIndexes() {
	logStart := a.sum.LogStartOffset
	for _, path := range a.p.TxnIndexes {
		x, err := index.OpenTxnIndex(path)
		if err != nil {
			fd := at(TxnIndexMismatch, Warning, path, 0, nil)
			fd.Message = fmt.Sprintf("cannot read the transaction index: %v", err)
			a.add(fd, false)
			continue
		}
		it := x.Iter()
		for it.Next() {
			t := it.Entry()
			r := a.aborts[[2]int64{t.ProducerID, t.LastOffset}]
			ok := r != nil && (r.first == t.FirstOffset || (t.FirstOffset < logStart && (r.first < 0 || r.first >= logStart)))
			if ok {
				r.matched = true
				continue
			}
			fd := at(TxnIndexMismatch, Error, path, it.ByteOffset(), nil)
			fd.ProducerID = t.ProducerID
			fd.FirstOffset, fd.LastOffset = t.FirstOffset, t.LastOffset
			explained := true
			switch {
			case r == nil:
				fd.Message = fmt.Sprintf("%s lists an aborted transaction of producer %d over offsets %d..%d but the log has no ABORT marker of that producer at offset %d", filepath.Base(path), t.ProducerID, t.FirstOffset, t.LastOffset, t.LastOffset)
			case r.first < 0:
				fd.Message = fmt.Sprintf("%s lists an aborted transaction of producer %d from offset %d but the log shows no data of it before the ABORT marker at %d", filepath.Base(path), t.ProducerID, t.FirstOffset, t.LastOffset)
				r.matched = true
			default:
				fd.RelatedOffset = r.first
				fd.Message = fmt.Sprintf("%s says producer %d's aborted transaction ending at %d began at offset %d; the log says %d", filepath.Base(path), t.ProducerID, t.LastOffset, t.FirstOffset, r.first)
				explained = t.FirstOffset < r.first
				r.matched = true
			}
			a.add(fd, explained)
		}
		if err := it.Err(); err != nil {
			fd := at(TxnIndexMismatch, Warning, path, it.ByteOffset(), nil)
			fd.Message = fmt.Sprintf("transaction index cannot be read to the end: %v", err)
			a.add(fd, false)
		}
		x.Close()
	}
	keys := make([][2]int64, 0, len(a.aborts))
	for k, r := range a.aborts {
		if !r.matched && r.first >= 0 {
			keys = append(keys, k)
		}
	}
	sort.Slice(keys, func(i, j int) bool { return keys[i][1] < keys[j][1] })
	for _, k := range keys {
		r := a.aborts[k]
		fd := at(TxnIndexMismatch, Error, r.file, r.pos, nil)
		fd.ProducerID = k[0]
		fd.FirstOffset, fd.LastOffset = r.first, k[1]
		fd.Message = fmt.Sprintf("producer %d's transaction over offsets %d..%d was aborted (marker at %d) but no .txnindex lists it", k[0], r.first, k[1], k[1])
		a.add(fd, false)
	}
}
