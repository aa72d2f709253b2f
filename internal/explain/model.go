package explain

import (
	"fmt"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/kseg/kseg/batch"
	"github.com/kseg/kseg/producer"
	"github.com/kseg/kseg/segment"
)

// modelRecords bounds the records read again for the producer model's
// fit: the batches begun in a window around the middle of the producer's
// log holding at most this many (the whole log when it holds fewer), so
// explain's cost and memory for linger.ms do not grow with the log.
const modelRecords = 100000

// maxModelled bounds the producers explain fits the producer model to
// (each fit costs about the same, however few its records): a log written
// by many producers at once, or by a new producer per request, gets the
// model for the maxModelled with the most batches, and a note for the
// others, so that explain's time stays bounded.
const maxModelled = 200

// minLingerCuts is the fewest batches cut by linger.ms (in the ideal
// replay's story) that let the model's range bound linger.ms above: fewer
// may be explicit flush() calls, which the log cannot tell from a linger
// expiry.
const minLingerCuts = 3

// modelFit bounds each sender fit of linger.ms's search (FitLinger fits
// one per linger.ms value tried): the records a try replays and its runs.
// Its replays spread a millisecond's records evenly, bursts too
// (producer.SpreadEven): with the burst placement a fixed-rate log of
// what-if data (a send every 100 us, linger.ms=0) was given linger.ms
// 1..4 (docs/calibration.md, "A burst's records at the session's peak
// pace"). Its runs draw the sender's speed at random
// (producer.FitOptions.RandomSpeeds), as they were validated.
var modelFit = producer.FitOptions{Runs: 5, MaxRecords: 4000, Rounds: 2, Seed: 1, Spread: producer.SpreadEven, RandomSpeeds: true}

// modelWork bounds a fit's records times the producer's partitions: the
// model's sender visits every partition at each step (as the Java
// producer's ready() does), so a producer of many partitions is fitted
// on fewer records (at least minModelRecords), and explain's time per
// batch stays about the same whatever the partition count.
const (
	modelWork       = 400000
	minModelRecords = 1000
)

// inferLinger sets linger.ms and the sender from the producer model run
// backwards (producer.FitLinger): for each linger.ms tried, the sender
// (lag, close cost, round trip) fitted so that the model's replay of the
// log's own records under the inferred batch.size, compression and
// linger.ms reproduces the log's layout; the interval holds the values
// whose fit reproduces it as well as the best (LingerRange.Tolerance), and the
// gaps beside them not tried. lingerN is the batches the replay's story
// cuts by linger.ms.
func (p *Producer) inferLinger(in *inference, codec batch.Codec, lingerN int) {
	s := &p.Settings
	if len(p.sources) == 0 {
		return
	}
	if p.unmodelled > 0 {
		s.Notes = append(s.Notes, fmt.Sprintf("linger.ms: the producer model was fitted to the %d producers with the most batches of the log's %d, not to this one", maxModelled, p.unmodelled))
		return
	}
	if len(in.data) < 2 {
		// No cut to compare a replay with: any linger.ms and any sender
		// make one batch of it. A log of many such producers (one per
		// request) would otherwise fit the model to each, for nothing.
		s.Notes = append(s.Notes, "linger.ms: the producer wrote one batch: no cut between batches to fit the producer model to")
		return
	}
	t0, t1 := modelWindow(in.data)
	tr, err := p.readTrace(t0, t1)
	if err != nil {
		s.Notes = append(s.Notes, fmt.Sprintf("linger.ms: the records could not be read again for the producer model: %v", err))
		return
	}
	cfg := producer.DefaultConfig()
	if iv := s.BatchSize; iv != nil && iv.Likely > 0 {
		cfg.BatchSize = int(iv.Likely)
	}
	if s.Compression != "mixed" {
		cfg.Compression = codec
	}
	if p.ProducerID < 0 {
		cfg.Idempotence, cfg.Acks = false, 1
	}
	top := lingerTop(in.data, t0, t1)
	opts := modelFit
	opts.MaxRecords = max(minModelRecords, min(opts.MaxRecords, modelWork/max(1, len(p.sources))))
	r, err := producer.FitLinger([]*producer.Trace{tr}, cfg, top, opts)
	if err != nil {
		s.Notes = append(s.Notes, fmt.Sprintf("linger.ms: the producer model could not be fitted: %v", err))
		return
	}
	p.model = r
	if r.Likely == nil {
		s.Notes = append(s.Notes, "linger.ms: the producer model's replay reproduces the log at no linger.ms tried")
		return
	}
	for _, f := range []*producer.LingerFit{r.Likely, r.Lowest, r.Highest} {
		if !slices.ContainsFunc(s.Senders, func(x SenderStory) bool { return x.LingerMs == f.LingerMs }) {
			x := senderStory(f)
			x.OrMore = r.Max < 0 && f == r.Highest
			s.Senders = append(s.Senders, x)
		}
	}
	hiText := fmt.Sprint(r.Highest.LingerMs)
	if r.Max < 0 {
		hiText += " or more"
	}
	tried := fmt.Sprintf("the producer model, its sender fitted to %d records of the log at each of %d linger.ms values, reproduces the log's layout (score within %.3f of the best, %.3f) from linger.ms %d to %s",
		r.Likely.Fit.Records, len(r.Fits), r.Tolerance, r.Best, r.Lowest.LingerMs, hiText)
	tradeoff := ""
	if r.Lowest.LingerMs < r.Highest.LingerMs {
		tradeoff = fmt.Sprintf("; lag and linger.ms trade off: linger.ms=%d with a sender lag of %s or linger.ms=%s with %s",
			r.Lowest.LingerMs, ms(r.Lowest.Fit.Sender.Lag), hiText, ms(r.Highest.Fit.Sender.Lag))
	}
	if r.Max < 0 {
		s.Notes = append(s.Notes, fmt.Sprintf("linger.ms: not bounded above: %s%s (past the log's longest gap, %d ms, no longer linger.ms changes the batches)", tried, tradeoff, r.Highest.LingerMs-1))
		return
	}
	if lingerN < minLingerCuts {
		// An explicit flush() cuts a batch as a linger expiry does: a
		// log of a few such cuts may be a few flushes.
		s.Notes = append(s.Notes, fmt.Sprintf("linger.ms: %s%s, but %d batch(es) are cut by linger.ms, fewer than %d: an explicit flush() cuts a batch as linger.ms does, so the log sets no upper bound", tried, tradeoff, lingerN, minLingerCuts))
		return
	}
	iv := &Interval{Min: r.Min, Max: r.Max, Likely: r.Likely.LingerMs, Batches: lingerN, Confidence: Low}
	if _, ok := firstRound(iv.Likely, iv.Likely, roundLinger); !ok {
		// the value people set, when one in the range reproduces as well
		for _, f := range r.Fits {
			if f.Reproduces && roundLinger(f.LingerMs) {
				iv.Likely = f.LingerMs
				break
			}
		}
	}
	switch {
	case iv.Min > 0 && iv.Max-iv.Min <= max(5, iv.Max/5):
		iv.Confidence = High
	case iv.Min > 0:
		iv.Confidence = Medium
	}
	var out []string
	for _, f := range r.Fits {
		if !f.Reproduces && (f.LingerMs == iv.Max+1 || f.LingerMs == iv.Min-1) {
			out = append(out, fmt.Sprintf("%d does not (its best sender replays %+.1f%% batches)", f.LingerMs, 100*f.Fit.BatchError))
		}
	}
	iv.Evidence = tried + tradeoff
	if len(out) > 0 {
		iv.Evidence += "; " + strings.Join(out, ", ")
	}
	s.LingerMs = iv
}

// ms is a duration in milliseconds, as the evidence says it.
func ms(d time.Duration) string {
	return fmt.Sprintf("%.2f ms", float64(d)/float64(time.Millisecond))
}

func senderStory(f *producer.LingerFit) SenderStory {
	snd := f.Fit.Sender
	return SenderStory{LingerMs: f.LingerMs,
		LagMs: float64(snd.Lag) / 1e6, CloseMs: float64(snd.Close) / 1e6, RTTMs: float64(snd.RTT) / 1e6,
		BatchError: f.Fit.BatchError, HistError: f.Fit.HistError, Records: f.Fit.Records}
}

// modelWindow is the time window [t0, t1) of the batches the model is
// fitted to: every batch when they hold at most modelRecords records,
// else the consecutive batches (in start order) around the middle of the
// log that hold about that many.
func modelWindow(data []*Batch) (t0, t1 int64) {
	starts := make([]*Batch, len(data))
	for _, b := range data {
		starts[b.idx] = b // idx is the start order (newInference)
	}
	var total int64
	for _, b := range starts {
		total += int64(b.Records)
	}
	lo, hi := 0, len(starts)
	if total > modelRecords {
		// from the middle batch outwards
		mid := len(starts) / 2
		lo, hi = mid, mid
		var n int64
		for n < modelRecords && (lo > 0 || hi < len(starts)) {
			if hi < len(starts) {
				n += int64(starts[hi].Records)
				hi++
			}
			if lo > 0 && n < modelRecords {
				lo--
				n += int64(starts[lo].Records)
			}
		}
	}
	t0 = starts[lo].FirstTs
	t1 = math.MaxInt64
	if hi < len(starts) {
		t1 = starts[hi].FirstTs
		if t1 == t0 {
			t1++ // a window of one millisecond still holds its batches
		}
	}
	return t0, t1
}

// lingerTop is the longest linger.ms the batches begun in [t0, t1) can
// tell from a longer one: past their longest span and the longest gap
// from a batch's first record to its successor's, every batch would have
// taken the next record (were there room), so no longer linger.ms
// changes the batches.
func lingerTop(data []*Batch, t0, t1 int64) int64 {
	var top int64
	for _, b := range data {
		if b.FirstTs < t0 || b.FirstTs >= t1 {
			continue
		}
		top = max(top, b.span())
		if b.succ != nil && b.succ.FirstTs < t1 {
			top = max(top, b.gap())
		}
	}
	return top
}

// readTrace reads again the producer's records of the batches begun in
// [t0, t1) into a trace for the model over the partitions it wrote (the
// trace's partition i is p.sources[i]): each record at its timestamp, in
// its partition when it has a key or the producer did not spread its
// records with the sticky partitioner (else the model's partitioner
// chooses among them, as the producer's did).
func (p *Producer) readTrace(t0, t1 int64) (*producer.Trace, error) {
	var epoch int16
	if len(p.Batches) > 0 {
		epoch = p.Batches[0].ProducerEpoch
	}
	tb := producer.NewTraceBuilder(p.Topic, len(p.sources), p.ProducerID, epoch)
	spread := p.Settings.Partitioner == "sticky"
	st := &segment.Stream{}
	defer st.Close()
	var rec batch.Record
	for _, sp := range p.spans {
		i, seg := int(sp.src), p.sources[sp.src].Segments[sp.seg]
		if err := p.openSpan(st, seg, sp); err != nil {
			return nil, err
		}
		for st.Next() {
			sb := st.Batch()
			if sb.Pos > sp.hi {
				break
			}
			if sb.IsLegacy() {
				continue
			}
			info, err := sb.Info()
			if err != nil {
				return nil, err
			}
			pid := info.ProducerID
			if pid < 0 {
				pid = -1
			}
			if info.Control || info.Records == 0 || pid != p.ProducerID || sb.Header.BaseTimestamp < t0 || sb.Header.BaseTimestamp >= t1 {
				continue
			}
			tb.Batch(i, info.Size)
			br, err := sb.Records()
			if err != nil {
				return nil, err
			}
			for {
				ok, err := br.Next(&rec)
				if err != nil {
					return nil, segment.Locate(sb.File, sb.Pos, err)
				}
				if !ok {
					break
				}
				to := i
				if spread && rec.Key == nil {
					to = -1
				}
				if err := tb.Add(sb.Header.BaseTimestamp+rec.TimestampDelta, to, rec.Key, rec.Value, rec.Headers); err != nil {
					return nil, segment.Locate(sb.File, sb.Pos, err)
				}
			}
		}
		if err := st.Err(); err != nil {
			return nil, err
		}
	}
	return tb.Build()
}

// spanGap is how far (bytes) a producer's next batch may start from its
// last for one span to hold both: other producers' batches in between are
// read and skipped, a longer run of them is seeked past.
const spanGap = 256 << 10

// addSpan notes that the producer's batch at loc is in source src.
func (p *Producer) addSpan(src int32, loc batchLoc) {
	if n := len(p.spans); n > 0 {
		if sp := &p.spans[n-1]; sp.src == src && sp.seg == loc.seg && loc.pos-sp.hi <= spanGap {
			sp.hi = loc.pos
			return
		}
	}
	p.spans = append(p.spans, readSpan{src: src, seg: loc.seg, lo: loc.pos, hi: loc.pos})
}

// openSpan frames sp's bytes of seg: a local file from the span's first
// batch, in blocks no larger than the span needs (a log written by many
// producers, one request each, is read again a producer's few batches at
// a time, not whole for each); any other source (fetched, windowed) from
// its start.
func (p *Producer) openSpan(st *segment.Stream, seg segment.Segment, sp readSpan) error {
	if seg.Open != nil || seg.Window != nil {
		st.SetOptions(segment.Options{})
		return st.OpenSegment(seg, 0)
	}
	st.SetOptions(segment.Options{BlockSize: int(min(1<<20, max(64<<10, sp.hi-sp.lo+64<<10)))})
	if err := st.OpenSegment(seg, 0); err != nil {
		return err
	}
	st.StartAt(sp.lo)
	return nil
}
