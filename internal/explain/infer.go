package explain

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/kseg/kseg/batch"
	"github.com/kseg/kseg/producer"
	"github.com/kseg/kseg/segment"
)

// Confidence of an inferred setting.
const (
	High   = "high"
	Medium = "medium"
	Low    = "low"
)

// Interval is an inferred numeric setting: Min <= value <= Max (Max < 0:
// no upper bound in the log). Likely is the value the evidence favours.
type Interval struct {
	Min, Max   int64
	Likely     int64
	Confidence string
	Batches    int    // batches the bounds rest on
	Evidence   string // which batches set the bounds
}

// Settings are the producer settings inferred for one producer id. A nil
// pointer or an empty string means the log does not say.
type Settings struct {
	BatchSize   *Interval
	LingerMs    *Interval
	Compression string  // none, gzip, snappy, lz4, zstd, or "mixed"
	Ratio       float32 // the producer's compression-ratio estimate after the last batch (0: none)
	Idempotence *bool
	Acks        string // "all" when idempotence forces it, else ""
	Sync        *bool
	Partitioner string // keyed, sticky, round-robin, unknown
	MaxInFlight string // evidence about max.in.flight.requests.per.connection, "" for none
	// Alternatives are stories the log cannot tell apart (every batch of
	// one record: sync sends, linger.ms below the send interval, records
	// above batch.size); explain names them instead of choosing.
	Alternatives []string
	// Notes say why a setting has no answer (records without timestamps).
	Notes []string
	// Senders are the producer model's senders fitted to the log with
	// the inferred settings (inferLinger): the likely story first, then
	// the ends of the linger.ms range where lag and linger.ms trade off
	// (a lagging sender at a short linger.ms, a prompt one at a longer).
	// Empty when the model was not fitted.
	Senders []SenderStory
}

// SenderStory is the producer model's sender fitted to the log at one
// linger.ms (producer.FitSender): its median lag from a wakeup to the
// sender running, its cost to close a batch, the produce round trip, and
// how close its replay comes to the log.
type SenderStory struct {
	LingerMs int64
	// OrMore: LingerMs stands for every value from it up (past the
	// log's longest gap no longer linger.ms changes the batches).
	OrMore                bool
	LagMs, CloseMs, RTTMs float64
	// BatchError is (the replay's median batches − the log's) / the
	// log's, HistError the records-per-batch distance (0 to 1), over
	// Records records of the log.
	BatchError, HistError float64
	Records               int
}

// Producer is what the log says about one producer id in one topic
// (producer id -1, non-idempotent producers, are one group).
type Producer struct {
	Topic      string
	ProducerID int64
	Partitions []int32
	Settings   Settings
	Cuts       map[string]int
	Batches    []*Batch // per partition, in offset order
	// TopicPartitions is the topic's partition count as explain saw it
	// (one more than the highest partition given).
	TopicPartitions int

	story evidenceStory // what its batches' Evidence sentences share
	// sources are the partitions it wrote, read again for the records
	// the producer model is fitted to (inferLinger)
	sources []*segment.Partition
	// spans are where its batches are in them (readSpan), in read order
	spans []readSpan
	// unmodelled, when not 0, is the producers of the log: more than
	// maxModelled, and this one not among those with the most batches
	unmodelled int
	// model is the producer model run backwards (inferLinger), nil when
	// it was not
	model *producer.LingerRange
}

// PartitionSummary is one (partition, producer) with its cut counts.
type PartitionSummary struct {
	Topic      string
	Partition  int32
	ProducerID int64
	Cuts       map[string]int
	Producer   *Producer
}

// Result is the explanation of a set of partitions.
type Result struct {
	Batches    []*Batch // partition by partition, in offset order
	Partitions []PartitionSummary
	Producers  []*Producer
	// Unread are the partitions explained only in part (Options.MaxBatches).
	Unread []Unread
}

// Unread is a partition whose data batches passed its share of
// Options.MaxBatches: the first Read were explained, and the batches from
// offset From on were not read.
type Unread struct {
	Topic     string
	Partition int32
	Read      int
	From      int64
}

// DefaultMaxBatches is Options.MaxBatches' default. Explain holds every
// batch it explains, about 185 bytes each and 350 at the peak of inference
// (TestExplainBytesPerBatch): 1,000,000 batches peak near 360 MB, where a
// busy partition of 50 segments of 1 KiB batches (50 million) would take
// 17 GB.
const DefaultMaxBatches = 1_000_000

// Options bound a run.
type Options struct {
	// MaxBatches bounds the data batches explained (0: DefaultMaxBatches),
	// shared by the partitions as segment.FairShares shares them (every
	// partition whole when they hold no more, else each up to a level a
	// smaller one leaves room above); a partition that passes its share
	// is explained from its first batches (Result.Unread).
	MaxBatches int
}

// Run reads parts and explains them, within DefaultMaxBatches.
func Run(parts []segment.Partition) (*Result, error) { return RunWith(parts, Options{}) }

// RunWith reads parts and explains them. A topic's partition count, for
// the key check, is one more than its highest partition given.
func RunWith(parts []segment.Partition, opts Options) (*Result, error) {
	bound := opts.MaxBatches
	if bound <= 0 {
		bound = DefaultMaxBatches
	}
	nParts := map[string]int{}
	for i := range parts {
		nParts[parts[i].Topic] = max(nParts[parts[i].Topic], int(parts[i].Partition)+1)
	}
	res := &Result{}
	type key struct {
		topic string
		pid   int64
	}
	groups := map[key]*Producer{}
	var order []key
	shares, err := batchShares(parts, int64(bound))
	if err != nil {
		return nil, err
	}
	read := make([]readPart, len(parts))
	for i := range parts {
		p := &parts[i]
		bs, locs, unreadFrom, err := readPartition(p, nParts[p.Topic], producer.PartitionForKey, int(shares[i]))
		if err != nil {
			return nil, err
		}
		read[i] = readPart{bs, locs, unreadFrom}
	}
	res.Unread = endTogether(parts, read)
	for i := range parts {
		p, bs, locs := &parts[i], read[i].batches, read[i].locs
		read[i] = readPart{}
		res.Batches = append(res.Batches, bs...)
		seen := map[int64]bool{}
		for i, b := range bs {
			k := key{p.Topic, b.ProducerID}
			g := groups[k]
			if g == nil {
				g = &Producer{Topic: p.Topic, ProducerID: b.ProducerID, Cuts: map[string]int{}}
				groups[k] = g
				order = append(order, k)
			}
			if !seen[b.ProducerID] {
				seen[b.ProducerID] = true
				g.Partitions = append(g.Partitions, p.Partition)
				g.sources = append(g.sources, p)
				res.Partitions = append(res.Partitions, PartitionSummary{Topic: p.Topic, Partition: p.Partition, ProducerID: b.ProducerID, Cuts: map[string]int{}, Producer: g})
			}
			g.Batches = append(g.Batches, b)
			b.prod = g
			g.addSpan(int32(len(g.sources)-1), locs[i])
		}
	}
	// Exact-size slices: appending left up to twice the pointers a batch
	// needs.
	res.Batches = slices.Clone(res.Batches)
	if len(order) > maxModelled {
		// the producers with the most batches keep the model
		byBatches := slices.Clone(order)
		slices.SortStableFunc(byBatches, func(a, b key) int { return len(groups[b].Batches) - len(groups[a].Batches) })
		for _, k := range byBatches[maxModelled:] {
			groups[k].unmodelled = len(order)
		}
	}
	for _, k := range order {
		g := groups[k]
		g.Batches = slices.Clone(g.Batches)
		g.TopicPartitions = nParts[k.topic]
		g.infer(nParts[k.topic])
		res.Producers = append(res.Producers, g)
	}
	for i := range res.Partitions {
		ps := &res.Partitions[i]
		for _, b := range ps.Producer.Batches {
			if b.Partition == ps.Partition {
				ps.Cuts[b.Cut()]++
			}
		}
	}
	return res, nil
}

// batchShares divides bound among parts by segment.FairShares over their
// data batches, counted from the headers of the local ones (a remote
// partition, which counting would fetch twice, counts as large).
func batchShares(parts []segment.Partition, bound int64) ([]int64, error) {
	sizes := make([]int64, len(parts))
	for i := range parts {
		sizes[i] = bound
		if parts[i].Local() {
			c, err := segment.CountData(&parts[i], bound, -1, nil)
			if err != nil {
				return nil, err
			}
			sizes[i] = c.Batches
			if c.More {
				sizes[i]++
			}
		}
	}
	return segment.FairShares(sizes, bound), nil
}

// readPart is what RunWith read of a partition.
type readPart struct {
	batches    []*Batch
	locs       []batchLoc
	unreadFrom int64 // -1: read to its end
}

// endTogether ends the partitions of a topic of which one was not read
// to its end at the same time, and returns every partition cut short.
// A partition stopped at its share of MaxBatches ends the topic's
// explained log at its last record read: a sticky producer's batches on
// the topic's other partitions after that would lack their neighbours
// on it and read as another story (no drains, a partitioner that never
// switches there). Batches are dropped from the first whose first record
// is later; a log without timestamps keeps its share as read.
func endTogether(parts []segment.Partition, read []readPart) []Unread {
	end := map[string]int64{}
	for i := range parts {
		if rp := &read[i]; rp.unreadFrom >= 0 && len(rp.batches) > 0 {
			last := rp.batches[len(rp.batches)-1].LastTs
			if e, ok := end[parts[i].Topic]; !ok || last < e {
				end[parts[i].Topic] = last
			}
		}
	}
	var out []Unread
	for i := range parts {
		rp := &read[i]
		if e, ok := end[parts[i].Topic]; ok {
			for k, b := range rp.batches {
				if !b.Legacy && b.FirstTs > e {
					rp.unreadFrom = b.BaseOffset
					rp.batches, rp.locs = rp.batches[:k:k], rp.locs[:k:k]
					break
				}
			}
		}
		if rp.unreadFrom >= 0 {
			out = append(out, Unread{Topic: parts[i].Topic, Partition: parts[i].Partition, Read: len(rp.batches), From: rp.unreadFrom})
		}
	}
	return out
}

// est is MemoryRecordsBuilder.estimatedBytesWritten for unc record bytes
// at compression-ratio estimate r (Java float32 arithmetic).
func est(c batch.Codec, unc int, r float32) int {
	if c == batch.CodecNone {
		return batch.HeaderSize + unc
	}
	f := float32(float32(unc) * r)
	f = float32(f * float32(1.05))
	return batch.HeaderSize + int(f)
}

// lowerEstimate is the least state CompressionRatioEstimator.updateEstimation
// can reach from any state in [lo, hi] when a batch of ratio obs closes,
// taking a rise as the deteriorate step alone: so it stays at or below
// the replay's own state.
func lowerEstimate(lo, hi, obs float32) float32 {
	switch {
	case hi < obs: // every state rises
		return float32(lo + ratioDeteriorateStep)
	case lo >= obs: // every state falls, to no less than obs
		return float32(math.Max(float64(float32(lo-ratioImprovingStep)), float64(obs)))
	default: // the states below obs rise, the others fall to obs at least
		return min(float32(lo+ratioDeteriorateStep), obs)
	}
}

// CompressionRatioEstimator's steps.
const (
	ratioDeteriorateStep float32 = 0.05
	ratioImprovingStep   float32 = 0.005
)

// updateEstimate is CompressionRatioEstimator.updateEstimation.
func updateEstimate(e, observed float32) float32 {
	switch {
	case observed > e:
		return float32(math.Max(float64(float32(e+ratioDeteriorateStep)), float64(observed)))
	case observed < e:
		return float32(math.Max(float64(float32(e-ratioImprovingStep)), float64(observed)))
	}
	return e
}

func roundSize(x int64) bool {
	return x > 0 && (x%1000 == 0 || x%1024 == 0 || x&(x-1) == 0)
}

// likelySize is the value people set in [lo, hi]: a power of two, else a
// multiple of 1024, else of 1000, else lo.
func likelySize(lo, hi int64) int64 {
	for _, round := range []func(int64) bool{
		func(x int64) bool { return x > 0 && x&(x-1) == 0 },
		func(x int64) bool { return x > 0 && x%1024 == 0 },
		func(x int64) bool { return x > 0 && x%1000 == 0 },
	} {
		if v, ok := firstRound(lo, hi, round); ok {
			return v
		}
	}
	return lo
}

// likelyOpen is the likely batch.size of an interval without an upper
// bound: the first round value at or above lo when some batch of the log
// could not have taken its next record at that size (the log's fullest
// batches point there, though no size cut is certain), else Kafka's
// default when lo allows it. A log whose batches never come near a round
// value is no evidence that the producer changed batch.size (most keep
// it), and the smallest round value above lo would be a guess that caps
// every replay under it (explain's linger.ms model, whatif's original
// settings) at a size the producer may never have had.
func likelyOpen(data []*Batch, lo int64) int64 {
	r := likelySize(lo, unbounded)
	def := int64(producer.DefaultConfig().BatchSize)
	if lo > def || r == def {
		return r
	}
	for _, b := range data {
		if b.succ == nil || b.Legacy {
			continue
		}
		full := int64(est(b.Codec, int(b.Uncompressed), b.ratio[1]))
		if full <= r && full+int64(b.nextSize()) > r {
			return r
		}
	}
	return def
}

func roundLinger(x int64) bool { return x >= 0 && (x <= 2 || x%5 == 0) }

// firstRound is the smallest round value in [lo, hi] (hi < 0: unbounded,
// searched up to lo*4+1000), or lo.
func firstRound(lo, hi int64, round func(int64) bool) (int64, bool) {
	end := hi
	if end < 0 || end-lo > 1<<20 {
		end = lo + 1<<20
	}
	for x := lo; x <= end; x++ {
		if round(x) {
			return x, true
		}
	}
	return lo, false
}

const unbounded = -1

// infer sets every batch's cut and the producer's settings.
func (p *Producer) infer(topicPartitions int) {
	if strings.HasPrefix(p.Topic, "__") {
		// __consumer_offsets, __transaction_state, __cluster_metadata: the
		// broker writes them; there is no producer batching to explain.
		for _, b := range p.Batches {
			b.ev = evInternal
		}
		p.count()
		return
	}
	data, byPart, codecs := p.dataBatches()
	p.inferIdempotence(len(data) > 0)
	if len(data) == 0 {
		p.count()
		return
	}
	codec := p.inferCompression(data, codecs)
	s := &p.Settings
	s.Partitioner = partitioner(p, byPart, topicPartitions)
	for _, b := range data {
		b.succ = b.next
	}
	if s.Partitioner == "sticky" {
		linkSticky(data)
	}
	if noTimestamps(data) {
		p.markUntimed(data, codec)
		p.count()
		return
	}
	if oneRecordEach(data) {
		p.markOneRecord(data)
		p.count()
		return
	}
	if len(data) > 1 {
		f := false
		s.Sync = &f
	}
	p.inferBatching(newInference(data, byPart), codec)
	p.count()
}

// dataBatches are the batches with record timestamps and sizes (not
// legacy), all and per partition, linking each to the next of its
// partition, and the codecs they use.
func (p *Producer) dataBatches() (data []*Batch, byPart map[int32][]*Batch, codecs map[batch.Codec]bool) {
	byPart = map[int32][]*Batch{}
	codecs = map[batch.Codec]bool{}
	for _, b := range p.Batches {
		if b.Legacy {
			continue
		}
		if prev := byPart[b.Partition]; len(prev) > 0 {
			prev[len(prev)-1].next = b
		}
		byPart[b.Partition] = append(byPart[b.Partition], b)
		data = append(data, b)
		codecs[b.Codec] = true
	}
	return data, byPart, codecs
}

// inferIdempotence: a producer id means idempotence (and so acks=all);
// data batches without one mean none.
func (p *Producer) inferIdempotence(hasData bool) {
	s := &p.Settings
	if p.ProducerID >= 0 {
		t := true
		s.Idempotence = &t
		s.Acks = "all"
		s.MaxInFlight = "at most 5 (idempotence requires it)"
	} else if hasData {
		f := false
		s.Idempotence = &f
	}
}

// inferCompression sets compression.type and the final ratio estimate,
// gives every batch its range of ratio estimates, and returns the first
// batch's codec.
func (p *Producer) inferCompression(data []*Batch, codecs map[batch.Codec]bool) batch.Codec {
	s := &p.Settings
	codec := data[0].Codec
	if len(codecs) > 1 {
		s.Compression = "mixed"
	} else {
		s.Compression = codec.String()
	}
	p.estimateRatios(data, codec)
	if codec != batch.CodecNone && len(codecs) == 1 {
		s.Ratio = p.finalRatio(data)
	}
	return codec
}

// oneRecordEach: every data batch holds one record (and there are two or
// more).
func oneRecordEach(data []*Batch) bool {
	if len(data) < 2 {
		return false
	}
	for _, b := range data {
		if b.Records != 1 {
			return false
		}
	}
	return true
}

// noTimestamps: no data record carries a timestamp (-1, NO_TIMESTAMP: an
// old client's message format converted by the broker). Such a log says
// nothing of time, so no cut can be laid to linger.ms or to a record
// that came while a batch was open.
func noTimestamps(data []*Batch) bool {
	for _, b := range data {
		if b.FirstTs >= 0 || b.LastTs >= 0 {
			return false
		}
	}
	return len(data) > 0
}

// markOneRecord explains a producer whose every batch holds one record.
// Three producers write that log and it cannot tell them apart: sync
// sends, linger.ms below the send interval (each record drained alone),
// and records above batch.size (each in a buffer of its own). So
// batch.size and linger.ms get no interval; the alternatives are named,
// with what each would imply. Sync is called likely only when the
// records are spaced as send().get() spaces them (detectSync).
func (p *Producer) markOneRecord(data []*Batch) {
	s := &p.Settings
	minGap := int64(unbounded)
	minUB := int64(math.MaxInt64)
	for _, b := range data {
		if b.succ != nil && b.succ.FirstTs >= 0 && b.LastTs >= 0 && (minGap < 0 || b.gap() < minGap) {
			minGap = b.gap()
		}
		minUB = min(minUB, int64(b.FirstUB))
	}
	p.story.minGap = minGap
	sync := p.detectSync(data)
	if sync {
		t := true
		s.Sync = &t
	}
	gap := "the records' spacing"
	if minGap >= 0 {
		gap = fmt.Sprintf("%d ms, the shortest gap between records", minGap)
	}
	s.Alternatives = []string{
		"synchronous sends (send().get()): each record waits for the previous one's ack",
		"linger.ms below the send interval (" + gap + "): each record drained alone",
		fmt.Sprintf("records above batch.size: batch.size < %d B (the smallest record's buffer), each record in a buffer of its own", minUB),
	}
	s.Notes = append(s.Notes, "every batch holds one record: batch.size and linger.ms cannot be told from the log (see alternatives)")
	for _, b := range data {
		b.ev = evOneRecord
		if sync {
			b.ev = evSync
		}
	}
}

// markUntimed explains a producer whose records carry no timestamps:
// batch.size keeps only the lower bound that batches of several records
// set (they held that much), nothing else about time is inferred.
func (p *Producer) markUntimed(data []*Batch, codec batch.Codec) {
	s := &p.Settings
	s.Notes = append(s.Notes, "records carry no timestamps (-1, an old client's message format): the log holds no timing evidence, so linger.ms, sync sends and any batch.size upper bound cannot be inferred")
	for _, b := range data {
		b.ev = evUntimed
	}
	blo, from := batchSizeFloor(data)
	if from == nil {
		return
	}
	iv := &Interval{Min: blo, Max: unbounded, Likely: likelyOpen(data, blo), Confidence: Low, Batches: 1,
		Evidence: fmt.Sprintf("batch %s holds %d B; records without timestamps: no batch can be shown cut by size, so no upper bound", where(from), blo)}
	if codec != batch.CodecNone {
		iv.Evidence += "; compressed: the bound uses the producer's ratio estimates"
	}
	s.BatchSize = iv
}

// inferBatching cuts the batches of an asynchronous producer and sets
// batch.size and linger.ms: the cuts and batch.size from replays of the
// sender over linger.ms values, linger.ms and the sender from the
// producer model run backwards (inferLinger). Where records came after
// every replay's drain, the replay is run again with the fitted sender's
// round trip (a busy node holds drains: each round trip of the senders
// that reproduce the log), and its story is told when the log
// contradicts it less.
func (p *Producer) inferBatching(in *inference, codec batch.Codec) {
	st := in.fit([]int64{0}, math.MaxInt)
	lingerN := p.tellCuts(in, st, nil, codec)
	p.inferLinger(in, codec, lingerN)
	if st.best == 0 || p.model == nil || p.model.Likely == nil {
		return
	}
	// the round trips of the senders that reproduce the log (every
	// sender each reproducing fit tried within its tolerance): the
	// model's, never a search of explain's own
	var rtts []int64
	fittedAt := map[int64]int64{}
	for _, f := range p.model.Fits {
		if !f.Reproduces {
			continue
		}
		for _, snd := range f.Fit.Near {
			rtt := max(1, int64((snd.RTT+time.Millisecond/2)/time.Millisecond))
			if _, ok := fittedAt[rtt]; !ok {
				fittedAt[rtt] = f.LingerMs
				rtts = append(rtts, rtt)
			}
		}
	}
	slices.Sort(rtts)
	for _, rtt := range rttCandidates(in.data, in.tEnd) {
		if _, ok := fittedAt[rtt]; !ok {
			fittedAt[rtt] = -1
			rtts = append(rtts, rtt)
		}
	}
	if busy := in.fit(rtts, st.best-1); busy != nil {
		// batch.size's ceiling rests on the size cuts the busy node's
		// stories and the prompt node's share: a round trip the fit
		// cannot pin (on a loaded machine up to hundreds of ms) makes
		// size cuts of drains that came late
		p.tellCuts(in, busy, st.runs, codec)
		p.noteBusy(busy.runs[0], fittedAt[busy.runs[0].rtt])
	}
}

// tellCuts gives every batch the cut of the story st tells and sets
// batch.size from it, its upper bound from the size cuts that st's runs
// and also share; it returns the batches cut by linger.ms.
func (p *Producer) tellCuts(in *inference, st *stories, also []replayRun, codec batch.Codec) (lingerN int) {
	chosen, ambiguous := in.choose(st)
	bhi, bhiFrom, promptN := in.sizeCeiling(append(slices.Clip(st.runs), also...))
	in.story = &p.story
	sizeN, lingerN := in.explainCuts(st, chosen, bhi, ambiguous)
	p.Settings.BatchSize = nil
	if sizeN > 0 || in.blo > 1 {
		p.Settings.BatchSize = in.batchSizeInterval(sizeN, promptN, bhi, bhiFrom, codec)
	}
	return lingerN
}

// noteBusy adds to max.in.flight what the busy node of the chosen story
// says: the drains it held with the fitted sender's round trip.
func (p *Producer) noteBusy(chosen replayRun, fittedAt int64) {
	s := &p.Settings
	if s.MaxInFlight != "" {
		s.MaxInFlight += "; "
	}
	if fittedAt < 0 {
		s.MaxInFlight += fmt.Sprintf("%d requests unanswered held %d drain(s) (a round trip of %d ms, read from the holds; no sender the producer model fitted has it)", inFlight, chosen.held, chosen.rtt)
		return
	}
	s.MaxInFlight += fmt.Sprintf("%d requests unanswered held %d drain(s) (a round trip of %d ms, of a sender the producer model fitted at linger.ms=%d)", inFlight, chosen.held, chosen.rtt, fittedAt)
}

// inference is what infer's steps share about one producer's data
// batches once they are linked.
type inference struct {
	data  []*Batch
	parts [][]*Batch // the batches of each partition, partitions in order
	// cand are the size-cut candidates: the next record would not have
	// fitted even at the smallest batch.size the log allows.
	cand candSet
	log  *replayLog // what every replay shares (newReplayLog)
	tEnd int64      // the producer's last record
	// story is the producer's, for its batches' evidence (explainCuts).
	story *evidenceStory
	// blo is batch.size's lower bound, set by bloFrom (nil: by no batch).
	blo     int64
	bloFrom *Batch
}

func newInference(data []*Batch, byPart map[int32][]*Batch) *inference {
	in := &inference{data: data}
	in.blo, in.bloFrom = batchSizeFloor(data)
	// Batches are numbered in the order they started, the order a replay
	// visits them, so the per-batch arrays it reads (replayLog) are read
	// in sequence however many partitions the producer wrote.
	byStart := slices.Clone(data)
	sort.SliceStable(byStart, func(i, j int) bool {
		if byStart[i].FirstTs != byStart[j].FirstTs {
			return byStart[i].FirstTs < byStart[j].FirstTs
		}
		return byStart[i].LastTs < byStart[j].LastTs
	})
	for i, b := range byStart {
		b.idx = int32(i)
	}
	in.cand = newCandSet(len(data))
	for _, b := range data {
		if b.succ == nil {
			continue
		}
		u := int64(est(b.Codec, int(b.Uncompressed), b.ratio[1]) + b.nextSize())
		if u > max(in.blo, int64(b.FirstUB)) {
			in.cand.set(b)
		}
	}
	for _, bs := range byPart {
		in.parts = append(in.parts, bs)
	}
	sort.Slice(in.parts, func(i, j int) bool { return in.parts[i][0].Partition < in.parts[j][0].Partition })
	in.log = newReplayLog(in.parts, in.cand)
	in.tEnd = int64(math.MinInt64)
	for _, b := range data {
		in.tEnd = max(in.tEnd, b.LastTs)
	}
	return in
}

// batchSizeFloor is batch.size's lower bound: every record was appended,
// so the write limit held the estimate before the last record plus the
// last record.
func batchSizeFloor(data []*Batch) (blo int64, from *Batch) {
	blo = 1
	for _, b := range data {
		if b.Records < 2 {
			continue // the first record always fits
		}
		lb := int64(est(b.Codec, int(b.Uncompressed-b.LastSize), b.ratio[0]) + int(b.LastSize))
		if int64(b.FirstUB) >= lb {
			continue // the buffer of a large first record may have held it
		}
		if lb > blo {
			blo, from = lb, b
		}
	}
	return blo, from
}

// replayRun is one replay of the sender: its linger.ms and round trip,
// the cut it gives each batch, its size cuts and the drains a busy node
// held.
type replayRun struct {
	L, rtt int64
	cuts   []string
	sizeN  int
	held   int
}

// stories are the replays that contradict the log least, in linger.ms
// order, and what they say of linger.ms.
type stories struct {
	runs       []replayRun
	best       int  // batches they cannot explain
	busy       bool // the runs are of a busy node (the fitted round trip)
	lmin, lmax int64
	unboundedL bool // the log sets no upper bound on linger.ms
}

// replays keeps the replays with the fewest contradictions, none with
// more than limit (best is math.MaxInt when none is kept).
func (in *inference) replays(Ls, rtts []int64, limit int) (runs []replayRun, best int) {
	best = limit
	for _, L := range Ls {
		for _, rtt := range rtts {
			cuts := make([]string, len(in.data))
			v, held := replay(in.log, L, in.tEnd, cuts, rtt, best)
			if v > best {
				continue
			}
			if v < best {
				best, runs = v, runs[:0]
			}
			n := 0
			for _, c := range cuts {
				if c == CutSize {
					n++
				}
			}
			runs = append(runs, replayRun{L, rtt, cuts, n, held})
		}
	}
	if len(runs) == 0 {
		best = math.MaxInt
	}
	return runs, best
}

// fit replays the sender with each round trip of rtts (0: a node that
// answers at once) over every linger.ms value worth trying and keeps
// those the log contradicts least, none with more than limit (nil when
// none): the stories that name the cuts.
func (in *inference) fit(rtts []int64, limit int) *stories {
	runs, best := in.replays(lingerCandidates(in.data, in.tEnd, replaySteps/max(1, len(rtts))), rtts, limit)
	if len(runs) == 0 {
		return nil
	}
	st := &stories{runs: runs, best: best, busy: rtts[0] > 0, lmin: runs[0].L, lmax: runs[len(runs)-1].L, unboundedL: true}
	for _, b := range in.data {
		if b.succ != nil && b.gap() >= st.lmax || in.tEnd-b.FirstTs >= st.lmax {
			st.unboundedL = false
		}
	}
	return st
}

// sizeCutBound is the batch.size upper bound the size cuts of cuts set
// (only the prompt ones if promptOnly), the batch that sets it, and how
// many size cuts there are.
func (in *inference) sizeCutBound(cuts []string, promptOnly bool) (int64, *Batch, int) {
	type bound struct {
		u int64
		b *Batch
	}
	var bounds []bound
	for _, b := range in.data {
		if cuts[b.idx] != CutSize || promptOnly && !b.prompt() {
			continue
		}
		bounds = append(bounds, bound{int64(est(b.Codec, int(b.Uncompressed), b.ratio[1])+b.nextSize()) - 1, b})
	}
	if len(bounds) == 0 {
		return unbounded, nil, 0
	}
	// The lowest bounds may be drains that came as a batch was nearly
	// full (a busy sender drains at any time): one in twenty, rounded up,
	// is taken for such an accident, the first batch of them (in log
	// order) naming it. Rounded down, a log of fewer than twenty size
	// cuts could have none, and one drain would set the bound.
	slices.SortStableFunc(bounds, func(a, b bound) int { return cmp.Compare(a.u, b.u) })
	k := bounds[0]
	if n := len(bounds); n >= 2 {
		k = bounds[min(n-1, (n+19)/20)]
	}
	return k.u, k.b, len(bounds)
}

// choose picks the story to tell, and when others fit with other size
// cuts, says so (a format with one %s for the chosen linger.ms).
//
// Runs that cut the same batches by size tell the same story; when
// several stories fit, prefer the one whose setting is a round value:
// batch.size for the story with the most size cuts, else linger.ms.
func (in *inference) choose(st *stories) (chosen replayRun, ambiguous string) {
	runs := st.runs
	chosen = runs[len(runs)-1] // the most size cuts
	if st.busy {
		chosen = runs[0]
	}
	if runs[0].sizeN == chosen.sizeN {
		return chosen, ""
	}
	// Size cuts are evidence when several agree on one batch.size
	// window that holds a value people set; one alone may as well be
	// a flush() or a linger cut.
	bhiBig, _, bigN := in.sizeCutBound(chosen.cuts, false)
	_, sRound := firstRound(in.blo, bhiBig, roundSize)
	if !sRound || bigN < 2 {
		chosen = runs[0]
		for _, r := range runs {
			if roundLinger(r.L) {
				chosen = r
				break
			}
		}
	}
	hi := fmt.Sprint(st.lmax)
	if st.unboundedL {
		hi = "any"
	}
	ambiguous = fmt.Sprintf("the log also fits linger.ms from %d to %s cutting %d to %d batches by size; chose linger.ms%s", st.lmin, hi, runs[0].sizeN, runs[len(runs)-1].sizeN, "%s")
	return chosen, ambiguous
}

// lingerText is linger.ms L as the evidence states it: "=L", or ">=L"
// for the unbounded top of the range.
func (st *stories) lingerText(L int64) string {
	if st.unboundedL && L == st.lmax {
		return fmt.Sprintf(">=%d", L)
	}
	return fmt.Sprintf("=%d", L)
}

// sizeCeiling is batch.size's upper bound: only from batches every
// fitting story cuts by size, and two of them at least (one size cut
// alone may as well be an explicit flush()). promptN counts them.
func (in *inference) sizeCeiling(runs []replayRun) (bhi int64, from *Batch, promptN int) {
	every := append([]string(nil), runs[0].cuts...)
	for _, r := range runs[1:] {
		for i, c := range r.cuts {
			if c != CutSize {
				every[i] = c
			}
		}
	}
	bhi, from, promptN = in.sizeCutBound(every, true)
	if promptN < 2 {
		bhi, from = unbounded, nil
	}
	return bhi, from, promptN
}

// explainCuts gives every batch the chosen story's cut and its evidence,
// and counts the size and linger cuts.
func (in *inference) explainCuts(st *stories, chosen replayRun, bhi int64, ambiguous string) (sizeN, lingerN int) {
	story := in.story
	story.lText, story.ambiguous, story.tEnd = st.lingerText(chosen.L), ambiguous, in.tEnd
	for _, b := range in.data {
		switch chosen.cuts[b.idx] {
		case CutSize:
			sizeN++
			in.explainSizeCut(b, bhi)
		case CutLinger:
			lingerN++
			b.ev = evLinger
			if b.succ == nil {
				b.ev = evLingerLast
			}
		case CutDrain:
			b.ev = evDrain
		case CutFlush:
			b.ev = evFlush
		default:
			b.ev = evUnknown
		}
	}
	return sizeN, lingerN
}

// explainSizeCut gives a batch cut by size its evidence, or recuts it as
// a large first record when its first record's buffer better explains it.
func (in *inference) explainSizeCut(b *Batch, bhi int64) {
	b.ev = evSize
	ub := int64(b.FirstUB)
	if ub > in.blo && (bhi < 0 || ub > bhi || ub-in.blo > bhi-ub) {
		b.ev = evLarge
	}
}

// batchSizeInterval is the inferred batch.size: from blo up to bhi,
// promptN size cuts that every fitting story agrees on.
func (in *inference) batchSizeInterval(sizeN, promptN int, bhi int64, bhiFrom *Batch, codec batch.Codec) *Interval {
	blo := in.blo
	iv := &Interval{Min: blo, Max: bhi, Batches: sizeN, Confidence: Low}
	iv.Likely = likelySize(blo, bhi)
	if bhi < 0 {
		iv.Likely = likelyOpen(in.data, blo)
	}
	switch {
	case promptN >= 3 && bhi >= 0 && bhi-blo < 256:
		iv.Confidence = High
	case promptN >= 1:
		iv.Confidence = Medium
	}
	if in.bloFrom != nil {
		iv.Evidence = fmt.Sprintf("batch %s holds %d B", where(in.bloFrom), blo)
	} else {
		iv.Evidence = "no batch of two or more records bounds it from below"
	}
	if bhiFrom != nil {
		iv.Evidence += fmt.Sprintf("; batch %s could not take its next record (%d B needed)", where(bhiFrom), bhi+1)
	} else {
		iv.Evidence += "; fewer than two batches certainly cut by size: not enough evidence for an upper bound"
		if implied, from := in.impliedCeiling(); from != nil {
			iv.Evidence += fmt.Sprintf(" (the likeliest story's size cuts would put it at or below %d B, by batch %s, but other stories fit without them)", implied, where(from))
		}
	}
	if codec != batch.CodecNone {
		iv.Evidence += "; compressed: bounds use the producer's ratio estimates"
	}
	return iv
}

// impliedCeiling is the batch.size upper bound that the chosen story's
// size and large-record cuts would set, and the batch that sets it (nil:
// none), for the evidence of an interval that states no upper bound.
func (in *inference) impliedCeiling() (int64, *Batch) {
	bound, from := int64(math.MaxInt64), (*Batch)(nil)
	for _, b := range in.data {
		var u int64
		switch b.ev {
		case evSize:
			u = int64(est(b.Codec, int(b.Uncompressed), b.ratio[1])+b.nextSize()) - 1
		case evLarge:
			u = int64(b.FirstUB) - 1
		default:
			continue
		}
		if u < bound {
			bound, from = u, b
		}
	}
	return bound, from
}

func (p *Producer) count() {
	for _, b := range p.Batches {
		p.Cuts[b.Cut()]++
	}
}

func bound(x int64) string {
	if x < 0 {
		return "?"
	}
	return fmt.Sprint(x)
}

// where names a batch: topic-partition@base offset.
func where(b *Batch) string { return fmt.Sprintf("%s-%d@%d", b.Topic(), b.Partition, b.BaseOffset) }

// estimateRatios replays CompressionRatioEstimator over the batches in the
// order they were probably closed (by last record time) and gives each
// batch the range of estimates it may have been created with: the states
// from a few closes before it up to the one just before.
func (p *Producer) estimateRatios(data []*Batch, codec batch.Codec) {
	if codec == batch.CodecNone {
		for _, b := range data {
			b.ratio = [2]float32{1, 1}
		}
		return
	}
	order := append([]*Batch(nil), data...)
	sort.SliceStable(order, func(i, j int) bool { return order[i].LastTs < order[j].LastTs })
	// states are the estimator's replay; low is a floor under it that
	// lets every rise be the deteriorate step alone. A rise goes to
	// max(estimate + 0.05, observed), and the ratio the producer observed
	// may be a hair below the one the log's bytes give: a held-out gzip
	// log needed a state 0.005 below the replay's after such a rise
	// (docs/explain.md), and every later state depends on it.
	states := make([]float32, len(order)+1)
	low := make([]float32, len(order)+1)
	states[0], low[0] = 1, 1
	for k, b := range order {
		states[k+1], low[k+1] = states[k], low[k]
		if b.Codec != batch.CodecNone && b.Uncompressed > 0 {
			obs := float32(b.Bytes-batch.HeaderSize) / float32(b.Uncompressed)
			states[k+1] = updateEstimate(states[k], obs)
			low[k+1] = lowerEstimate(low[k], states[k], obs)
		}
	}
	// A burst creates batches before any is closed (they all start from
	// 1.0), a trickle after the previous one closed: any state up to the
	// batch's own close is possible.
	lo, hi := low[0], states[0]
	for k, b := range order {
		lo, hi = min(lo, low[k]), max(hi, states[k])
		b.ratio = [2]float32{lo, hi}
	}
}

func (p *Producer) finalRatio(data []*Batch) float32 {
	e := float32(1)
	order := append([]*Batch(nil), data...)
	sort.SliceStable(order, func(i, j int) bool { return order[i].LastTs < order[j].LastTs })
	for _, b := range order {
		if b.Uncompressed > 0 {
			e = updateEstimate(e, float32(b.Bytes-batch.HeaderSize)/float32(b.Uncompressed))
		}
	}
	return e
}

// detectSync: every batch holds one record, and hardly any two records of
// the producer share a millisecond (a sync send waits for a round trip).
// An asynchronous producer whose linger.ms is shorter than its send
// interval writes the same log; explain names it sync.
func (p *Producer) detectSync(data []*Batch) bool {
	if len(data) < 2 {
		return false
	}
	ts := make([]int64, 0, len(data))
	for _, b := range data {
		if b.Records != 1 {
			return false
		}
		ts = append(ts, b.FirstTs)
	}
	sort.Slice(ts, func(i, j int) bool { return ts[i] < ts[j] })
	same := 0
	for i := 1; i < len(ts); i++ {
		if ts[i] == ts[i-1] {
			same++
		}
	}
	// A round trip on localhost can be shorter than a millisecond, so a
	// few sends may share one; a burst of one-record batches shares most.
	return same*20 <= len(ts)
}

// partitioner: keyed when every key hashes (murmur2 mod the partition
// count) to its partition; round robin when single-record batches rotate
// partitions record by record; sticky for other unkeyed multi-partition
// logs.
func partitioner(p *Producer, byPart map[int32][]*Batch, topicPartitions int) string {
	agree, disagree, null := 0, 0, 0
	for _, b := range p.Batches {
		agree += int(b.KeysAgree)
		disagree += int(b.KeysDisagree)
		null += int(b.NullKeys)
	}
	if topicPartitions < 2 && len(byPart) < 2 {
		return "unknown"
	}
	if agree+disagree > 0 && disagree == 0 && null == 0 {
		return "keyed"
	}
	if agree+disagree > 0 {
		return "unknown"
	}
	if len(byPart) < 2 {
		return "unknown"
	}
	var all []*Batch
	single := true
	for _, bs := range byPart {
		for _, b := range bs {
			all = append(all, b)
			single = single && b.Records == 1
		}
	}
	sort.SliceStable(all, func(i, j int) bool { return all[i].FirstTs < all[j].FirstTs })
	if single && len(all) >= 2*len(byPart) {
		rr := true
		for i := 1; i < len(all); i++ {
			if all[i].Partition == all[i-1].Partition {
				rr = false
				break
			}
		}
		if rr {
			return "round-robin"
		}
	}
	return "sticky"
}

// linkSticky: with a sticky partitioner the record after a batch's last may
// have gone to another partition (the switch happens on the append that
// does not fit). A batch's successor is the earliest batch, in any
// partition, that starts at or after its last record; its own partition's
// next batch wins ties. One sort of all batches by first timestamp, then a
// search per batch: linear in batches (times a log), whatever the
// partition count.
func linkSticky(data []*Batch) {
	byStart := slices.Clone(data)
	sort.SliceStable(byStart, func(i, j int) bool { return byStart[i].FirstTs < byStart[j].FirstTs })
	for _, b := range data {
		i := sort.Search(len(byStart), func(i int) bool { return byStart[i].FirstTs >= b.LastTs })
		// The earliest batch of another partition: skip b's own
		// partition's batches (a run of them shares the instant or
		// follows it).
		for ; i < len(byStart) && byStart[i].Partition == b.Partition; i++ {
		}
		if i == len(byStart) {
			continue
		}
		if c := byStart[i]; b.succ == nil || c.FirstTs < b.succ.FirstTs {
			b.succ = c
		}
	}
}
