package dump

import (
	"slices"
	"sync"
	"sync/atomic"

	"github.com/kseg/kseg/batch"
	"github.com/kseg/kseg/content"
	"github.com/kseg/kseg/segment"
)

// A large log is formatted on several goroutines: the calling goroutine
// frames batches and copies their bytes into chunks of about chunkBytes,
// workers (each with its own formatter: decoders, buffers, a clone of the
// content parser) turn a chunk into its output, and a writer writes the
// chunks' output in file order. At most inFlight chunks exist at a time,
// so memory is bounded by inFlight * (chunkBytes + its output).
//
// The output is the sequential dump's, byte for byte: a worker stops a
// chunk at the first error, leaving in its output exactly what the
// sequential dump would have printed before failing, and the writer stops
// there. Record offsets that do not follow each other are joined across
// chunks by the writer, in file order, so the summaries are the same.
var (
	chunkBytes = 128 << 10
	// Batch lines alone take chunks of linesChunkFactor * chunkBytes:
	// their output is small, and fewer hand-offs between the reader, the
	// workers and the writer cut the wall time of batch lines on a 1 GiB
	// segment of 1 KiB batches by about a tenth (2 cores). With records
	// the larger chunk held more output for no gain.
	linesChunkFactor = 4
	chunkRecords     = 1 << 14 // records per chunk (by headers): about 2.5-6.5 MB of output, under chunkOutput
	// Without records, the first probeBatches batches are dumped in
	// sequence, and the rest goes to workers only if those averaged less
	// than parallelMaxBatch bytes.
	probeBatches     = 256
	parallelMaxBatch = int64(4096)
	// chunkOutput caps the output a chunk holds (records are counted by
	// their headers, and a legacy wrapper as one, so a chunk of few bytes
	// can still print millions of lines: a 162 KB wrapper of 2.58 M
	// messages, a v2 batch of 6 M). A worker whose chunk passes it keeps
	// the output of the batches before the one that did, and the writer
	// formats the rest itself, straight to the output, in file order.
	chunkOutput = 8 << 20
	// minRecordLine is fewer bytes than any record line of any form
	// prints: a v2 batch whose records would pass a chunk's output cap by
	// this count alone is left to the writer without being decoded, so a
	// worker never holds the decompressed records of a batch whose output
	// it could not keep (a v2 gzip batch of 6 M records inflates to 66 MB).
	minRecordLine = 16
	// inFlightBytes bounds the entries' bytes held by the chunks in
	// flight: the reader takes a new chunk only while they hold less
	// (one chunk always may), so a log of large batches holds a few of
	// them, not 2 * GOMAXPROCS + 1.
	inFlightBytes = 32 << 20
)

// parallel says whether to format st's batches on several goroutines: more
// than one CPU, more than one chunk of bytes, and nothing that needs the
// formatter's verdict before the next batch is framed (--keep-going
// resynchronises after a batch the formatter rejects).
func (d *Dumper) parallel(st *segment.Stream) bool {
	if d.workers < 2 || d.opts.KeepGoing || st.Size() <= int64(chunkBytes) {
		return false
	}
	return d.opts.Parser == nil || content.Clone(d.opts.Parser) != nil
}

type dumpChunk struct {
	_       [cacheLine]byte // a worker writes out and offsets per record: no line shared with the chunk before
	data    []byte          // the bytes of the entries not in a block, back to back
	ends    []int           // end of each entry in data (in a block: the end of the one before)
	raws    [][]byte        // each entry in its block (fileBlocks), or nil: in data
	blocks  []*dataBlock    // the blocks raws refer to, a reference held on each
	size    int             // the entries' bytes
	batches []segment.Batch
	crcs    []crcVerdict // per batch, once a worker checked the v2 ones (checkCRCs)
	records int
	out     byteSink
	offsets offsetTrack
	err     error // the error that ended the chunk's output
	// resume >= 0: out holds the batches before batches[resume] only;
	// the writer formats the rest (the output cap was reached).
	resume int
	done   chan struct{}
	_      [cacheLine]byte
}

// add appends an entry: in place in blk, on which the chunk takes a
// reference unless it holds one (blk is its last block), or copied when
// blk is nil.
func (c *dumpChunk) add(b *segment.Batch, raw []byte, blk *dataBlock) {
	if blk != nil {
		c.raws = append(c.raws, raw)
		if n := len(c.blocks); n == 0 || c.blocks[n-1] != blk {
			blk.hold()
			c.blocks = append(c.blocks, blk)
		}
	} else {
		c.data = append(c.data, raw...)
		c.raws = append(c.raws, nil)
	}
	c.ends = append(c.ends, len(c.data))
	c.size += len(raw)
	c.batches = append(c.batches, *b)
	if b.IsLegacy() {
		c.records++
	} else {
		c.records += int(max(b.Header.RecordCount, 0))
	}
}

func (c *dumpChunk) full(limit int) bool { return c.size >= limit || c.records >= chunkRecords }

// entry is the bytes of entry i.
func (c *dumpChunk) entry(i int) []byte {
	if c.raws[i] != nil {
		return c.raws[i]
	}
	start := 0
	if i > 0 {
		start = c.ends[i-1]
	}
	return c.data[start:c.ends[i]]
}

// crc is the verdict on batch i's CRC if a worker checked it ahead.
func (c *dumpChunk) crc(i int) crcVerdict {
	if i < len(c.crcs) {
		return c.crcs[i]
	}
	return crcUnchecked
}

// reset empties the chunk for reuse, letting go of buffers an outsized
// batch grew.
func (c *dumpChunk) reset() {
	const keep = 16 << 20
	for _, blk := range c.blocks {
		blk.release()
	}
	clear(c.raws) // no slice of a block outlives its reference
	clear(c.blocks)
	c.data, c.ends, c.batches, c.raws, c.blocks, c.size = c.data[:0], c.ends[:0], c.batches[:0], c.raws[:0], c.blocks[:0], 0
	c.crcs = c.crcs[:0]
	if cap(c.data) > keep {
		c.data = nil
	}
	c.out.b = c.out.b[:0]
	if cap(c.out.b) > keep {
		c.out.b = nil
	}
	c.offsets = offsetTrack{gaps: c.offsets.gaps[:0]}
	c.records, c.err, c.resume = 0, nil, -1
	c.out.over = false
}

// byteSink collects a chunk's output up to limit bytes (0: no limit);
// past it, it drops what it is given and sets over.
type byteSink struct {
	b     []byte
	limit int
	over  bool
}

func (s *byteSink) Write(p []byte) (int, error) {
	n := len(s.b) + len(p)
	if s.limit > 0 && n > s.limit {
		s.over = true
		return len(p), nil
	}
	if len(p) > 0 && n <= cap(s.b) && &p[0] == &s.b[:n][len(s.b)] {
		s.b = s.b[:n] // p was appended to AvailableBuffer: already in place
		return len(p), nil
	}
	if s.limit > 0 {
		if n > cap(s.b) {
			// Grow as append would, but never past the limit.
			nb := make([]byte, len(s.b), min(max(2*cap(s.b), n), s.limit))
			copy(nb, s.b)
			s.b = nb
		}
	}
	s.b = append(s.b, p...)
	return len(p), nil
}

// sinkRoom is the free space AvailableBuffer makes room for.
const sinkRoom = 64 << 10

// AvailableBuffer is the free space after what s holds, grown to at least
// sinkRoom bytes (never past the limit): a line appended to it and then
// written is not copied.
func (s *byteSink) AvailableBuffer() []byte {
	if free := cap(s.b) - len(s.b); free < sinkRoom && (s.limit == 0 || cap(s.b) < s.limit) {
		c := max(2*cap(s.b), len(s.b)+sinkRoom)
		if s.limit > 0 {
			c = min(c, s.limit)
		}
		nb := make([]byte, len(s.b), c)
		copy(nb, s.b)
		s.b = nb
	}
	return s.b[len(s.b):]
}

func (s *byteSink) WriteByte(c byte) error {
	if s.limit > 0 && len(s.b) >= s.limit {
		s.over = true
		return nil
	}
	s.b = append(s.b, c)
	return nil
}

// format writes the chunk's batches (and records) to its output. When the
// output passes its cap it ends the chunk at the batch that passed it,
// with the output and offsets of the batches before, and sets resume.
func (f *formatter) format(name string, c *dumpChunk, deep bool) {
	c.out.limit = chunkOutput
	f.out, f.offsets, f.capped = &c.out, &c.offsets, &c.out
	if f.json != nil {
		f.json.w = &c.out
	}
	f.checkCRCs(c)
	for i := range c.batches {
		b := &c.batches[i]
		raw := c.entry(i)
		if deep && !b.IsLegacy() && int64(max(b.Header.RecordCount, 0))*int64(minRecordLine) > int64(c.out.limit-len(c.out.b)) {
			c.resume = i
			return
		}
		mark, offs, gaps := len(c.out.b), c.offsets, len(c.offsets.gaps)
		err := f.batchLine(name, b, raw, c.crc(i))
		if err == nil && deep {
			err = f.records(name, b, raw)
		}
		if c.out.over {
			c.out.b, c.out.over = c.out.b[:mark], false
			c.offsets = offs
			c.offsets.gaps = c.offsets.gaps[:gaps]
			c.resume = i
			return
		}
		if err != nil {
			c.err = err
			return
		}
	}
}

// checkCRCs sets c.crcs to the verdicts on c's v2 batches' CRCs, checked
// three at a time (batch.ValidCRCs: a batch of about 1 KiB costs half as
// much as on its own), and crcUnchecked for the legacy entries.
func (f *formatter) checkCRCs(c *dumpChunk) {
	f.crcAt, f.crcRaw = f.crcAt[:0], f.crcRaw[:0]
	for i := range c.batches {
		if c.batches[i].Magic >= batch.MagicV2 {
			f.crcAt = append(f.crcAt, i)
			f.crcRaw = append(f.crcRaw, c.entry(i))
		}
	}
	f.crcOK = slices.Grow(f.crcOK[:0], len(f.crcRaw))[:len(f.crcRaw)]
	batch.ValidCRCs(f.crcOK, f.crcRaw)
	c.crcs = slices.Grow(c.crcs[:0], len(c.batches))[:len(c.batches)]
	clear(c.crcs)
	for k, i := range f.crcAt {
		c.crcs[i] = crcBad + crcVerdict(b2i(f.crcOK[k]))
	}
	clear(f.crcRaw) // no slice of the chunk's blocks outlives the chunk
}

// formatFrom formats c's batches from c.resume on straight to out (the
// writer's formatter, in file order), with their offsets in a track of
// their own, returned with the error that ended them.
func (f *formatter) formatFrom(name string, c *dumpChunk, deep bool, out sink) (offsetTrack, error) {
	var t offsetTrack
	f.out, f.offsets, f.capped = out, &t, nil
	if f.json != nil {
		f.json.w = out
	}
	for i := c.resume; i < len(c.batches); i++ {
		b := &c.batches[i]
		raw := c.entry(i)
		if err := f.batchLine(name, b, raw, c.crc(i)); err != nil {
			return t, err
		}
		if deep {
			if err := f.records(name, b, raw); err != nil {
				return t, err
			}
		}
	}
	return t, nil
}

// dumpParallel dumps the rest of st as the comment above describes: this
// goroutine reads chunks, d.workers goroutines format them, and a writer
// puts their output on stdout in file order.
func (d *Dumper) dumpParallel(name string, st *segment.Stream) error {
	abs := absPath(name)
	deep := d.opts.DeepIteration || d.opts.PrintDataLog
	inFlight := 2*d.workers + 1
	free := make(chan *dumpChunk, inFlight)
	for range inFlight {
		free <- &dumpChunk{done: make(chan struct{}, 1), resume: -1}
	}
	work := make(chan *dumpChunk, inFlight)
	order := make(chan *dumpChunk, inFlight)
	var stop atomic.Bool
	var wg sync.WaitGroup
	d.startFormatters(&wg, name, deep, work, &stop)
	written := make(chan error, 1)
	held := newByteBudget(inFlightBytes)
	go func() { written <- d.writeChunks(name, abs, deep, order, free, held, &stop) }()

	rerr := d.readChunks(st, free, work, order, held, &stop)
	close(work)
	close(order)
	werr := <-written
	wg.Wait()
	d.peakHeld = max(d.peakHeld, held.peak)
	if werr != nil {
		return werr
	}
	if rerr != nil {
		return rerr
	}
	if err := st.Err(); err != nil {
		return err
	}
	return d.streamEnd(name, st)
}

// startFormatters starts d.workers goroutines, each with a formatter of
// its own, that format the chunks of work until it is closed (only marking
// them done once stop is set).
func (d *Dumper) startFormatters(wg *sync.WaitGroup, name string, deep bool, work <-chan *dumpChunk, stop *atomic.Bool) {
	for range d.workers {
		f := d.newChunkFormatter()
		wg.Add(1)
		go func() {
			defer wg.Done()
			for c := range work {
				if !stop.Load() {
					f.format(name, c, deep)
				}
				c.done <- struct{}{}
			}
		}()
	}
}

// newChunkFormatter is a formatter of its own (decoders, buffers, a clone
// of the content parser) for a worker or the writer.
func (d *Dumper) newChunkFormatter() *formatter {
	f := &formatter{}
	var jw *jsonWriter
	if d.json != nil {
		jw = &jsonWriter{v1: d.json.v1}
	}
	p := d.opts.Parser
	if p != nil {
		p = content.Clone(p)
	}
	f.init(&d.opts, nil, jw, p)
	return f
}

// writeChunks writes the chunks of order, each once formatted, in file
// order, joins their record offsets into the summary, and returns each to
// free. At a chunk's error it sets stop, writes nothing more, and returns
// that error once order is closed.
func (d *Dumper) writeChunks(name, abs string, deep bool, order <-chan *dumpChunk, free chan<- *dumpChunk, held *byteBudget, stop *atomic.Bool) error {
	var err error
	last := int64(-1)
	join := func(t *offsetTrack) {
		if t.seen {
			if t.first != last+1 {
				d.recordGaps(abs, [][2]int64{{last, t.first}})
			}
			d.recordGaps(abs, t.gaps)
			last = t.last
		}
	}
	var f *formatter // formats what passed a chunk's output cap
	for c := range order {
		<-c.done
		if err == nil {
			d.writeLarge(c.out.b)
			join(&c.offsets)
			if c.resume >= 0 && c.err == nil {
				if f == nil {
					f = d.newChunkFormatter()
				}
				t, ferr := f.formatFrom(name, c, deep, d.out)
				join(&t)
				c.err = ferr
			}
			if c.err != nil {
				err = c.err
				stop.Store(true)
			}
		}
		held.release(c.size)
		c.reset()
		free <- c
	}
	return err
}

// byteBudget counts the entries' bytes the chunks in flight hold; take
// waits while they hold limit or more, unless none is held.
type byteBudget struct {
	mu    sync.Mutex
	cond  *sync.Cond
	held  int
	limit int
	peak  int
}

func newByteBudget(limit int) *byteBudget {
	b := &byteBudget{limit: limit}
	b.cond = sync.NewCond(&b.mu)
	return b
}

// wait blocks until the chunks in flight hold less than the limit.
func (b *byteBudget) wait() {
	b.mu.Lock()
	for b.held >= b.limit {
		b.cond.Wait()
	}
	b.mu.Unlock()
}

func (b *byteBudget) take(n int) {
	b.mu.Lock()
	b.held += n
	b.peak = max(b.peak, b.held)
	b.mu.Unlock()
}

func (b *byteBudget) release(n int) {
	b.mu.Lock()
	b.held -= n
	b.mu.Unlock()
	b.cond.Broadcast()
}

// readChunks frames st's batches into chunks from free and hands each
// full chunk (and the last) to work and, in the same order, to order. It
// stops early when stop is set or a batch's bytes cannot be read, and
// returns that error.
func (d *Dumper) readChunks(st *segment.Stream, free <-chan *dumpChunk, work, order chan<- *dumpChunk, held *byteBudget, stop *atomic.Bool) error {
	var c *dumpChunk
	var rerr error
	limit := chunkBytes
	if !d.opts.DeepIteration && !d.opts.PrintDataLog {
		limit *= linesChunkFactor
	}
	for !stop.Load() && st.Next() {
		b := st.Batch()
		d.opts.Progress.Add(b.Size, 1)
		raw, err := b.Bytes()
		if err != nil {
			rerr = err
			break
		}
		if c == nil {
			held.wait()
			c = <-free
		}
		var blk *dataBlock
		if d.blocks != nil {
			if blk = d.blocks.holder(raw, b.Pos); blk != nil {
				d.inPlace++
			}
		}
		c.add(b, raw, blk)
		if c.full(limit) {
			held.take(c.size)
			work <- c
			order <- c
			c = nil
		}
	}
	if c != nil {
		held.take(c.size)
		work <- c
		order <- c
	}
	return rerr
}
