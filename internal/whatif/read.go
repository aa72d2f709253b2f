// Package whatif answers kseg whatif: what a change of producer settings
// does to the batching of the traffic a log recorded. It reads a log's
// records into traces (one per producer session, grouped by topic),
// checks that their timestamps can stand for the arrivals (send() times),
// takes the original settings from the command line or from explain's
// inference, fits the sender to the log (producer.FitSender) and replays
// the traces under both settings (producer.Replay). Rendering is in
// report (report/whatif.go).
package whatif

import (
	"errors"
	"fmt"
	"math"
	"slices"

	"github.com/kseg/kseg/batch"
	"github.com/kseg/kseg/producer"
	"github.com/kseg/kseg/segment"
)

// ErrNotArrivals marks a log whose timestamps cannot stand for the
// producer's send times.
var ErrNotArrivals = errors.New("the log's timestamps are not the producer's send times")

// MaxPartitions bounds a topic's partition count, which a partition
// directory's name sets (TOPIC-N: N+1 at least): the replay sizes each
// session's and each simulation's per-partition state by it, so a name such
// as t-2000000000 would ask for gigabytes.
const MaxPartitions = 100000

// Topic is one topic's records as traces, one per producer session.
type Topic struct {
	Name       string
	Partitions int     // the topic's partition count: one more than the highest given
	Named      []int32 // the partitions given, ascending
	Sessions   []*producer.Trace
	// NoPID is true when records of producer id -1 (non-idempotent
	// producers) are in the log: they replay as one session.
	NoPID bool
	// Evidence, when not empty, is why the timestamps are not arrivals
	// (the first reason found).
	Evidence string
	// Unnamed, when not empty, is the directory of a partition whose name
	// does not say its number (not TOPIC-N: a loose segment file): it
	// replays as partition 0 of a one-partition topic.
	Unnamed string
	// Unread, when not empty, are the partitions whose batches after End
	// were not read: the topic's log passed its share of the records
	// read (ReadWithin), and End is the last moment replayed.
	End    int64
	Unread []Unread
	Bound  int64 // the records ReadWithin could read, when Unread is not empty
	// spanMs is the log's time span per session (for --synthetic).
	spanMs []int64
}

// LogLayout is the topic's layout in the log, per partition (over every
// session): batches, records, stored bytes.
func (t *Topic) LogLayout() (batches, records, bytes []int64) {
	batches, records, bytes = make([]int64, t.Partitions), make([]int64, t.Partitions), make([]int64, t.Partitions)
	for _, s := range t.Sessions {
		s.AddLogLayout(batches, records, bytes)
	}
	return batches, records, bytes
}

// Records is the topic's data records.
func (t *Topic) Records() int64 {
	var n int64
	for _, s := range t.Sessions {
		n += int64(s.Len())
	}
	return n
}

type sessionKey struct {
	pid   int64
	epoch int16
}

// session is a producer session being read, with what the checks keep
// per partition.
type session struct {
	tb       *producer.TraceBuilder
	lastPart int32
	lastTs   int64
	back     int64 // records before the previous one in time
	backMax  int64 // the longest step back, ms
	backAt   string
	records  int64
	firstTs  int64 // the session's first record's time
	minTs    int64
	maxTs    int64
	// batches whose records all share one millisecond, and their
	// records, by that millisecond
	instant        map[int64]int
	instantRecords map[int64]int64
	batches        int
}

// DefaultMaxRecords bounds the records whatif reads, a producer session
// counting as SessionCost records more. A replay holds about 38 bytes a
// record at its peak (the 10-million-record benchmark: 365 MiB), so a
// partition of 100 million records would take 3.5 GB; 11 million keep the
// peak near 420 MB and read the benchmark's log whole.
const DefaultMaxRecords = 11_000_000

// Unread is a partition whose records after its topic's end (Topic.End)
// were not read, from offset From.
type Unread struct {
	Partition int32
	From      int64
}

// Read reads parts within maxRecords (ReadWithin).
func Read(parts []segment.Partition) ([]*Topic, error) { return ReadWithin(parts, maxRecords) }

// maxRecords is DefaultMaxRecords (a test lowers it).
var maxRecords int64 = DefaultMaxRecords

// ReadWithin reads parts (any order) into topics, in the order their
// first partition comes. Control batches are skipped. A read error names
// the file and byte.
//
// At most maxRecords records are read, a producer session counting as
// SessionCost records more (readCost), shared by the partitions as
// segment.FairShares shares them: every partition whole when they hold no
// more, else each up to a level that a smaller one leaves room above.
// Their batch headers are counted first. A partition past its share ends
// its topic's replay at its last record counted: every partition of the
// topic is read up to the first batch begun after that moment (Topic.End,
// Topic.Unread), the one cut short no further than its share, so the
// topic's records stay one stretch of time. A partition from a remote
// source (kafka://, s3://) is not counted, which would fetch it twice: it
// counts as large, and its share is kept while it is read. When it passes
// its share, the topic ends at its last record read, and a partition of
// the topic read before it that went on past that moment is read again
// (its records fetched twice, the price of a bound that holds).
func ReadWithin(parts []segment.Partition, maxRecords int64) ([]*Topic, error) {
	byName := map[string]*Topic{}
	var order []*Topic
	parts = slices.Clone(parts)
	for i := range parts {
		p := &parts[i]
		t := byName[p.Topic]
		if t == nil {
			t = &Topic{Name: p.Topic}
			byName[p.Topic] = t
			order = append(order, t)
		}
		if p.Partition < 0 || t.Unnamed != "" {
			// A directory not named TOPIC-N (segment.Partition's -1) says
			// nothing of the topic's other partitions: it is the topic.
			if len(t.Named) > 0 {
				return nil, fmt.Errorf("%s: not named TOPIC-PARTITION, and topic %s has other partitions given: which partition it holds decides where its keyed records go; copy it into a directory named as the broker names it", orUnnamed(p, t), t.Name)
			}
			t.Unnamed, p.Partition = p.Dir, 0
		}
		if p.Partition >= MaxPartitions {
			return nil, fmt.Errorf("%s: partition %d: kseg whatif replays topics of up to %d partitions (the replay keeps each partition's state in every producer session)", p.Dir, p.Partition, MaxPartitions)
		}
		t.Partitions = max(t.Partitions, int(p.Partition)+1)
		t.Named = append(t.Named, p.Partition)
	}
	limits, err := planRead(parts, maxRecords)
	if err != nil {
		return nil, err
	}
	for _, t := range order {
		slices.Sort(t.Named)
		t.Named = slices.Compact(t.Named)
		sess, keys, err := readTopic(t, parts, limits, maxRecords)
		if err != nil {
			return nil, err
		}
		for _, k := range keys {
			s := sess[k]
			if t.Evidence == "" {
				t.Evidence = s.evidence(t.Name, k)
			}
			tr, err := s.tb.Build()
			if err != nil {
				return nil, fmt.Errorf("topic %s, producer %d epoch %d: %w", t.Name, k.pid, k.epoch, err)
			}
			t.Sessions = append(t.Sessions, tr)
			span := s.maxTs - s.minTs
			if span < 0 || span > maxSyntheticSpanMs {
				span = maxSyntheticSpanMs // past it the difference overflows, or the trace's 32-bit times
			}
			t.spanMs = append(t.spanMs, span)
			if k.pid < 0 {
				t.NoPID = true
			}
		}
	}
	return order, nil
}

// readTopic reads t's partitions of parts into its producer sessions
// within limits. A remote partition cut short by its share ends the topic
// at its last record read (the earliest such end, when several are); when
// a partition read before that end was known began a batch after it, the
// topic is read again with that end, once: a lower end only shortens what
// is read, so no share is passed earlier the second time.
func readTopic(t *Topic, parts []segment.Partition, limits []readLimit, maxRecords int64) (map[sessionKey]*session, []sessionKey, error) {
	end := int64(noEnd)
	for {
		t.Evidence, t.End, t.Unread, t.Bound = "", 0, nil, 0
		sess := map[sessionKey]*session{}
		var keys []sessionKey
		begunLast := int64(math.MinInt64) // the latest batch begun in the partitions read
		for i := range parts {
			if parts[i].Topic != t.Name {
				continue
			}
			lim := limits[i]
			lim.end = min(lim.end, end)
			r, err := readPartition(&parts[i], t, sess, &keys, lim)
			if err != nil {
				return nil, nil, err
			}
			if r.overCost && r.lastTs < lim.end {
				end = r.lastTs
			}
			begunLast = max(begunLast, r.begunLast)
			if r.from >= 0 {
				t.Unread = append(t.Unread, Unread{Partition: parts[i].Partition, From: r.from})
				t.Bound = maxRecords
			}
		}
		if begunLast <= end {
			for i := range parts {
				if parts[i].Topic == t.Name {
					t.End = min(limits[i].end, end)
				}
			}
			if t.End == noEnd {
				t.End = 0
			}
			return sess, keys, nil
		}
	}
}

func orUnnamed(p *segment.Partition, t *Topic) string {
	if p.Partition < 0 {
		return p.Dir
	}
	return t.Unnamed
}

// readLimit is how far readPartition reads: at most batches data batches
// (-1: no limit) costing at most cost (readCost; -1: no limit), none begun
// after end.
type readLimit struct {
	batches int64
	cost    int64
	end     int64
}

const noEnd = math.MaxInt64

// SessionCost is what a producer session costs on top of its records, in
// records: a replay holds about 38 bytes a record at its peak (the
// 10-million-record benchmark: 365 MiB) and 3.5 KB a one-record session
// (100,000 of them: 333 MiB), the session's trace, its checks and its
// simulations' state (docs/whatif.md, "Many producers").
const SessionCost = 90

// readCost is a batch's cost in ReadWithin's bound: its records, and
// SessionCost for the first batch of a producer session in the partition
// (a session on several partitions is charged on each: a little more
// than it costs). The set of sessions seen stays small: a count stops
// once the cost passes its bound, which admits at most bound/SessionCost.
func readCost() func(segment.BatchInfo) int64 {
	seen := map[sessionKey]bool{}
	return func(info segment.BatchInfo) int64 {
		k := sessionKey{info.ProducerID, info.ProducerEpoch}
		if k.pid < 0 {
			k = sessionKey{-1, -1}
		}
		if seen[k] {
			return int64(info.Records)
		}
		seen[k] = true
		return int64(info.Records) + SessionCost
	}
}

// planRead counts parts' batch headers and returns how far each is read
// within maxRecords (ReadWithin).
func planRead(parts []segment.Partition, maxRecords int64) ([]readLimit, error) {
	limits := make([]readLimit, len(parts))
	sizes := make([]int64, len(parts))
	for i := range parts {
		limits[i] = readLimit{batches: -1, cost: -1, end: noEnd}
		sizes[i] = maxRecords + 1 // a remote partition's is not counted: as large as can be
		if parts[i].Local() {
			c, err := segment.CountData(&parts[i], -1, maxRecords, readCost())
			if err != nil {
				return nil, err
			}
			sizes[i] = c.Cost
			if c.More {
				sizes[i] = maxRecords + 1
			}
		}
	}
	shares := segment.FairShares(sizes, maxRecords)
	ends := map[string]int64{}
	for i := range parts {
		if !parts[i].Local() {
			limits[i].cost = shares[i] // kept as it is read
			continue
		}
		if shares[i] == sizes[i] {
			continue
		}
		c, err := segment.CountData(&parts[i], -1, shares[i], readCost())
		if err != nil {
			return nil, err
		}
		limits[i].batches = c.Batches
		if e, ok := ends[parts[i].Topic]; !ok || c.LastTs < e {
			ends[parts[i].Topic] = c.LastTs
		}
	}
	for i := range parts {
		if e, ok := ends[parts[i].Topic]; ok {
			limits[i].end = e
		}
	}
	return limits, nil
}

// partRead is what readPartition read of a partition: from is the offset
// of the first data batch left unread (-1: none); lastTs the latest
// record time of the batches read, begunLast the latest batch start.
type partRead struct {
	from, lastTs, begunLast int64
	overCost                bool // stopped by lim.cost
}

// readPartition reads p's records into its topic's sessions, as far as
// lim allows.
func readPartition(p *segment.Partition, t *Topic, sess map[sessionKey]*session, keys *[]sessionKey, lim readLimit) (partRead, error) {
	r := partRead{from: -1, lastTs: math.MinInt64, begunLast: math.MinInt64}
	st := &segment.Stream{}
	defer st.Close()
	var rec batch.Record
	var read, spent int64
	cost := readCost()
	for _, seg := range p.Segments {
		if err := st.OpenSegment(seg, 0); err != nil {
			return r, err
		}
		for st.Next() {
			sb := st.Batch()
			info, err := sb.Info()
			if err != nil {
				return r, err
			}
			if info.Control || info.Records == 0 {
				continue
			}
			x := int64(0)
			if lim.cost >= 0 {
				x = cost(info)
			}
			overCost := lim.cost >= 0 && spent+x > lim.cost
			if read == lim.batches || overCost || !sb.IsLegacy() && sb.Header.BaseTimestamp > lim.end {
				r.overCost = overCost
				if read == 0 && !sb.IsLegacy() {
					r.lastTs = sb.Header.BaseTimestamp - 1 // as segment.CountData's
				}
				r.from = info.BaseOffset
				return r, nil
			}
			read++
			spent += x
			if !sb.IsLegacy() {
				r.lastTs = max(r.lastTs, info.MaxTimestamp)
				r.begunLast = max(r.begunLast, sb.Header.BaseTimestamp)
			}
			if sb.IsLegacy() {
				if t.Evidence == "" {
					t.Evidence = fmt.Sprintf("%s: message format v%d at byte %d: no producer session or record timestamps to replay", info.File, info.Magic, info.Pos)
				}
				continue
			}
			if sb.Header.TimestampType() == batch.LogAppendTime && t.Evidence == "" {
				t.Evidence = fmt.Sprintf("%s: the batch at byte %d (offset %d) has LogAppendTime timestamps: the broker's clock, not send() times", info.File, info.Pos, info.BaseOffset)
			}
			k := sessionKey{info.ProducerID, info.ProducerEpoch}
			if k.pid < 0 {
				k = sessionKey{-1, -1}
			}
			s := sess[k]
			if s == nil {
				s = &session{tb: producer.NewTraceBuilder(t.Name, t.Partitions, k.pid, k.epoch), lastPart: -1, instant: map[int64]int{}, instantRecords: map[int64]int64{}, minTs: 1<<63 - 1, maxTs: -1 << 63}
				sess[k] = s
				*keys = append(*keys, k)
			}
			if s.lastPart != p.Partition {
				s.lastPart, s.lastTs = p.Partition, -1<<63
			}
			s.tb.Batch(int(p.Partition), info.Size)
			s.batches++
			br, err := sb.Records()
			if err != nil {
				return r, err
			}
			first, last := int64(0), int64(0)
			n := 0
			for {
				ok, err := br.Next(&rec)
				if err != nil {
					return r, segment.Locate(sb.File, sb.Pos, err)
				}
				if !ok {
					break
				}
				ts := sb.Header.BaseTimestamp + rec.TimestampDelta
				if ts < 0 && t.Evidence == "" {
					t.Evidence = fmt.Sprintf("%s: the batch at byte %d (offset %d) has no record timestamps (CreateTime %d: an old client)", info.File, info.Pos, info.BaseOffset, ts)
				}
				if ts < s.lastTs {
					s.back++
					if d := s.lastTs - ts; d > s.backMax {
						s.backMax = d
						s.backAt = fmt.Sprintf("%s-%d offset %d", t.Name, p.Partition, info.BaseOffset+int64(rec.OffsetDelta))
					}
				}
				s.lastTs = max(s.lastTs, ts)
				s.minTs, s.maxTs = min(s.minTs, ts), max(s.maxTs, ts)
				if n == 0 {
					first = ts
				}
				last = ts
				n++
				part := -1
				if rec.Key != nil {
					part = int(p.Partition)
				}
				if s.records == 0 && n == 1 {
					s.firstTs = ts
				}
				if err := s.tb.Add(ts, part, rec.Key, rec.Value, rec.Headers); err != nil {
					// A trace keeps a session's times in 32 bits of
					// milliseconds: a record 49 days from the session's
					// first is no send() time of it, and --synthetic
					// replays its sizes at times of its own.
					if t.Evidence == "" {
						t.Evidence = fmt.Sprintf("%s: the batch at byte %d (offset %d) has a record at %d ms, more than 49 days from its producer session's first (%d ms): not the send() times of one session",
							info.File, info.Pos, info.BaseOffset, ts, s.firstTs)
					}
					if err := s.tb.Add(s.firstTs, part, rec.Key, rec.Value, rec.Headers); err != nil {
						return r, segment.Locate(sb.File, sb.Pos, err)
					}
				}
			}
			s.records += int64(n)
			if n > 1 && first == last {
				s.instant[first]++
				s.instantRecords[first] += int64(n)
			}
		}
		if err := st.Err(); err != nil {
			return r, err
		}
	}
	return r, nil
}

// maxSyntheticSpanMs bounds the span --synthetic spreads a session over
// (a trace's times are 32-bit milliseconds from a base 2^31 before the first).
const maxSyntheticSpanMs = 1 << 31

// Thresholds of the checks that a session's timestamps are arrivals.
const (
	// a step back in time longer than this is an explicit timestamp
	maxStepBackMs = 1000
	// or more than this share of records stepping back at all
	maxBackShare = 0.05
	// many batches at one instant: at least this many, holding at least
	// instantShare of the session's records (a real burst puts a few
	// batches in one millisecond, or tens at a small batch.size, but
	// never the whole of a long session)
	minInstantBatches = 10
	instantShare      = 0.9
)

// evidence says why s's timestamps cannot be arrivals ("" when they can).
func (s *session) evidence(topic string, k sessionKey) string {
	who := fmt.Sprintf("producer id %d epoch %d", k.pid, k.epoch)
	if k.pid < 0 {
		who = "producer id -1"
	}
	if s.backMax > maxStepBackMs || s.records > 20 && float64(s.back) > maxBackShare*float64(s.records) {
		return fmt.Sprintf("topic %s, %s: explicit timestamps that do not follow the offsets: %d of %d records are older than the record before them in their partition, by up to %d ms (at %s)",
			topic, who, s.back, s.records, s.backMax, s.backAt)
	}
	var at int64
	most := 0
	for ms, n := range s.instant {
		if n > most || n == most && ms < at {
			at, most = ms, n
		}
	}
	if most >= minInstantBatches && float64(s.instantRecords[at]) >= instantShare*float64(s.records) {
		return fmt.Sprintf("topic %s, %s: every record of %d batches (of %d) has one timestamp, %d: set by the application, not by send()",
			topic, who, most, s.batches, at)
	}
	return ""
}

// Synthesize replaces the topic's arrivals by a workload fitted to the
// log: each session's records in the log's order, spread evenly over the
// session's time span (all at once when it has none).
func (t *Topic) Synthesize() {
	for i, s := range t.Sessions {
		t.Sessions[i] = s.Evenly(max(0, t.spanMs[i]))
	}
}
