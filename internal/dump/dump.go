// Package dump is kseg dump: kafka-dump-log's argument list (Parse), and
// the engine that prints segments, indexes and producer snapshots in
// kafka-dump-log's exact text, kseg's own text or NDJSON (Dumper), with the
// index checks against the log that --verify-index-only and kseg's lookup
// invariant need.
//
// The Dumper takes segments as package segment describes them: a file
// named by Path (dispatched on its suffix), or a log held elsewhere whose
// Open fetches it. Where the segments come from is the caller's concern.
package dump

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"math/bits"
	"path/filepath"
	"runtime"
	"sort"
	"strconv"
	"strings"

	"github.com/kseg/kseg/batch"
	"github.com/kseg/kseg/content"
	"github.com/kseg/kseg/index"
	"github.com/kseg/kseg/report"
	"github.com/kseg/kseg/segment"
)

// Format selects the dump output.
type Format int

const (
	// FormatKafka is kafka-dump-log's text, byte for byte.
	FormatKafka Format = iota
	// FormatKseg is kafka-dump-log's layout plus kseg's forensic extras
	// (header values, binary-safe content, codec sniffing, index checks).
	FormatKseg
	// FormatJSON is one JSON object per line (schema 2: a "file" object
	// opens each file; docs/json.md).
	FormatJSON
	// FormatJSONv1 is schema 1 of the JSON form: the file named on every
	// object, no "file" objects.
	FormatJSONv1
)

// DumpOptions mirrors kafka-dump-log's options plus kseg's.
type DumpOptions struct {
	PrintDataLog       bool
	DeepIteration      bool
	SkipRecordMetadata bool
	VerifyIndexOnly    bool
	IndexSanityCheck   bool
	MaxMessageSize     int
	MaxBytes           int64          // math.MaxInt32 is kafka-dump-log's default ("no limit")
	Parser             content.Parser // nil prints no contents
	Format             Format
	KeepGoing          bool // resynchronise after corrupt regions instead of stopping
	// Redact (--redact) prints "[redacted]" for every key, value and
	// header value; their sizes stay (keySize, valueSize, key_size, ...).
	Redact bool
	// KafkaTail (--files) keeps Kafka's verdict on a log whose framing
	// stops before its end: "Found N invalid bytes at the end", exit 0,
	// even when valid batches follow. kseg's forms fail there instead.
	// It also keeps Kafka's exception names in the errors of index checks
	// (java.nio.file.NoSuchFileException); kseg's forms say them plainly.
	KafkaTail       bool
	MaxDecompressed int
	Progress        *report.Progress // told of every batch read; nil for none

	// shown is the offset range the current source was asked for, when
	// its reader says (OffsetRanger); set per source, read by every
	// formatter through its pointer to these options.
	shown offsetRange
}

// DefaultDumpOptions are kafka-dump-log's defaults.
func DefaultDumpOptions() DumpOptions {
	return DumpOptions{MaxMessageSize: 5 * 1024 * 1024, MaxBytes: math.MaxInt32}
}

// Dumper dumps files like kafka-dump-log. Summaries accumulate across files
// and are written by Finish.
type Dumper struct {
	opts   DumpOptions
	stdout *stickyWriter // under out; a parallel dump writes chunks' output to it directly
	out    *bufio.Writer
	errw   io.Writer
	line   []byte
	json   *jsonWriter
	issues int // corrupt regions reported under --keep-going

	// f formats batches on the calling goroutine; a parallel dump gives
	// each worker a formatter of its own (dumpparallel.go).
	f       formatter
	offsets offsetTrack // f's record offsets, for nonConsecutive
	workers int         // formatting goroutines for a large log (1: sequential)
	// blocks is the log file being dumped read through blocks that
	// chunks refer to in place (blocks.go); nil for other sources.
	blocks *fileBlocks
	// blocksLeft is how many blocks the last log's dump left held, and
	// inPlace how many entries its chunks took in place (tests).
	blocksLeft int64
	inPlace    int
	// peakHeld is the most entry bytes the chunks of a parallel dump held
	// at once (tests check it against inFlightBytes).
	peakHeld int
	// findings are located errors Kafka reports without stopping (a
	// producer snapshot with a bad CRC); kseg's own form exits non-zero.
	findings []error

	indexMismatches orderedMap[map[int64]int64]
	timeMismatch    orderedMap[[][2]int64]
	timeOutOfOrder  orderedMap[[][2]int64]
	timeNotFound    orderedMap[[][2]int64]
	nonConsecutive  orderedMap[map[int64]int64]
}

// orderedMap is one of kafka-dump-log's summary maps: a HashMap<String,_>
// filled by computeIfAbsent, one call per finding. java replays those calls
// for Finish's order; keys keeps first-seen order for the JSON summaries.
type orderedMap[V any] struct {
	keys []string
	m    map[string]V
	java *javaHashMap[string]
}

// get is Kafka's computeIfAbsent(k, ...): one call per finding.
func (o *orderedMap[V]) get(k string, mk func() V) V {
	if o.m == nil {
		o.m = map[string]V{}
		o.java = newJavaStringMap()
	}
	v, ok := o.m[k]
	if ok {
		o.java.Touch()
		return v
	}
	v = mk()
	o.m[k] = v
	o.keys = append(o.keys, k)
	o.java.ComputeIfAbsent(k)
	return v
}

// set replaces the value of a key get has returned; it is not a call of
// its own on Kafka's map.
func (o *orderedMap[V]) set(k string, v V) {
	if _, ok := o.m[k]; !ok {
		o.get(k, func() V { return v })
	}
	o.m[k] = v
}

// javaKeys is the key order of Kafka's HashMap.
func (o *orderedMap[V]) javaKeys() []string {
	if o.java == nil {
		return nil
	}
	return o.java.Keys()
}

// NewDumper writes the dump to stdout and summaries/warnings to stderr.
func NewDumper(opts DumpOptions, stdout, stderr io.Writer) *Dumper {
	sw := &stickyWriter{w: stdout}
	d := &Dumper{opts: opts, stdout: sw, out: bufio.NewWriterSize(sw, 256<<10), errw: stderr, workers: runtime.GOMAXPROCS(0)}
	if opts.Format == FormatJSON || opts.Format == FormatJSONv1 {
		d.json = &jsonWriter{w: d.out, v1: opts.Format == FormatJSONv1}
	}
	d.f.init(&d.opts, d.out, d.json, opts.Parser)
	d.f.offsets = &d.offsets
	return d
}

// stickyWriter keeps the first error of its writer and writes nothing
// after it, as bufio.Writer does: writes that go around the buffer fail
// the same way as those through it.
type stickyWriter struct {
	w   io.Writer
	err error
}

func (s *stickyWriter) Write(p []byte) (int, error) {
	if s.err != nil {
		return 0, s.err
	}
	n, err := s.w.Write(p)
	if err == nil && n < len(p) {
		err = io.ErrShortWrite
	}
	s.err = err
	return n, err
}

// writeLarge writes p in order after what out holds: a large p goes to
// stdout directly rather than through out's buffer.
func (d *Dumper) writeLarge(p []byte) {
	if len(p) < d.out.Size()/4 || d.out.Flush() != nil {
		d.out.Write(p)
		return
	}
	d.stdout.Write(p)
}

// sink is where a formatter writes: the Dumper's buffered stdout, or a
// parallel worker's chunk of output.
type sink interface {
	Write([]byte) (int, error)
	WriteByte(byte) error
	// AvailableBuffer is the sink's free space as an empty slice: a
	// line appended to it and then written is not copied again (for
	// bufio.Writer, at most onto itself).
	AvailableBuffer() []byte
}

// formatter holds the state that formatting batches needs: decoders,
// the line buffer, digit caches and the record offsets it has seen.
type formatter struct {
	opts   *DumpOptions
	out    sink
	json   *jsonWriter // non-nil for FormatJSON
	parser content.Parser
	ap     content.Appender // parser, when it renders in place
	// keyStr, valueStr: the parser prints keys, values as Java strings
	// (content.JavaStrings), which the record lines append themselves.
	keyStr, valueStr bool
	br               batch.BatchReader
	dec              batch.Decompressor
	liter            batch.LegacyIter
	rec              batch.Record
	line             []byte // a line that did not fit the sink's free space
	// avail is the start of the sink's free space that startLine handed
	// out (nil: none), so that endLine does not keep it as line.
	avail *byte

	// Record lines repeat or step numbers by one; formatting them from
	// the previous line's digits is most of the cost of a record line.
	offDigits, tsDigits, seqDigits decimalCache
	keyDigits, valueDigits         decimalCache // keySize, valueSize
	bl                             batchDigits  // the batch line's numbers
	posDigits                      decimalCache // the JSON form's batch_position
	pieces                         recordPieces
	jsonSizes                      linePiece // the JSON form's key_size, value_size run
	offsets                        *offsetTrack
	// A parallel chunk's v2 batches and their CRC checks (checkCRCs).
	crcAt  []int
	crcRaw [][]byte
	crcOK  []bool
	// capped is a parallel chunk's output: once over its cap, the rest
	// of the batch is not formatted (the writer does it).
	capped *byteSink
	// Workers' formatters are written on every record: the pad keeps
	// the end of one off the cache line of whatever the allocator put
	// after it (see cacheLine).
	_ [cacheLine]byte
}

// cacheLine is the size of a cache line on the machines kseg runs on.
// What a parallel dump's workers write per record (formatters, chunks,
// digit buffers) is padded or sized to it, so two workers never write
// the same line (false sharing slowed a quarter of 2-CPU runs by 25-50%).
const cacheLine = 64

func (f *formatter) init(opts *DumpOptions, out sink, json *jsonWriter, parser content.Parser) {
	f.opts, f.out, f.json, f.parser = opts, out, json, parser
	f.ap, _ = parser.(content.Appender)
	f.keyStr, f.valueStr = content.JavaStrings(parser)
	f.dec.Max = opts.MaxDecompressed
	f.br.Decompressor.Max = opts.MaxDecompressed
}

// offsetTrack records the record offsets that do not follow the one
// before (kafka-dump-log's "Non-consecutive offsets"). A sequential dump
// starts a file with seen set and last -1; a parallel chunk starts unseen
// and the writer joins its first offset to the previous chunk's last.
type offsetTrack struct {
	seen        bool
	first, last int64
	gaps        [][2]int64 // (previous, next) in file order
}

func (t *offsetTrack) add(off int64) {
	if !t.seen {
		t.seen, t.first, t.last = true, off, off
		return
	}
	if off != t.last+1 {
		t.gaps = append(t.gaps, [2]int64{t.last, off})
	}
	t.last = off
}

// recordGaps enters t's gaps in the summary, in order, as Kafka's
// computeIfAbsent calls would, and empties them.
func (d *Dumper) recordGaps(abs string, gaps [][2]int64) {
	for _, g := range gaps {
		if g[0] < 0 && d.opts.Format != FormatKafka {
			// Kafka 4.4 starts each file at -1, so a segment whose base
			// offset is not 0 gets "-1 is followed by N"; kseg's own forms
			// do not call a segment's first batch non-consecutive.
			continue
		}
		m := d.nonConsecutive.get(abs, func() map[int64]int64 { return map[int64]int64{} })
		m[g[0]] = g[1]
	}
}

// Issues is the number of corrupt regions skipped under KeepGoing.
func (d *Dumper) Issues() int { return d.issues }

// Findings are the located errors of files Kafka reports on and then
// skips, such as a producer snapshot whose CRC does not match.
func (d *Dumper) Findings() []error { return d.findings }

func (d *Dumper) flushLine() {
	d.line = append(d.line, '\n')
	d.out.Write(d.line)
	d.line = d.line[:0]
}

// minLineRoom is the free space of the sink below which startLine
// starts a line in the formatter's own buffer instead.
const minLineRoom = 512

// startLine is an empty line to append to: the sink's free space, where
// the line is written without a copy, or the formatter's line buffer
// when that is larger. Hand the line to endLine or writePart.
func (f *formatter) startLine() []byte {
	if a := f.out.AvailableBuffer(); cap(a) >= minLineRoom && cap(a) >= cap(f.line) {
		f.avail = &a[:1][0]
		return a
	}
	f.avail = nil
	return f.line[:0]
}

// endLine writes b, a line from startLine, with its newline.
func (f *formatter) endLine(b []byte) { f.writePart(append(b, '\n')) }

// writePart writes b, a line from startLine, as it is (a line cut short
// by an error), and keeps its buffer for the next line unless it is the
// sink's.
func (f *formatter) writePart(b []byte) {
	f.out.Write(b)
	if cap(b) == 0 || &b[:1][0] != f.avail {
		f.line = b[:0]
	}
	f.avail = nil
}

// dropLine forgets b, a line from startLine that is not written.
func (f *formatter) dropLine(b []byte) {
	if cap(b) > 0 && &b[:1][0] != f.avail {
		f.line = b[:0]
	}
	f.avail = nil
}

func (d *Dumper) printf(format string, args ...any) {
	fmt.Fprintf(d.out, format, args...)
}

// errorf writes to stderr after flushing stdout, keeping the streams' order
// as a terminal would show it.
func (d *Dumper) errorf(format string, args ...any) {
	d.out.Flush()
	fmt.Fprintf(d.errw, format, args...)
}

// Dump dumps one segment, as kafka-dump-log dumps one of its --files. A
// file (seg.Open unset; see File) is dumped by the kind its name's suffix
// tells: a log or KRaft snapshot, an offset or time index, a transaction
// index, a producer snapshot; any other name is skipped with
// kafka-dump-log's warning. A log held elsewhere (seg.Open set: fetched
// from a broker, in remote storage) is dumped from the bytes Open gives. A
// returned error is fatal for the run, as an uncaught exception is for
// kafka-dump-log.
func (d *Dumper) Dump(seg segment.Segment) error {
	if seg.Open != nil || seg.Window != nil {
		return d.dumpHeld(seg)
	}
	return d.dumpFile(seg.Path)
}

// dumpFile dumps one file named as the user gave it.
func (d *Dumper) dumpFile(name string) error {
	if d.json == nil {
		d.printf("Dumping %s\n", javaFileString(name))
	} else {
		d.json.file(name)
	}
	switch fileSuffix(name) {
	case ".log", ".checkpoint":
		return d.dumpLog(name)
	case ".index":
		return d.dumpIndex(name)
	case ".timeindex":
		return d.dumpTimeIndex(name)
	case ".snapshot":
		return d.dumpSnapshot(name)
	case ".txnindex":
		return d.dumpTxnIndex(name)
	default:
		if d.json != nil {
			d.json.skipped(name, "unknown file suffix")
			return nil
		}
		d.errorf("Ignoring unknown file %s\n", javaFileString(name))
		return nil
	}
}

// fileSuffix is the base name's text from its last '.', as kafka-dump-log
// matches it ("" when there is none).
func fileSuffix(name string) string {
	base := filepath.Base(name)
	if dot := strings.LastIndexByte(base, '.'); dot >= 0 {
		return base[dot:]
	}
	return ""
}

// dumpHeld dumps a log whose bytes seg.Open gives. The log is fetched
// before its "Dumping" line, which names it as its source does.
func (d *Dumper) dumpHeld(seg segment.Segment) error {
	src, closer, err := seg.OpenSource()
	if err != nil {
		return err
	}
	if closer != nil {
		defer closer.Close()
	}
	return d.dumpSource(src)
}

// javaFileString is java.io.File.toString on Unix: duplicate slashes
// collapsed and a trailing slash dropped.
func javaFileString(p string) string {
	if p == "" || isURL(p) {
		return p
	}
	var b strings.Builder
	prevSlash := false
	for i := 0; i < len(p); i++ {
		c := p[i]
		if c == '/' {
			if prevSlash {
				continue
			}
			prevSlash = true
		} else {
			prevSlash = false
		}
		b.WriteByte(c)
	}
	s := b.String()
	if len(s) > 1 && strings.HasSuffix(s, "/") {
		s = s[:len(s)-1]
	}
	return s
}

// isURL tells a segment named by a URL (kafka://, s3://, lts://), which
// no java.io.File would clean.
func isURL(name string) bool {
	scheme, _, ok := strings.Cut(name, "://")
	return ok && scheme != "" && !strings.Contains(scheme, "/")
}

// absPath is the path Kafka names a file by in its summaries and index
// errors: File.getAbsolutePath.
func absPath(name string) string { return javaAbsolutePath(name) }

// baseOffsetOf parses the text before the first '.' like Long.parseLong,
// with Kafka's NumberFormatException text on failure.
func baseOffsetOf(name string) (int64, error) {
	v, err := index.BaseOffsetFromName(filepath.Base(name))
	if err != nil {
		prefix, _, _ := strings.Cut(filepath.Base(name), ".")
		return 0, &segment.Error{File: name, Err: fmt.Errorf("For input string: \"%s\" (file name is not a base offset)", prefix)}
	}
	return v, nil
}

func (d *Dumper) dumpLog(name string) error {
	if err := d.logHeader(name); err != nil {
		return err
	}
	if d.workers < 2 || d.opts.KeepGoing {
		st, err := segment.OpenFile(name, d.opts.MaxBytes, d.streamOptions())
		if err != nil {
			return err
		}
		defer st.Close()
		return d.dumpStream(name, st)
	}
	// It may be dumped on workers: frame it in blocks they can share.
	st, fb, closer, err := openBlocks(name, d.opts.MaxBytes, d.streamOptions())
	if err != nil {
		return err
	}
	defer closer.Close()
	d.blocks = fb
	defer func() {
		d.blocks = nil
		fb.close()
		d.blocksLeft = fb.out.Load()
	}()
	return d.dumpStream(name, st)
}

// dumpSource dumps a log held in src (bytes fetched from a broker, a
// remote object) as dumpFile dumps a .log file of that name.
func (d *Dumper) dumpSource(src segment.Source) error {
	if d.json == nil {
		d.printf("Dumping %s\n", javaFileString(src.Name))
	} else {
		d.json.file(src.Name)
	}
	if w := src.Window; w != nil {
		// --from/--to and the filters: the stream yields the window's
		// batches; the record lines are trimmed to it.
		d.opts.shown = offsetRange{on: true, from: w.From, to: w.To, win: w}
		defer func() { d.opts.shown = offsetRange{} }()
	} else if r, ok := src.R.(OffsetRanger); ok {
		from, to := r.OffsetRange()
		d.opts.shown = offsetRange{on: true, from: from, to: to}
		defer func() { d.opts.shown = offsetRange{} }()
	}
	if err := d.logHeader(src.Name); err != nil {
		return err
	}
	if d.opts.MaxBytes > 0 && d.opts.MaxBytes < src.Size {
		src.Size = d.opts.MaxBytes
	}
	return d.dumpStream(src.Name, segment.NewStream(src, d.streamOptions()))
}

// OffsetRanger is a source's reader that holds the whole batches around
// the offsets [from, to) that were asked for (kafka:// with --from/--to).
// The dump prints only the records in the range and says on a batch's line
// when some of its records are left out.
type OffsetRanger interface{ OffsetRange() (from, to int64) }

type offsetRange struct {
	on       bool
	from, to int64
	win      *segment.Window // the source's window, when it has one (keys)
}

// keeps tells that a record at off with this key is shown.
func (r offsetRange) keeps(off int64, key []byte, control bool) bool {
	if r.win != nil {
		return r.win.Keeps(off, key, control)
	}
	return r.holds(off)
}

// byKey tells that record lines are chosen by key too (--key, --key-regex).
func (r offsetRange) byKey() bool { return r.win != nil && r.win.Filter.ByRecord() }

// cuts tells that a batch holding [first, last] has records outside r.
func (r offsetRange) cuts(first, last int64) bool { return r.on && (first < r.from || last >= r.to) }

// holds tells that off is in r (or that there is no range).
func (r offsetRange) holds(off int64) bool { return !r.on || (off >= r.from && off < r.to) }

func (d *Dumper) streamOptions() segment.Options {
	// kseg's forms fail when valid batches follow a quiet stop
	// (segment.TrailingError); the --files form says what Kafka says.
	return segment.Options{KeepGoing: d.opts.KeepGoing, MaxDecompressed: d.opts.MaxDecompressed, OnRegion: d.region,
		LenientTail: d.opts.KafkaTail}
}

// logHeader prints the line kafka-dump-log prints before a log's batches.
func (d *Dumper) logHeader(name string) error {
	base := filepath.Base(name)
	if d.json == nil {
		if strings.HasSuffix(base, ".log") {
			off, err := baseOffsetOf(name)
			if err != nil {
				return err
			}
			d.printf("Log starting offset: %d\n", off)
		} else if base == "bootstrap.checkpoint" {
			d.printf("KRaft bootstrap snapshot\n")
		} else {
			off, epoch, ok := index.ParseKRaftSnapshotName(base)
			if !ok {
				return &segment.Error{File: name, Err: errors.New("not a KRaft snapshot name (<20-digit offset>-<10-digit epoch>.checkpoint)")}
			}
			d.printf("Snapshot end offset: %d, epoch: %d\n", off, epoch)
		}
	}
	return nil
}

// dumpStream prints the batches (and with deep iteration the records) of
// one log.
func (d *Dumper) dumpStream(name string, st *segment.Stream) error {
	abs := absPath(name)
	f := &d.f
	*f.offsets = offsetTrack{seen: true, last: -1, gaps: f.offsets.gaps[:0]}
	deep := d.opts.DeepIteration || d.opts.PrintDataLog
	limit := -1
	if d.parallel(st) {
		if deep {
			return d.dumpParallel(name, st)
		}
		limit = probeBatches
	}
	n, size, more, err := d.sequential(name, abs, st, deep, limit)
	if err != nil {
		return err
	}
	if more {
		// Batch lines alone: a worker needs a copy of each batch, which
		// costs about what the batch's CRC does, so only small batches
		// gain from workers.
		if size/int64(n) < parallelMaxBatch {
			return d.dumpParallel(name, st)
		}
		if _, _, _, err := d.sequential(name, abs, st, deep, -1); err != nil {
			return err
		}
	}
	if err := st.Err(); err != nil {
		return err
	}
	return d.streamEnd(name, st)
}

// sequential dumps batches on this goroutine: all of them (limit < 0) or
// up to limit. It returns how many it framed and their bytes, and more
// when it stopped at the limit rather than at the end of the stream.
func (d *Dumper) sequential(name, abs string, st *segment.Stream, deep bool, limit int) (n int, size int64, more bool, err error) {
	f := &d.f
	for {
		if n == limit {
			return n, size, true, nil
		}
		if !st.Next() {
			return n, size, false, nil
		}
		n++
		b := st.Batch()
		size += b.Size
		d.opts.Progress.Add(b.Size, 1)
		raw, err := b.Bytes()
		if err != nil {
			return n, size, false, err
		}
		if err := f.batchLine(name, b, raw, crcUnchecked); err != nil {
			if st.Reject(err) {
				continue
			}
			return n, size, false, err
		}
		if deep {
			// The batch was framed, so under --keep-going the next one
			// starts right after it: skip just this batch.
			err := f.records(name, b, raw)
			if len(f.offsets.gaps) > 0 {
				d.recordGaps(abs, f.offsets.gaps)
				f.offsets.gaps = f.offsets.gaps[:0]
			}
			if err != nil && !st.Skip(err) {
				return n, size, false, err
			}
		}
	}
}

// streamEnd reports the bytes after the last whole entry of a log that
// ended cleanly.
func (d *Dumper) streamEnd(name string, st *segment.Stream) error {
	base := filepath.Base(name)
	tail := st.Tail()
	trailing := st.Size() - tail
	if trailing > 0 && d.opts.MaxBytes == math.MaxInt32 {
		if d.json != nil {
			d.json.trailing(name, tail, trailing)
		} else {
			d.printf("Found %d invalid bytes at the end of %s\n", trailing, base)
		}
	}
	return nil
}

// region reports a region skipped under --keep-going.
func (d *Dumper) region(r segment.Region) {
	d.issues++
	if d.json != nil {
		d.json.corrupt(r.File, r.From, r.To, r.Cause)
	} else {
		d.errorf("kseg: corrupt region in %s: bytes %d..%d skipped: %s\n", r.File, r.From, r.To, regionCause(r.Cause))
	}
}

// regionCause is a skipped region's cause with its absolute position
// ("at byte N: ...") but without the file name the message already has.
func regionCause(err error) string {
	var se *segment.Error
	if errors.As(err, &se) {
		return strings.TrimPrefix(se.Error(), se.File+": ")
	}
	return err.Error()
}

func appendBool(b []byte, v bool) []byte { return strconv.AppendBool(b, v) }

// crcVerdict is a v2 batch's CRC check done ahead of its line (a parallel
// dump's worker checks its chunk's batches three at a time), or
// crcUnchecked: the line checks it.
type crcVerdict int8

const (
	crcUnchecked crcVerdict = iota
	crcBad
	crcGood
)

// valid is batch.ValidCRC(raw), unless v already says.
func (v crcVerdict) valid(raw []byte) bool {
	if v == crcUnchecked {
		return batch.ValidCRC(raw)
	}
	return v == crcGood
}

// batchLine prints printBatchLevel's line. crc is the verdict on a v2
// batch's CRC if it was checked ahead.
func (d *formatter) batchLine(name string, e *segment.Batch, raw []byte, crc crcVerdict) error {
	if d.json != nil {
		shown := d.opts.shown
		if !d.opts.DeepIteration && !d.opts.PrintDataLog {
			shown = offsetRange{} // no records follow, so none are left out: as the text form
		}
		return d.json.batch(name, e, raw, shown, crc)
	}
	b := d.startLine()
	var (
		tsType  batch.TimestampType
		maxTs   int64
		codec   batch.Codec
		crcWord uint32
		valid   bool
		magic   = e.Magic
	)
	if e.Magic >= batch.MagicV2 {
		h := &e.Header
		b = appendV2BatchFields(b, h, &d.bl)
		tsType, maxTs, codec, crcWord = h.TimestampType(), h.MaxTimestamp, h.Codec(), h.CRC
		valid = crc.valid(raw)
	} else {
		m, err := batch.ParseLegacyHeader(raw) // key and value are for deep iteration
		if err != nil {
			d.dropLine(b)
			return &segment.Error{File: name, Offset: e.Pos, Err: err}
		}
		b = append(b, "offset: "...)
		b = strconv.AppendInt(b, m.Offset, 10)
		tsType, maxTs, codec, crcWord, valid = m.TimestampType(), m.Timestamp, m.Codec(), m.CRC, m.Valid()
	}
	// Kafka builds the rest of the line in one expression, so an unknown
	// codec throws before any of it is printed.
	head := len(b)
	b = append(b, " position: "...)
	b = d.bl.pos.append(b, e.Pos)
	b = append(b, tsLabel(tsType)...)
	b = d.bl.ts.append(b, maxTs)
	if p := &d.bl.size; !p.holds([5]int64{e.Size, int64(magic), int64(codec)}) {
		p.b = append(p.b, " size: "...)
		p.b = appendDecimal(p.b, e.Size)
		p.b = append(p.b, " magic: "...)
		p.b = appendDecimal(p.b, int64(magic))
		p.b = append(p.b, " compresscodec: "...)
		if codec.Valid() {
			p.b = append(p.b, codec.String()...)
			p.b = append(p.b, " crc: "...)
		}
	}
	b = append(b, d.bl.size.b...)
	if !codec.Valid() {
		// Kafka 4.4 has printed the line up to deleteHorizonMs (offset: N
		// for legacy entries) when it throws.
		d.writePart(b[:head])
		return &segment.Error{File: name, Offset: e.Pos + 21, Err: &batch.FormatError{Pos: 21, Err: batch.ErrUnknownCodec,
			Detail: fmt.Sprintf("Unknown compression type id: %d", int8(codec))}}
	}
	b = appendDecimal(b, int64(crcWord))
	b = append(b, [2]string{" isvalid: false", " isvalid: true"}[b2i(valid)]...)
	if d.opts.Format == FormatKseg && e.Magic >= batch.MagicV2 {
		if sniff := batch.SniffCodec(raw[min(len(raw), batch.HeaderSize):]); sniff != batch.CodecNone && codec == batch.CodecNone {
			b = append(b, " kseg-warning: payload looks "...)
			b = append(b, sniff.String()...)
			b = append(b, "-compressed but attributes say none"...)
		}
	}
	if deep := d.opts.DeepIteration || d.opts.PrintDataLog; deep && e.Magic >= batch.MagicV2 && d.opts.shown.cuts(e.Header.BaseOffset, e.Header.LastOffset()) {
		b = appendShown(b, d.opts.shown)
	}
	if deep := d.opts.DeepIteration || d.opts.PrintDataLog; deep && d.opts.shown.byKey() {
		b = append(b, " kseg-shown: records whose key matches only (--key/--key-regex)"...)
	}
	d.endLine(b)
	return nil
}

// appendShown notes on a batch's line that only its records in r follow.
func appendShown(b []byte, r offsetRange) []byte {
	b = append(b, " kseg-shown: records at offsets "...)
	if r.from > math.MinInt64 {
		b = strconv.AppendInt(b, r.from, 10)
	}
	b = append(b, ".."...)
	if r.to < segment.Unbounded {
		b = strconv.AppendInt(b, r.to-1, 10)
	}
	return append(b, " only (--from/--to)"...)
}

// batchDigits are the digit caches of a batch line's numbers that step
// from batch to batch, and its runs whose numbers mostly repeat (count,
// the producer's fields, size and magic), each kept whole while its
// numbers do.
type batchDigits struct {
	base, last, baseSeq, lastSeq, pos, ts decimalCache
	count, producer, size                 linePiece
}

// linePiece is a run of a line made from a few numbers (its key), kept
// while they repeat.
type linePiece struct {
	key [5]int64
	ok  bool
	b   []byte
}

// holds tells that the piece was made from k; if not, it is emptied for
// the caller to make and keyed k.
func (p *linePiece) holds(k [5]int64) bool {
	if p.ok && p.key[0] == k[0] && p.key[1] == k[1] && p.key[2] == k[2] && p.key[3] == k[3] && p.key[4] == k[4] {
		return true // (p.key == k compares through memequal)
	}
	p.key, p.ok, p.b = k, true, p.b[:0]
	return false
}

// txControl is a batch line's two flags, by isTransactional and
// isControl, with the label that follows them: one append, not five.
var txControl = [2][2]string{
	{" isTransactional: false isControl: false deleteHorizonMs: ", " isTransactional: false isControl: true deleteHorizonMs: "},
	{" isTransactional: true isControl: false deleteHorizonMs: ", " isTransactional: true isControl: true deleteHorizonMs: "},
}

func b2i(v bool) int {
	if v {
		return 1
	}
	return 0
}

// appendV2BatchFields is the start of a v2 batch's line, from baseOffset
// to deleteHorizonMs.
func appendV2BatchFields(b []byte, h *batch.Header, c *batchDigits) []byte {
	b = append(b, "baseOffset: "...)
	b = c.base.append(b, h.BaseOffset)
	b = append(b, " lastOffset: "...)
	b = c.last.append(b, h.LastOffset())
	if p := &c.count; !p.holds([5]int64{int64(h.RecordCount)}) {
		p.b = append(p.b, " count: "...)
		p.b = appendDecimal(p.b, int64(h.RecordCount))
		p.b = append(p.b, " baseSequence: "...)
	}
	b = append(b, c.count.b...)
	b = c.baseSeq.append(b, int64(h.BaseSequence))
	b = append(b, " lastSequence: "...)
	b = c.lastSeq.append(b, int64(h.LastSequence()))
	dh, hasDH := h.DeleteHorizon()
	flags := b2i(h.IsTransactional()) | b2i(h.IsControl())<<1 | b2i(hasDH)<<2
	if p := &c.producer; !p.holds([5]int64{h.ProducerID, int64(h.ProducerEpoch), int64(h.PartitionLeaderEpoch), int64(flags), dh}) {
		p.b = append(p.b, " producerId: "...)
		p.b = appendDecimal(p.b, h.ProducerID)
		p.b = append(p.b, " producerEpoch: "...)
		p.b = appendDecimal(p.b, int64(h.ProducerEpoch))
		p.b = append(p.b, " partitionLeaderEpoch: "...)
		p.b = appendDecimal(p.b, int64(h.PartitionLeaderEpoch))
		p.b = append(p.b, txControl[b2i(h.IsTransactional())][b2i(h.IsControl())]...)
		if hasDH {
			p.b = append(p.b, "OptionalLong["...)
			p.b = appendDecimal(p.b, dh)
			p.b = append(p.b, ']')
		} else {
			p.b = append(p.b, "OptionalLong.empty"...)
		}
	}
	return append(b, c.producer.b...)
}

// records prints the record lines of one entry (dumpBatchRecords).
//
// The text form's lines are appended one after another to the sink's free
// space and written when it runs low (and at the end of the batch), not
// one write per line: what is written, and where an error cuts it, is the
// same.
func (d *formatter) records(name string, e *segment.Batch, raw []byte) error {
	if e.Magic < batch.MagicV2 {
		return d.legacyRecords(name, e, raw)
	}
	h := &e.Header
	if err := d.br.Open(raw, h); err != nil {
		return locate(name, e.Pos, err)
	}
	control := h.IsControl()
	tsType := h.TimestampType()
	shown := &d.opts.shown
	// Without a window or a range every record is shown and its offset
	// tracked; keeps and add are then not called per record.
	all := !shown.on && shown.win == nil
	// usual: the line is metadata then the contents as the string decoder
	// prints them (kafka-dump-log's default), made below in one piece
	// for a record without headers.
	usual := d.json == nil && !control && !d.opts.SkipRecordMetadata && d.opts.PrintDataLog && d.keyStr && d.valueStr
	tsl := tsLabel(tsType)
	var (
		b    []byte // lines not yet written, in the sink's free space or f.line
		open bool   // b came from startLine and is not written yet
	)
	for {
		ok, err := d.br.Next(&d.rec)
		if err != nil {
			if open {
				d.writePart(b)
			}
			return locate(name, e.Pos, err)
		}
		if !ok {
			break
		}
		r := &d.rec
		off := h.BaseOffset + int64(r.OffsetDelta)
		if all {
			d.offsets.add(off)
		} else {
			if shown.win == nil {
				d.offsets.add(off) // a window's gaps (seek, filters) are no finding
			}
			if !shown.keeps(off, r.Key, control) {
				continue // outside --from/--to, or refused by --key
			}
		}
		ts := h.BaseTimestamp + r.TimestampDelta
		if tsType == batch.LogAppendTime {
			ts = h.MaxTimestamp
		}
		seq := int32(-1)
		if h.BaseSequence >= 0 {
			seq = batch.IncrementSequence(h.BaseSequence, r.OffsetDelta)
		}
		if d.json != nil {
			if d.capped != nil && d.capped.over {
				return nil // the writer formats this batch again (parallel.go)
			}
			if err := d.json.record(d, name, e, off, ts, seq, r, control); err != nil {
				return locate(name, e.Pos, err)
			}
			continue
		}
		if !open {
			if d.capped != nil && d.capped.over {
				return nil // the writer formats this batch again (parallel.go)
			}
			b, open = d.startLine(), true
		}
		if usual && len(r.Headers) == 0 {
			// appendRecordMeta and appendContents, without their calls.
			b = append(b, "| offset: "...)
			b = d.offDigits.append(b, off)
			b = append(b, tsl...)
			b = d.tsDigits.append(b, ts)
			if p := &d.pieces; len(p.sizes) == 0 || r.KeySize() != p.ks || r.ValueSize() != p.vs {
				d.makeSizes(r)
			}
			b = append(b, d.pieces.sizes...)
			b = d.seqDigits.append(b, int64(seq))
			if r.Key != nil {
				b = append(b, " headerKeys: [] key: "...)
				b = content.AppendJavaString(b, r.Key)
				if r.Value != nil {
					b = append(b, " payload: "...)
					b = content.AppendJavaString(b, r.Value)
				}
			} else if r.Value != nil {
				b = append(b, " headerKeys: [] payload: "...)
				b = content.AppendJavaString(b, r.Value)
			} else {
				b = append(b, " headerKeys: []"...)
			}
			b = append(b, '\n')
			if cap(b)-len(b) < minLineRoom {
				d.writePart(b)
				open = false
			}
			continue
		}
		if !d.opts.SkipRecordMetadata {
			b = d.appendRecordMeta(b, tsType, off, ts, seq, r)
			if control {
				var err error
				if b, err = appendControl(b, off, r); err != nil {
					d.writePart(b)
					return locate(name, e.Pos, err)
				}
			}
			if d.opts.Format == FormatKseg && len(r.Headers) > 0 {
				b = appendHeaderValues(b, r.Headers, d.opts.Redact)
			}
		}
		if d.opts.PrintDataLog && !control {
			var err error
			if b, err = d.appendContents(b, off, r.Key, r.Value); err != nil {
				d.writePart(b)
				return locate(name, e.Pos, err)
			}
		}
		b = append(b, '\n')
		if cap(b)-len(b) < minLineRoom {
			d.writePart(b)
			open = false
		}
	}
	if open {
		if len(b) > 0 {
			d.writePart(b)
		} else {
			d.dropLine(b)
		}
	}
	if d.br.Leftover() > 0 {
		return locate(name, e.Pos, &batch.FormatError{Err: batch.ErrInvalidRecord, Detail: "Incorrect declared batch size, records still remaining in file"})
	}
	return nil
}

// recordPieces is the constant run of a v2 record line between its
// timestamp and its sequence, " keySize: K valueSize: V sequence: ", as
// it was for the last record: the sizes mostly repeat.
type recordPieces struct {
	ks, vs int
	sizes  []byte // empty: not built
}

// tsLabel is a timestamp type's name as a line labels its timestamp:
// " CreateTime: ".
func tsLabel(t batch.TimestampType) string {
	switch t {
	case batch.CreateTime:
		return " CreateTime: "
	case batch.LogAppendTime:
		return " LogAppendTime: "
	}
	return " NoTimestampType: " // t.String() of any other value
}

// appendSizes appends " keySize: K valueSize: V sequence: ", kept whole
// while the sizes repeat (made anew by makeSizes).
func (d *formatter) appendSizes(b []byte, r *batch.Record) []byte {
	if p := &d.pieces; len(p.sizes) == 0 || r.KeySize() != p.ks || r.ValueSize() != p.vs {
		d.makeSizes(r)
	}
	return append(b, d.pieces.sizes...)
}

func (d *formatter) makeSizes(r *batch.Record) {
	p := &d.pieces
	ks, vs := r.KeySize(), r.ValueSize()
	p.sizes = append(p.sizes[:0], " keySize: "...)
	p.sizes = d.keyDigits.append(p.sizes, int64(ks))
	p.sizes = append(p.sizes, " valueSize: "...)
	p.sizes = d.valueDigits.append(p.sizes, int64(vs))
	p.sizes = append(p.sizes, " sequence: "...)
	p.ks, p.vs = ks, vs
}

// appendRecordMeta is a v2 record line's metadata, from offset to
// headerKeys.
func (d *formatter) appendRecordMeta(b []byte, tsType batch.TimestampType, off, ts int64, seq int32, r *batch.Record) []byte {
	b = append(b, "| offset: "...)
	b = d.offDigits.append(b, off)
	b = append(b, tsLabel(tsType)...)
	b = d.tsDigits.append(b, ts)
	b = d.appendSizes(b, r)
	b = d.seqDigits.append(b, int64(seq))
	if len(r.Headers) == 0 {
		return append(b, " headerKeys: []"...)
	}
	b = append(b, " headerKeys: ["...)
	for i, hd := range r.Headers {
		if i > 0 {
			b = append(b, ',')
		}
		b = content.AppendJavaString(b, hd.Key)
	}
	return append(b, ']')
}

func (d *formatter) appendContents(b []byte, off int64, key, value []byte) ([]byte, error) {
	if d.parser == nil {
		return b, nil
	}
	if d.keyStr && d.valueStr && !d.opts.SkipRecordMetadata {
		// The usual line: metadata, then each of key and value that is
		// not null, as the string decoder prints it (never an error).
		if key != nil {
			b = append(b, " key: "...)
			b = content.AppendJavaString(b, key)
		}
		if value != nil {
			b = append(b, " payload: "...)
			b = content.AppendJavaString(b, value)
		}
		return b, nil
	}
	prefix := " "
	if d.opts.SkipRecordMetadata {
		prefix = "| "
	}
	if ap := d.ap; ap != nil {
		// Render in place: try the field, and take it back if nothing prints.
		// Kafka parses key and value before printing either, so an error
		// leaves neither on the line.
		start := len(b)
		spaced := !d.opts.SkipRecordMetadata // a field precedes: " " starts the next, else "| "
		if key != nil {
			mark := len(b)
			if spaced {
				b = append(b, " key: "...)
			} else {
				b = append(b, "| key: "...)
			}
			out, printed, err := ap.AppendKey(b, off, key)
			if err != nil {
				return b[:start], err
			}
			if b = out; !printed {
				b = b[:mark]
			} else {
				spaced = true
			}
		}
		if value != nil {
			mark := len(b)
			if spaced {
				b = append(b, " payload: "...)
			} else {
				b = append(b, "| payload: "...)
			}
			out, printed, err := ap.AppendPayload(b, off, value)
			if err != nil {
				return b[:start], err
			}
			if b = out; !printed {
				b = b[:mark]
			}
		}
		return b, nil
	}
	res, err := d.parser.Parse(off, key, value)
	if err != nil {
		return b, err
	}
	if res.HasKey {
		b = append(b, prefix...)
		b = append(b, "key: "...)
		b = append(b, res.Key...)
		prefix = " "
	}
	if res.HasPayload {
		b = append(b, prefix...)
		b = append(b, "payload: "...)
		b = append(b, res.Payload...)
	}
	return b, nil
}

func locate(name string, pos int64, err error) error { return segment.Locate(name, pos, err) }

func (d *formatter) legacyRecords(name string, e *segment.Batch, raw []byte) error {
	w, err := batch.ParseLegacy(raw)
	if err != nil {
		if ks, vs, ok := batch.LegacySizes(raw); ok && w.Codec() == batch.CodecNone && d.json == nil {
			// Kafka prints the record line from the raw length fields and
			// fails only when it reads the key or value for the contents.
			d.offsets.add(w.Offset)
			b := d.startLine()
			if !d.opts.SkipRecordMetadata {
				b = appendLegacyMeta(b, &w, int64(ks), int64(vs))
			}
			if d.opts.PrintDataLog && d.parser != nil {
				d.writePart(b)
				return locate(name, e.Pos, err)
			}
			d.endLine(b)
			return nil
		}
		return locate(name, e.Pos, err)
	}
	// One message at a time: a wrapper of millions of tiny messages
	// costs its decompressed bytes, not a struct per message.
	it := &d.liter
	if err := it.Open(&w, &d.dec); err != nil {
		return locate(name, e.Pos, err)
	}
	for it.Next() {
		if d.capped != nil && d.capped.over {
			return nil // the writer formats this batch again (parallel.go)
		}
		m := it.Message()
		if d.opts.shown.win == nil {
			d.offsets.add(m.Offset)
		}
		if !d.opts.shown.keeps(m.Offset, m.Key, false) {
			continue
		}
		if d.json != nil {
			d.json.legacyRecord(d, name, e, m)
			continue
		}
		b := d.startLine()
		if !d.opts.SkipRecordMetadata {
			b = appendLegacyMeta(b, m, int64(sizeOrNull(m.Key)), int64(sizeOrNull(m.Value)))
		}
		if d.opts.PrintDataLog {
			if b, err = d.appendContents(b, m.Offset, m.Key, m.Value); err != nil {
				d.writePart(b)
				return locate(name, e.Pos, err)
			}
		}
		d.endLine(b)
	}
	return nil
}

// appendLegacyMeta is the metadata of a legacy record line.
func appendLegacyMeta(b []byte, m *batch.LegacyMessage, keySize, valueSize int64) []byte {
	b = append(b, "| offset: "...)
	b = strconv.AppendInt(b, m.Offset, 10)
	b = append(b, ' ')
	b = append(b, m.TimestampType().String()...)
	b = append(b, ": "...)
	b = strconv.AppendInt(b, m.Timestamp, 10)
	b = append(b, " keySize: "...)
	b = strconv.AppendInt(b, keySize, 10)
	b = append(b, " valueSize: "...)
	b = strconv.AppendInt(b, valueSize, 10)
	b = append(b, " isValid: "...)
	b = appendBool(b, m.Valid())
	b = append(b, " crc: "...)
	return strconv.AppendUint(b, uint64(m.CRC), 10)
}

func sizeOrNull(b []byte) int {
	if b == nil {
		return -1
	}
	return len(b)
}

// Finish prints the end-of-run summaries to stderr, in kafka-dump-log's
// order, and flushes everything.
func (d *Dumper) Finish() error {
	if err := d.out.Flush(); err != nil {
		return err
	}
	if d.stdout.err != nil {
		return d.stdout.err // a chunk written past the buffer failed
	}
	if d.json != nil {
		d.json.summaries(d)
		return d.out.Flush()
	}
	var sb strings.Builder
	for _, k := range d.indexMismatches.javaKeys() {
		fmt.Fprintf(&sb, "Mismatches in :%s\n", k)
		m := d.indexMismatches.m[k]
		for _, off := range sortedKeys(m, true) {
			fmt.Fprintf(&sb, "  Index offset: %d, log offset: %d\n", off, m[off])
		}
	}
	for _, k := range d.timeMismatch.javaKeys() {
		fmt.Fprintf(&sb, "Found timestamp mismatch in :%s\n", k)
		for _, p := range d.timeMismatch.m[k] {
			fmt.Fprintf(&sb, "  Index timestamp: %d, log timestamp: %d\n", p[0], p[1])
		}
	}
	for _, k := range d.timeOutOfOrder.javaKeys() {
		fmt.Fprintf(&sb, "Found out of order timestamp in :%s\n", k)
		for _, p := range d.timeOutOfOrder.m[k] {
			fmt.Fprintf(&sb, "  Index timestamp: %d, Previously indexed timestamp: %d\n", p[0], p[1])
		}
	}
	for _, k := range d.timeNotFound.javaKeys() {
		fmt.Fprintf(&sb, "The following indexed offsets are not found in :%s\n", k)
		for _, p := range d.timeNotFound.m[k] {
			fmt.Fprintf(&sb, "Indexed offset: %d, found log offset: %d\n", p[0], p[1])
		}
	}
	for _, k := range d.nonConsecutive.javaKeys() {
		fmt.Fprintf(&sb, "Non-consecutive offsets in %s\n", k)
		m := d.nonConsecutive.m[k]
		for _, off := range sortedKeys(m, false) {
			fmt.Fprintf(&sb, "  %d is followed by %d\n", off, m[off])
		}
	}
	_, err := io.WriteString(d.errw, sb.String())
	return err
}

func sortedKeys(m map[int64]int64, desc bool) []int64 {
	ks := make([]int64, 0, len(m))
	for k := range m {
		ks = append(ks, k)
	}
	sort.Slice(ks, func(i, j int) bool {
		if desc {
			return ks[i] > ks[j]
		}
		return ks[i] < ks[j]
	})
	return ks
}

// decimalCache formats int64s, reusing the previous value's digits when the
// value repeats or grows by less than 10^8 (step). The digits are held as three 8-byte
// words (text byte i in byte i%8 of w[i/8]) that are stepped and copied
// a word at a time: a byte written and then read back as part of a wider
// load stalls the load (store forwarding), and a copy of a few bytes
// through memmove costs a call.
type decimalCache struct {
	w     [3]uint64
	n     int // digits (and sign)
	v     int64
	valid bool
	// stepBy's digits as step adds them: the last step made (a position
	// steps by the same entry size batch after batch).
	stepBy, stepDigits uint64
}

// decimalRoom is the room append needs after dst's end to copy the
// words whole (any int64 takes at most 20 bytes).
const decimalRoom = 24

func (c *decimalCache) append(dst []byte, v int64) []byte {
	if !c.valid || v != c.v {
		// The usual steps here, without a call: by less than 10 (an
		// offset or a sequence by one), the last digit alone when it
		// does not carry, or with one carry into a digit before that is
		// not a 9 (an offset stepped by a batch's count).
		stepped := false
		if c.valid && c.v >= 0 && v > c.v && v-c.v < 10 {
			i := uint(c.n - 1)
			sh := i % 8 * 8
			add := uint64(v - c.v)
			if (c.w[i/8]>>sh)&0xff+add <= '9' {
				c.w[i/8] += add << sh
				c.v, stepped = v, true
			} else if j := i - 1; i > 0 && (c.w[j/8]>>(j%8*8))&0xff < '9' {
				c.w[i/8] -= (10 - add) << sh // the last digit + add - 10: no borrow, it was > '9'
				c.w[j/8] += 1 << (j % 8 * 8)
				c.v, stepped = v, true
			}
		}
		// Other steps up to 10^8 (a position by an entry's size, a
		// timestamp by milliseconds, carries past a 9): the last eight
		// digits at once.
		if !stepped && c.valid && c.v >= 0 && v > c.v && v-c.v < 1e8 && c.step(uint64(v-c.v)) {
			c.v, stepped = v, true
		}
		if !stepped {
			c.set(v)
		}
	}
	n := len(dst)
	if cap(dst)-n < decimalRoom {
		return appendWordsSlow(dst, c.w[0], c.w[1], c.w[2], c.n)
	}
	d := dst[n : n+decimalRoom]
	binary.LittleEndian.PutUint64(d[0:8], c.w[0])
	binary.LittleEndian.PutUint64(d[8:16], c.w[1])
	binary.LittleEndian.PutUint64(d[16:24], c.w[2])
	return dst[:n+c.n]
}

// step adds d (< 10^8) to the digits of a cached value that is not
// negative, the last eight digits at once, and says whether it could: not
// when a carry leaves those eight or the sum has a digit more (the digits
// are then unchanged).
//
// The eight text bytes are turned so that the last digit is the low byte,
// and each digit of the first addend is biased by 246 so that a byte sum
// of 10 or more carries into the next byte as binary addition does; the
// bytes that did not carry out lose the bias again.
func (c *decimalCache) step(d uint64) bool {
	const (
		zeros = 0x3030303030303030
		ones  = 0x0101010101010101
	)
	n := uint(c.n)
	var text uint64 // text bytes n-8..n-1, with '0's before the first
	var at, sh uint // where they are: from byte sh/8 of c.w[at]
	if n < 8 {
		text = c.w[0]<<(8*(8-n)) | zeros>>(8*n)
	} else {
		at, sh = (n-8)/8, (n-8)%8*8
		text = c.w[at]>>sh | c.w[(at+1)%3]<<(64-sh) // at+1 < 3 when sh > 0 (n <= 20); by 64: 0
	}
	a := bits.ReverseBytes64(text) - zeros // digit values, the last in the low byte
	if d != c.stepBy {
		c.stepBy, c.stepDigits = d, bits.ReverseBytes64(eightDigits(d))-zeros
	}
	b := c.stepDigits
	t := a + 0xf6*ones // no byte carries: a digit is at most 9
	sum := t + b
	if sum < t {
		return false // a carry out of the eight digits
	}
	carried := (sum ^ t ^ b) >> 8 & ones // byte k carried into byte k+1
	sum -= (^carried & ones) * 0xf6      // those that did not are >= 0xf6: no borrow
	if n < 8 && sum>>(8*n) != 0 {
		return false // a digit more
	}
	text = bits.ReverseBytes64(sum + zeros)
	if n < 8 {
		c.w[0] = text >> (8 * (8 - n))
		return true
	}
	low := uint64(1)<<sh - 1
	c.w[at] = c.w[at]&low | text<<sh
	if sh > 0 {
		c.w[at+1] = c.w[at+1]&^low | text>>(64-sh)
	}
	return true
}

// appendDecimal appends v in decimal, as strconv.AppendInt(dst, v, 10),
// made as decimalWords makes it (for numbers no cache holds: a CRC).
func appendDecimal(dst []byte, v int64) []byte {
	w0, w1, w2, k := decimalWords(v)
	n := len(dst)
	if cap(dst)-n < decimalRoom {
		return appendWordsSlow(dst, w0, w1, w2, k)
	}
	d := dst[n : n+decimalRoom]
	binary.LittleEndian.PutUint64(d[0:8], w0)
	binary.LittleEndian.PutUint64(d[8:16], w1)
	binary.LittleEndian.PutUint64(d[16:24], w2)
	return dst[:n+k]
}

// appendWordsSlow appends the k bytes of text that w0, w1, w2 hold as
// decimalCache holds them, without the room to copy the words whole.
func appendWordsSlow(dst []byte, w0, w1, w2 uint64, k int) []byte {
	for i, w := range [3]uint64{w0, w1, w2} {
		for j := range min(k-8*i, 8) {
			dst = append(dst, byte(w>>(8*uint(j))))
		}
	}
	return dst
}

// set formats v anew (append makes the usual steps in place).
func (c *decimalCache) set(v int64) {
	c.w[0], c.w[1], c.w[2], c.n = decimalWords(v)
	c.v, c.valid = v, true
}

// decimalWords is v in decimal as decimalCache holds it: text byte i in
// byte i%8 of w[i/8], n bytes. The digits are made eight at a time in a
// word (eightDigits), not one division at a time. The words come back
// as three results, in registers: an array result is returned through
// memory, and reading it back a pair of words at a time waits for the
// word stores to reach the cache (no store forwarding across stores).
func decimalWords(v int64) (w0, w1, w2 uint64, n int) {
	u := uint64(v)
	if v < 0 {
		u = -u // MinInt64 too: 1<<63
	}
	// Digits: the estimate from the bit length is exact or one short.
	t := (bits.Len64(u) * 1233) >> 12
	n = t
	if u >= pow10[t] || u == 0 {
		n++
	}
	// Right-aligned in 8, 16 or 24 digits with leading zeros, then
	// shifted down by k bytes so the text starts at byte 0.
	switch {
	case u < 1e8:
		w0 = eightDigits(u) >> (8 * uint(8-n))
	case u < 1e16:
		p0, p1 := eightDigits(u/1e8), eightDigits(u%1e8)
		k := uint(16-n) * 8              // 0..56
		w0, w1 = p0>>k|p1<<(64-k), p1>>k // p1<<64 is 0
	default:
		p0, p1, p2 := eightDigits(u/1e16), eightDigits(u/1e8%1e8), eightDigits(u%1e8)
		k := uint(24-n) * 8 // 32..56
		w0, w1, w2 = p0>>k|p1<<(64-k), p1>>k|p2<<(64-k), p2>>k
	}
	if v < 0 {
		// Shift the text up a byte for the sign.
		w2 = w2<<8 | w1>>56
		w1 = w1<<8 | w0>>56
		w0 = w0<<8 | '-'
		n++
	}
	return w0, w1, w2, n
}

// pow10[i] is 10^i.
var pow10 = [20]uint64{1, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19}

// eightDigits is u (< 10^8) as eight ASCII digits with leading zeros, the
// first in the lowest byte: the halves, quarters and digits are split in
// lanes of one word by multiplying with reciprocals (exact below 10^4,
// 10^2).
func eightDigits(u uint64) uint64 {
	x := u/10000 | (u%10000)<<32                // 4-digit halves in 32-bit lanes
	h := (x * 10486 >> 20) & 0x0000007f0000007f // each lane / 100
	x = h | (x-h*100)<<16                       // 2-digit quarters in 16-bit lanes
	h = (x * 103 >> 10) & 0x000f000f000f000f    // each lane / 10
	x = h | (x-h*10)<<8                         // digits in bytes
	return x + 0x3030303030303030
}
