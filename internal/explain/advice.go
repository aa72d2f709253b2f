package explain

import (
	"cmp"
	"fmt"
	"slices"
	"sort"
	"time"

	"github.com/kseg/kseg/batch"
	"github.com/kseg/kseg/producer"
)

// maxLikeRecords caps the records a model run replays, to keep advice
// quick on large logs. A larger log's workload is its first batches (in
// time) holding up to this many records, and advice compares the model
// with those batches (a var for tests).
var maxLikeRecords int64 = 200000

// workload is the data batches of p a model run replays: all of them, or
// when they hold more than maxLikeRecords records, the earliest batches
// (by first timestamp) that hold at most that many (at least one batch).
// records counts the records of the batches returned, all of those in p.
func (p *Producer) workload() (data []*Batch, records, all int64) {
	for _, b := range p.Batches {
		if !b.Legacy {
			data = append(data, b)
			all += int64(b.Records)
		}
	}
	if all <= maxLikeRecords {
		return data, all, all
	}
	data = slices.Clone(data)
	slices.SortStableFunc(data, func(a, b *Batch) int { return cmp.Compare(a.FirstTs, b.FirstTs) })
	n := 0
	for n < len(data) && (n == 0 || records+int64(data[n].Records) <= maxLikeRecords) {
		records += int64(data[n].Records)
		n++
	}
	return data[:n], records, all
}

// LikeRecords is how many of p's records Like's workload replays
// (replayed), and how many its data batches hold (all): replayed < all when
// a model run's cap (200,000 records) cut the workload to the log's first
// batches.
func (p *Producer) LikeRecords() (replayed, all int64) {
	_, replayed, all = p.workload()
	return replayed, all
}

// Like is the reference producer's configuration closest to what made
// p's log: the inferred settings (their likely values, the Java defaults
// where the log gives no evidence) and a workload shaped like the log's:
// record count, the typical value size, keys, partitions, the mean send
// interval. Keys become "key-<i mod n>" with n the distinct keys seen at
// batch starts, so keyed partition totals are only approximate.
func (p *Producer) Like() producer.Config {
	c := producer.DefaultConfig()
	c.Topic = p.Topic
	c.Partitions = max(1, p.TopicPartitions)
	s := &p.Settings
	data, records, _ := p.workload()
	c.Records = records
	if len(data) == 0 {
		return c
	}
	var sizes []int
	keys := map[uint64]bool{}
	tMin, tMax := data[0].FirstTs, data[0].LastTs
	for _, b := range data {
		sizes = append(sizes, int(b.first.valueLen))
		if b.firstHasKey {
			keys[b.first.keyHash] = true
		}
		tMin, tMax = min(tMin, b.FirstTs), max(tMax, b.LastTs)
	}
	sort.Ints(sizes)
	c.ValueSize = sizes[len(sizes)/2]
	if s.Partitioner == "keyed" || len(keys) > 0 && c.Partitions == 1 {
		c.KeyPrefix, c.KeyCount = "key-", max(1, min(len(keys), 1000))
	}
	if records > 1 {
		c.SendInterval = time.Duration((tMax - tMin) * int64(time.Millisecond) / (records - 1))
	}
	c.StartTime = tMin
	if s.BatchSize != nil {
		c.BatchSize = int(s.BatchSize.Likely)
	}
	if s.LingerMs != nil {
		c.LingerMs = s.LingerMs.Likely
	}
	if codec, err := batch.ParseCodec(s.Compression); err == nil {
		c.Compression = codec
	}
	if s.Idempotence != nil && !*s.Idempotence {
		c.Idempotence, c.Acks = false, 1
	}
	if s.Sync != nil && *s.Sync {
		c.Sync = true
		c.SendInterval = 0 // the gaps were round trips
	}
	if p.ProducerID > 0 {
		c.ProducerID = p.ProducerID
	}
	return c
}

// Advice is what the reference producer predicts for p's workload at the
// inferred settings and under one changed setting.
type Advice struct {
	Dominant   string  // the most frequent cut
	Share      float64 // its share of the batches
	Fill       float64 // mean batch bytes / likely batch.size (0: unknown)
	LogBatches int64   // the batches the model is compared with (all, unless Capped)
	// Capped: the log holds more records (LogRecords) than a model run
	// replays (Base.Records); LogBatches then counts the earliest batches,
	// which hold those records.
	Capped     bool
	LogRecords int64
	Base       producer.Config
	BaseCount  int64 // median batches the model writes at the inferred settings
	// BaseMin and BaseMax are the range over the simulated runs.
	BaseMin, BaseMax int64
	Change           string
	Changed          producer.Config
	NewCount         int64 // median batches with the change
	NewMin, NewMax   int64
}

// Advise runs the reference producer on p's workload at the inferred
// settings and with the setting behind the dominant cut changed. It
// returns nil when there is nothing to change (flush, unknown) or the
// model cannot run the workload.
func (p *Producer) Advise() (*Advice, error) {
	a := &Advice{}
	total, bytes := 0, int64(0)
	for _, b := range p.Batches {
		total++
		bytes += b.Bytes
	}
	if total == 0 {
		return nil, nil
	}
	a.LogBatches = int64(total)
	best := 0
	for _, c := range Cuts {
		if n := p.Cuts[c]; n > best {
			a.Dominant, best = c, n
		}
	}
	a.Share = float64(best) / float64(total)
	a.Base = p.Like()
	if data, records, all := p.workload(); records < all {
		a.Capped, a.LogRecords, a.LogBatches = true, all, int64(len(data))
	}
	if iv := p.Settings.BatchSize; iv != nil {
		a.Fill = float64(bytes) / float64(total) / float64(iv.Likely)
	}
	a.Changed = a.Base
	switch a.Dominant {
	case CutLinger, CutDrain:
		a.Changed.LingerMs = max(20, a.Base.LingerMs*4)
		a.Change = fmt.Sprintf("linger.ms=%d", a.Changed.LingerMs)
	case CutSize, CutLargeRecord:
		a.Changed.BatchSize = max(16384, a.Base.BatchSize*4)
		a.Change = fmt.Sprintf("batch.size=%d", a.Changed.BatchSize)
	case CutSync:
		a.Changed.Sync = false
		a.Changed.SendInterval = time.Millisecond
		a.Changed.LingerMs = max(5, a.Base.LingerMs)
		a.Change = fmt.Sprintf("asynchronous sends (1 ms apart) with linger.ms=%d", a.Changed.LingerMs)
	default:
		return nil, nil
	}
	var err error
	if a.BaseCount, a.BaseMin, a.BaseMax, err = modelBatches(a.Base); err != nil {
		return nil, err
	}
	if a.NewCount, a.NewMin, a.NewMax, err = modelBatches(a.Changed); err != nil {
		return nil, err
	}
	return a, nil
}

// adviceRuns is how many runs of the model an advice rests on: the real
// producer's batching varies run to run, and so does the model's.
const adviceRuns = 21

// modelBatches simulates the reference producer adviceRuns times (no
// files) and returns the median, least and most batches of a run.
func modelBatches(c producer.Config) (median, lo, hi int64, err error) {
	env, err := producer.Simulate(c, adviceRuns)
	if err != nil {
		return 0, 0, 0, err
	}
	totals := make([]int64, len(env.Runs))
	for r := range env.Runs {
		for p := range env.Partitions {
			totals[r] += int64(env.Runs[r].Batches(p))
		}
	}
	slices.Sort(totals)
	return totals[len(totals)/2], totals[0], totals[len(totals)-1], nil
}
