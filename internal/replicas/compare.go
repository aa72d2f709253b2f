package replicas

import (
	"context"
	"fmt"
	"sync"

	"github.com/kseg/kseg/index"
	"github.com/kseg/kseg/segment"
)

// chunkSize is how many batch summaries a reader hands over at once; each
// reader has at most two chunks waiting.
const chunkSize = 512

type chunk struct {
	recs []rec
	err  error
}

// reader streams one copy's batches in chunks.
type reader struct {
	ch  chan chunk
	buf []rec
	i   int
	cur rec
	ok  bool
	err error
}

func startReader(ctx context.Context, wg *sync.WaitGroup, p *segment.Partition) *reader {
	r := &reader{ch: make(chan chunk, 2)}
	wg.Add(1)
	go func() {
		defer wg.Done()
		defer close(r.ch)
		send := func(c chunk) bool {
			select {
			case r.ch <- c:
				return true
			case <-ctx.Done():
				return false
			}
		}
		st := &segment.Stream{}
		defer st.Close()
		out := make([]rec, 0, chunkSize)
		for _, seg := range p.Segments {
			if err := st.OpenSegment(seg, 0); err != nil {
				send(chunk{err: err})
				return
			}
			for st.Next() {
				x, err := fromBatch(st.Batch())
				if err != nil {
					send(chunk{err: segment.Locate(st.Name(), st.Batch().Pos, err)})
					return
				}
				out = append(out, x)
				if len(out) == chunkSize {
					if !send(chunk{recs: out}) {
						return
					}
					out = make([]rec, 0, chunkSize)
				}
			}
			if err := st.Err(); err != nil {
				send(chunk{err: err})
				return
			}
			st.Close()
		}
		if len(out) > 0 {
			send(chunk{recs: out})
		}
	}()
	return r
}

// next moves to the next batch; false at the end or on an error (err).
func (r *reader) next() bool {
	for r.i >= len(r.buf) {
		c, ok := <-r.ch
		if !ok {
			r.ok = false
			return false
		}
		if c.err != nil {
			r.err, r.ok = c.err, false
			return false
		}
		r.buf, r.i = c.recs, 0
	}
	r.cur = r.buf[r.i]
	r.i++
	r.ok = true
	return true
}

// copyState is what the pass accumulates for one copy.
type copyState struct {
	in         *Input
	r          *reader
	first, end int64 // first base offset, offset after the last batch
	batches    int64
	records    int64
	bepochs    []index.EpochEntry
	backwards  []string
	start      int64 // the log start (max of checkpoint and first batch)
}

type pairState struct {
	i, j   int
	p      Pair
	lastEp int32 // epoch of the last identical batch
	ahead  int   // status behind: the copy that is ahead
}

// Compare reads the copies in one pass and compares every pair. An error
// reading a copy (unreadable, corrupt) stops it.
func Compare(partition string, inputs []Input) (*Result, error) {
	if len(inputs) < 2 {
		return nil, fmt.Errorf("%s: need at least two copies to compare, got %d", partition, len(inputs))
	}
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	defer func() {
		cancel()
		wg.Wait()
	}()
	cs := make([]*copyState, len(inputs))
	for k := range inputs {
		cs[k] = &copyState{in: &inputs[k], r: startReader(ctx, &wg, inputs[k].Part), first: -1, end: -1}
	}
	// The log start must be known before comparing: it comes from the
	// checkpoint and from the first batch.
	for _, c := range cs {
		if c.r.next() {
			c.first = c.r.cur.base
		} else if c.r.err != nil {
			return nil, fmt.Errorf("%s: %w", c.in.Name, c.r.err)
		}
		c.start = max(c.first, c.in.LogStart)
		if c.first < 0 {
			c.start = max(c.in.LogStart, 0)
		}
	}
	var ps []*pairState
	for i := range cs {
		for j := i + 1; j < len(cs); j++ {
			ps = append(ps, &pairState{i: i, j: j, lastEp: -1, ahead: -1, p: Pair{A: cs[i].in.Name, B: cs[j].in.Name,
				Status: StatusAgree, CommonStart: max(cs[i].start, cs[j].start), Offset: -1, Epoch: -1, TruncateTo: -1}})
		}
	}
	in := make([]bool, len(cs))
	for {
		m := int64(-1)
		for _, c := range cs {
			if c.r.ok && (m < 0 || c.r.cur.base < m) {
				m = c.r.cur.base
			}
		}
		if m < 0 {
			break
		}
		for k, c := range cs {
			in[k] = c.r.ok && c.r.cur.base == m
			if in[k] {
				c.account()
			}
		}
		for _, s := range ps {
			s.step(cs, in, m)
		}
		for k, c := range cs {
			if in[k] && !c.r.next() && c.r.err != nil {
				return nil, fmt.Errorf("%s: %w", c.in.Name, c.r.err)
			}
		}
	}
	res := &Result{Partition: partition}
	for _, c := range cs {
		res.Copies = append(res.Copies, c.result())
	}
	for _, s := range ps {
		s.finish(res.Copies[s.i], res.Copies[s.j])
		res.Pairs = append(res.Pairs, s.p)
	}
	return res, nil
}

// account adds the current batch to the copy's totals and epoch history.
func (c *copyState) account() {
	x := &c.r.cur
	c.batches++
	c.records += int64(x.records)
	c.end = x.last + 1
	if x.epoch < 0 {
		return
	}
	n := len(c.bepochs)
	switch {
	case n == 0 || x.epoch > c.bepochs[n-1].Epoch:
		c.bepochs = append(c.bepochs, index.EpochEntry{Epoch: x.epoch, StartOffset: x.base})
	case x.epoch < c.bepochs[n-1].Epoch && len(c.backwards) < 10:
		c.backwards = append(c.backwards, fmt.Sprintf("the batch at offset %d has epoch %d, lower than epoch %d before it", x.base, x.epoch, c.bepochs[n-1].Epoch))
	}
}

func (c *copyState) result() Copy {
	in := c.in
	out := Copy{Name: in.Name, LogStart: c.start, LogEnd: c.end, FirstOffset: c.first, Batches: c.batches, Records: c.records,
		BatchEpochs: c.bepochs, HighWatermark: in.HighWatermark, RecoveryPoint: in.RecoveryPoint, Broker: in.Broker, Leader: in.Leader}
	if out.LogEnd < 0 {
		out.LogEnd = out.LogStart
	}
	if in.LogEnd >= 0 {
		out.LogEnd = max(out.LogEnd, in.LogEnd)
	}
	if in.Checkpoint != nil {
		out.Epochs, out.EpochsFrom = clip(in.Checkpoint, out.LogStart), in.CheckpointFrom
		out.EpochNotes = compareHistories(in.Checkpoint, c.bepochs, max(out.LogStart, c.first), out.LogEnd)
	} else {
		out.Epochs, out.EpochsFrom = c.bepochs, "batches"
	}
	out.EpochNotes = append(out.EpochNotes, c.backwards...)
	if in.Finish != nil {
		in.Finish(&out)
	}
	return out
}

// step compares the batches at offset m of the pair's two copies.
func (s *pairState) step(cs []*copyState, in []bool, m int64) {
	i, j := s.i, s.j
	if !in[i] && !in[j] {
		return
	}
	a, b := &cs[i].r.cur, &cs[j].r.cur
	switch s.p.Status {
	case StatusDiverged:
		if in[i] {
			s.p.OnlyA, s.p.MoreRunsA = addRun(s.p.OnlyA, s.p.MoreRunsA, s.p.A, a)
		}
		if in[j] {
			s.p.OnlyB, s.p.MoreRunsB = addRun(s.p.OnlyB, s.p.MoreRunsB, s.p.B, b)
		}
		return
	case StatusBehind:
		if in[s.ahead] {
			s.p.BehindRecords += int64(cs[s.ahead].r.cur.records)
		}
		return
	}
	if m < s.p.CommonStart {
		// Below one copy's log start: retention or DeleteRecords, not
		// compared.
		k, x := i, a
		if !in[i] {
			k, x = j, b
		}
		if in[i] && in[j] {
			return // both still hold it
		}
		bs := s.p.Below
		if bs == nil {
			bs = &BelowStart{Copy: cs[k].in.Name, FirstOffset: x.base}
			s.p.Below = bs
		}
		bs.LastOffset = x.last
		bs.Batches++
		bs.Records += int64(x.records)
		return
	}
	switch {
	case in[i] && in[j]:
		if a.last == b.last && a.crc == b.crc {
			s.p.Shared++
			s.lastEp = max(s.lastEp, min(a.epoch, b.epoch)) // the CRC excludes the epoch: the copies may stamp it differently
			return
		}
		s.diverge(m)
		s.step(cs, in, m)
	case in[i] && !cs[j].r.ok, in[j] && !cs[i].r.ok:
		// One copy ended: the other is ahead of it.
		s.ahead = i
		behind := j
		if in[j] {
			s.ahead, behind = j, i
		}
		s.p.Status = StatusBehind
		s.p.Behind, s.p.BehindFrom = cs[behind].in.Name, m
		s.p.BehindRecords = int64(cs[s.ahead].r.cur.records)
	default:
		// One copy holds m, the other goes on after it: a gap.
		s.diverge(m)
		s.step(cs, in, m)
	}
}

func (s *pairState) diverge(m int64) {
	s.p.Status = StatusDiverged
	s.p.Offset = m
}

// addRun appends batch x to the runs of one side, extending the last run
// when x continues it (same epoch and producer).
func addRun(runs []Run, more int64, name string, x *rec) ([]Run, int64) {
	if n := len(runs); n > 0 {
		r := &runs[n-1]
		if r.Epoch == x.epoch && r.ProducerID == x.pid && r.ProducerEpoch == x.pepoch && more == 0 {
			r.LastOffset = x.last
			r.LastSequence = x.lastSeq()
			r.Batches++
			r.Records += int64(x.records)
			r.MaxTimestamp = max(r.MaxTimestamp, x.maxTS)
			return runs, more
		}
	}
	if len(runs) >= MaxRuns {
		return runs, more + 1
	}
	return append(runs, Run{Copy: name, FirstOffset: x.base, LastOffset: x.last, Epoch: x.epoch, ProducerID: x.pid,
		ProducerEpoch: x.pepoch, FirstSequence: x.seq, LastSequence: x.lastSeq(), Batches: 1, Records: int64(x.records),
		FirstTimestamp: x.firstTS, MaxTimestamp: x.maxTS}), more
}

// finish names the epoch, Kafka's truncation offset and the cause of a
// divergence, and why a copy is behind.
func (s *pairState) finish(a, b Copy) {
	p := &s.p
	switch p.Status {
	case StatusBehind:
		bh := a
		if p.Behind == b.Name {
			bh = b
		}
		p.BehindCause = BehindLagging
		if bh.HighWatermark > bh.LogEnd || bh.RecoveryPoint > bh.LogEnd {
			p.BehindCause = BehindTruncated
		}
		return
	case StatusAgree:
		return
	}
	ha, hb := clip(a.Epochs, p.CommonStart), clip(b.Epochs, p.CommonStart)
	p.Epoch = shared(ha, hb, p.Offset+1)
	if p.Epoch < 0 && s.lastEp >= 0 {
		p.Epoch = s.lastEp
	}
	if ea, ok := endOf(ha, p.Epoch, a.LogEnd); ok {
		if eb, ok := endOf(hb, p.Epoch, b.LogEnd); ok {
			p.TruncateTo = min(ea, eb)
		}
	}
	firstA, firstB := runAt(p.OnlyA, p.Offset), runAt(p.OnlyB, p.Offset)
	switch {
	case firstA == nil || firstB == nil:
		p.Cause = CauseGap
		holder, lacks := p.A, p.B
		if firstA == nil {
			holder, lacks = p.B, p.A
		}
		p.Detail = fmt.Sprintf("%s holds offset %d, %s has no batch there but holds later ones", holder, p.Offset, lacks)
	case firstA.Epoch != firstB.Epoch:
		p.Cause = CauseUnclean
		older, newer, eo, en := p.A, p.B, firstA.Epoch, firstB.Epoch
		hNewer := hb
		if firstB.Epoch < firstA.Epoch {
			older, newer, eo, en = p.B, p.A, firstB.Epoch, firstA.Epoch
			hNewer = ha
		}
		p.Loses = older
		end, ok := endOf(hNewer, eo, -1)
		switch {
		case ok && end >= 0:
			p.Detail = fmt.Sprintf("%s wrote epoch %d from offset %d; on %s epoch %d ended at offset %d, so %s's batches of epoch %d from %d never reached the leader of epoch %d (an unclean leader election, or a fast failover): following that leader truncates them away", older, eo, p.Offset, newer, eo, end, older, eo, p.Offset, en)
		default:
			p.Detail = fmt.Sprintf("%s holds epoch %d from offset %d, %s holds epoch %d there and never saw epoch %d from that offset: the leaders of the two epochs had different logs (an unclean leader election)", older, eo, p.Offset, newer, en, eo)
		}
	default:
		p.Cause = CauseSameEpoch
		p.Detail = fmt.Sprintf("both hold epoch %d at offset %d with different batches: copies written independently (a restore from elsewhere, a disk swap, corruption); Kafka's epoch-based truncation cannot see this", firstA.Epoch, p.Offset)
	}
}

// runAt is the first run when it starts at offset o.
func runAt(runs []Run, o int64) *Run {
	if len(runs) > 0 && runs[0].FirstOffset == o {
		return &runs[0]
	}
	return nil
}
