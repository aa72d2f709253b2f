package explain

import (
	"fmt"
	"math"
	"sort"

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
	Notes      []string
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
}

// Run reads parts and explains them. A topic's partition count, for the
// key check, is one more than its highest partition given.
func Run(parts []segment.Partition) (*Result, error) {
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
	for i := range parts {
		p := &parts[i]
		bs, err := readPartition(p, nParts[p.Topic], producer.PartitionForKey)
		if err != nil {
			return nil, err
		}
		res.Batches = append(res.Batches, bs...)
		seen := map[int64]bool{}
		for _, b := range bs {
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
				res.Partitions = append(res.Partitions, PartitionSummary{Topic: p.Topic, Partition: p.Partition, ProducerID: b.ProducerID, Cuts: map[string]int{}, Producer: g})
			}
			g.Batches = append(g.Batches, b)
		}
	}
	for _, k := range order {
		g := groups[k]
		g.infer(nParts[k.topic])
		res.Producers = append(res.Producers, g)
	}
	for i := range res.Partitions {
		ps := &res.Partitions[i]
		for _, b := range ps.Producer.Batches {
			if b.Partition == ps.Partition {
				ps.Cuts[b.Cut]++
			}
		}
	}
	return res, nil
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

// updateEstimate is CompressionRatioEstimator.updateEstimation.
func updateEstimate(e, observed float32) float32 {
	switch {
	case observed > e:
		return float32(math.Max(float64(float32(e+0.05)), float64(observed)))
	case observed < e:
		return float32(math.Max(float64(float32(e-0.005)), float64(observed)))
	}
	return e
}

func roundSize(x int64) bool {
	return x > 0 && (x%1000 == 0 || x%1024 == 0 || x&(x-1) == 0)
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
	byPart := map[int32][]*Batch{}
	var data []*Batch
	codecs := map[batch.Codec]bool{}
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
	s := &p.Settings
	if p.ProducerID >= 0 {
		t := true
		s.Idempotence = &t
		s.Acks = "all"
		s.MaxInFlight = "at most 5 (idempotence requires it)"
	} else if len(data) > 0 {
		f := false
		s.Idempotence = &f
	}
	if len(data) == 0 {
		for _, b := range p.Batches {
			p.Cuts[b.Cut]++
		}
		return
	}
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
	s.Partitioner = partitioner(p, byPart, topicPartitions)

	if p.detectSync(data) {
		t := true
		s.Sync = &t
		minGap := int64(unbounded)
		for _, b := range data {
			b.Cut = CutSync
			b.Evidence = "one record per batch and every record sent after the previous one's batch: send().get()"
			if b.next != nil && (minGap < 0 || b.gap() < minGap) {
				minGap = b.gap()
			}
		}
		if minGap >= 0 {
			s.LingerMs = &Interval{Min: 0, Max: minGap, Likely: 0, Confidence: Low, Batches: len(data),
				Evidence: fmt.Sprintf("a sync send waits linger.ms, so linger.ms <= the shortest gap between sends (%d ms)", minGap)}
		}
		p.count()
		return
	}
	if len(data) > 1 {
		f := false
		s.Sync = &f
	}

	// batch.size lower bound: every record was appended, so the write
	// limit held the estimate before the last record plus the last record.
	blo, bloFrom := int64(1), (*Batch)(nil)
	for _, b := range data {
		if b.Records < 2 {
			continue // the first record always fits
		}
		lb := int64(est(b.Codec, b.Uncompressed-b.LastSize, b.ratio[0]) + b.LastSize)
		if int64(b.FirstUB) >= lb {
			continue // the buffer of a large first record may have held it
		}
		if lb > blo {
			blo, bloFrom = lb, b
		}
	}
	// Size-cut candidates: the next record would not have fitted even at
	// the smallest batch.size the log allows.
	cand := map[*Batch]bool{}
	for _, b := range data {
		if b.next == nil {
			continue
		}
		u := int64(est(b.Codec, b.Uncompressed, b.ratio[1]) + b.nextSize())
		if u > max(blo, int64(b.FirstUB)) {
			cand[b] = true
		}
	}
	// linger.ms: a batch cut by linger holds records up to linger.ms after
	// its first (span <= linger.ms) and the next record came later
	// (gap >= linger.ms).
	size := map[*Batch]bool{}
	for b := range cand {
		size[b] = true
	}
	var llo, lhi int64
	var lingerN int
	for range 4 {
		llo, lhi, lingerN = 0, unbounded, 0
		for _, b := range data {
			if !size[b] {
				llo = max(llo, b.span())
			}
		}
		for _, b := range data {
			if b.next == nil || size[b] || b.gap() < llo {
				continue
			}
			lingerN++
			if lhi < 0 || b.gap() < lhi {
				lhi = b.gap()
			}
		}
		changed := false
		for b := range cand {
			if size[b] && lhi >= 0 && b.gap() >= lhi {
				size[b] = false // the window closed before the next record came
				changed = true
			}
		}
		if !changed {
			break
		}
	}
	// With no batch that linger.ms must have cut, a regular stream fits both
	// "cut by size" and "cut by linger": prefer the one with a round setting.
	ambiguous := ""
	if lingerN == 0 && len(cand) > 0 {
		altLo, altHi := int64(0), int64(unbounded)
		for _, b := range data {
			altLo = max(altLo, b.span())
		}
		for b := range cand {
			if altHi < 0 || b.gap() < altHi {
				altHi = b.gap()
			}
		}
		bhi := int64(unbounded)
		for b := range cand {
			u := int64(est(b.Codec, b.Uncompressed, b.ratio[1])+b.nextSize()) - 1
			if bhi < 0 || u < bhi {
				bhi = u
			}
		}
		if altLo <= altHi {
			_, lRound := firstRound(altLo, altHi, roundLinger)
			_, sRound := firstRound(blo, bhi, roundSize)
			if lRound && !sRound {
				for b := range cand {
					size[b] = false
				}
				llo, lhi, lingerN = altLo, altHi, len(cand)
				ambiguous = fmt.Sprintf("also fits a cut by size with batch.size in [%d, %d]; linger.ms in [%d, %d] holds a round value and batch.size does not", blo, bhi, altLo, altHi)
			} else {
				ambiguous = fmt.Sprintf("also fits a cut by linger.ms in [%d, %d]; batch.size in [%d, %d] holds a round value", altLo, altHi, blo, bhi)
			}
		}
	}
	multi := len(byPart) > 1
	// batch.size upper bound from the size cuts.
	bhi, bhiFrom, sizeN := int64(unbounded), (*Batch)(nil), 0
	for _, b := range data {
		if !size[b] {
			continue
		}
		sizeN++
		// Only a batch whose next record came before any linger window
		// could close (gap < the smallest linger.ms) certainly had no room.
		if b.gap() >= llo && llo > 0 || llo == 0 && b.gap() > 0 || multi && ambiguous != "" {
			continue
		}
		u := int64(est(b.Codec, b.Uncompressed, b.ratio[1])+b.nextSize()) - 1
		if bhi < 0 || u < bhi {
			bhi, bhiFrom = u, b
		}
	}
	if lhi >= 0 && lhi < llo {
		lhi = llo
	}
	likelyL, _ := firstRound(llo, lhi, roundLinger)
	tEnd := int64(math.MinInt64)
	for _, b := range data {
		tEnd = max(tEnd, b.LastTs)
	}
	for _, b := range data {
		switch {
		case size[b]:
			u := est(b.Codec, b.Uncompressed, b.ratio[1]) + b.nextSize()
			b.Cut = CutSize
			b.Evidence = fmt.Sprintf("%d B + next record %d B = %d B > batch.size", est(b.Codec, b.Uncompressed, b.ratio[1]), b.nextSize(), u)
			if b.Codec != batch.CodecNone {
				b.Evidence = fmt.Sprintf("estimate %d B (ratio %.3f) + next record %d B = %d B > batch.size", est(b.Codec, b.Uncompressed, b.ratio[1]), b.ratio[1], b.nextSize(), u)
			}
			ub := int64(b.FirstUB)
			if ub > blo && (bhi < 0 || ub > bhi || ub-blo > bhi-ub) {
				b.Cut = CutLargeRecord
				b.Evidence = fmt.Sprintf("first record alone needs a %d B buffer, above batch.size; ", ub) + b.Evidence
			}
			if ambiguous != "" {
				b.Evidence += "; " + ambiguous
			}
		case b.next != nil && (b.gap() >= llo || !multi):
			b.Cut = CutLinger
			b.Evidence = fmt.Sprintf("records span %d ms, next record %d ms after the first (linger.ms in [%d, %s])", b.span(), b.gap(), llo, bound(lhi))
			if ambiguous != "" {
				b.Evidence += "; " + ambiguous
			}
		case b.next != nil && multi:
			b.Cut = CutDrain
			b.Evidence = fmt.Sprintf("next record fitted and came %d ms after the first, before linger.ms >= %d: taken with another partition's ready batch", b.gap(), llo)
		case b.next != nil:
			b.Cut = CutFlush
			b.Evidence = fmt.Sprintf("next record fitted and came %d ms after the first, before linger.ms >= %d: flush()", b.gap(), llo)
		default:
			tail := tEnd - b.FirstTs
			// Linger cut it only if linger.ms <= tail; it holds records
			// up to span, so with tail == span that is one exact value.
			if tail < llo || tail == b.span() && tail != lhi || (tail < likelyL && (lhi < 0 || tail < lhi)) {
				b.Cut = CutFlush
				b.Evidence = fmt.Sprintf("last batch; the producer's last record came %d ms after its first, before linger.ms: close()/flush()", tail)
			} else {
				b.Cut = CutLinger
				b.Evidence = fmt.Sprintf("last batch; %d ms passed to the producer's last record, linger.ms expired first", tail)
			}
		}
	}
	if sizeN > 0 || blo > 1 {
		iv := &Interval{Min: blo, Max: bhi, Batches: sizeN, Confidence: Low}
		iv.Likely, _ = firstRound(blo, bhi, roundSize)
		switch {
		case sizeN >= 3 && bhi >= 0 && bhi-blo < 256:
			iv.Confidence = High
		case sizeN >= 1:
			iv.Confidence = Medium
		}
		iv.Evidence = fmt.Sprintf("batch at offset %s holds %d B", offsetOf(bloFrom), blo)
		if bhiFrom != nil {
			iv.Evidence += fmt.Sprintf("; batch at offset %d could not take its next record (%d B needed)", bhiFrom.BaseOffset, bhi+1)
		} else {
			iv.Evidence += "; no batch cut by size: not enough evidence for an upper bound"
		}
		if codec != batch.CodecNone {
			iv.Evidence += "; compressed: bounds use the producer's ratio estimate"
		}
		if ambiguous != "" {
			iv.Confidence = Low
		}
		s.BatchSize = iv
	}
	if lingerN > 0 || llo > 0 {
		iv := &Interval{Min: llo, Max: lhi, Likely: likelyL, Batches: lingerN, Confidence: Low}
		if lingerN >= 3 && lhi >= 0 && lhi-llo <= 5 {
			iv.Confidence = High
		} else if lingerN >= 1 {
			iv.Confidence = Medium
		}
		if ambiguous != "" {
			iv.Confidence = Low
		}
		iv.Evidence = fmt.Sprintf("batches not cut by size span up to %d ms", llo)
		if lhi >= 0 {
			iv.Evidence += fmt.Sprintf("; %d batch(es) cut by linger, the shortest wait for the next record %d ms", lingerN, lhi)
		} else {
			iv.Evidence += "; no batch cut by linger: not enough evidence for an upper bound"
		}
		s.LingerMs = iv
	}
	p.count()
}

func (p *Producer) count() {
	for _, b := range p.Batches {
		p.Cuts[b.Cut]++
	}
}

func bound(x int64) string {
	if x < 0 {
		return "?"
	}
	return fmt.Sprint(x)
}

func offsetOf(b *Batch) string {
	if b == nil {
		return "-"
	}
	return fmt.Sprint(b.BaseOffset)
}

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
	states := make([]float32, len(order)+1)
	states[0] = 1
	for k, b := range order {
		states[k+1] = states[k]
		if b.Codec != batch.CodecNone && b.Uncompressed > 0 {
			states[k+1] = updateEstimate(states[k], float32(b.Bytes-batch.HeaderSize)/float32(b.Uncompressed))
		}
	}
	// A burst creates batches before any is closed (they all start from
	// 1.0), a trickle after the previous one closed: any state up to the
	// batch's own close is possible.
	lo, hi := states[0], states[0]
	for k, b := range order {
		lo, hi = min(lo, states[k]), max(hi, states[k])
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

// detectSync: every batch holds one record, and no two records of the
// producer share a millisecond (a sync send waits for a round trip).
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
	for i := 1; i < len(ts); i++ {
		if ts[i] == ts[i-1] {
			return false
		}
	}
	return true
}

// partitioner: keyed when every key hashes (murmur2 mod the partition
// count) to its partition; round robin when single-record batches rotate
// partitions record by record; sticky for other unkeyed multi-partition
// logs.
func partitioner(p *Producer, byPart map[int32][]*Batch, topicPartitions int) string {
	agree, disagree, null := 0, 0, 0
	for _, b := range p.Batches {
		agree += b.KeysAgree
		disagree += b.KeysDisagree
		null += b.NullKeys
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
