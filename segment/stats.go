package segment

import (
	"fmt"
	"runtime"
	"sort"
	"sync"
	"sync/atomic"

	"github.com/kseg/kseg/batch"
)

// CountOptions says what Count measures beyond the headers.
type CountOptions struct {
	// Uncompressed makes Count decompress every compressed batch to
	// measure its uncompressed size (the compression ratio). Without it,
	// only legacy compressed wrappers are decompressed, to count their
	// inner messages.
	Uncompressed bool
	// MaxDecompressed caps one batch's decompressed size (0: the batch
	// package default).
	MaxDecompressed int
	// MaxBytes reads at most this many bytes of each file (<=0: all).
	MaxBytes int64
	// Progress, when set, is told the bytes and batches read, every few
	// thousand batches and at the end of each file. It may be called from
	// several goroutines at once (CountPartitions).
	Progress func(bytes, batches int64)
	// OnBatch, when set, is handed every batch as it is counted.
	OnBatch func(*BatchInfo)
}

// Stats is the batch layout of a file or partition, read from batch
// headers.
//
// A "batch" is a top-level entry: a v2 record batch, or a legacy (v0/v1)
// message, which is a compressed wrapper or a single uncompressed message.
// Its record count is the v2 header's RecordCount — the records actually
// in the batch, which after compaction can be fewer than
// lastOffset-baseOffset+1 — or 1 for an uncompressed legacy message, or the
// number of inner messages of a legacy compressed wrapper. This is the
// "count:" kafka-dump-log prints for v2 batches and what the seed counted.
// Control batches are batches like any other here (their one record
// counts), and are also counted separately.
type Stats struct {
	Files   int   // log files read
	Batches int64 // top-level entries
	Records int64
	Bytes   int64 // bytes of the entries, log overhead included
	// RecordsPerBatch maps a record count to the number of batches with it.
	RecordsPerBatch map[int]int
	MinRecords      int // per batch; 0 when there are no batches
	MaxRecords      int
	ControlBatches  int64
	// Codecs maps a codec name ("none", "gzip", ...) to its batch count.
	Codecs map[string]int64
	// CompressedBatches, CompressedBytes: compressed batches and the
	// stored size of their record payloads. UncompressedBytes is the
	// payloads' decompressed size, measured only with
	// CountOptions.Uncompressed (or for legacy wrappers, always).
	CompressedBatches int64
	CompressedBytes   int64
	UncompressedBytes int64
	// Measured reports whether UncompressedBytes covers every compressed
	// batch.
	Measured bool
	// MinTimestamp and MaxTimestamp bound the batches' max timestamps
	// (legacy: message timestamps); -1 when no batch has one.
	MinTimestamp int64
	MaxTimestamp int64
	// ProducerIDs are the distinct producer ids other than -1, sorted.
	ProducerIDs []int64
	// FirstOffset and LastOffset bound the batches' offsets (-1 when empty).
	FirstOffset int64
	LastOffset  int64
	pids        map[int64]struct{}
	// codecs counts batches per codec id on the hot path; finish moves
	// them into Codecs (a string-keyed map lookup per batch cost more than
	// framing it).
	codecs [8]int64
}

// NewStats returns empty stats.
func NewStats() *Stats {
	return &Stats{RecordsPerBatch: map[int]int{}, Codecs: map[string]int64{}, Measured: true,
		MinTimestamp: -1, MaxTimestamp: -1, FirstOffset: -1, LastOffset: -1, pids: map[int64]struct{}{}}
}

// AvgRecords is the mean number of records per batch (0 without batches).
func (s *Stats) AvgRecords() float64 {
	if s.Batches == 0 {
		return 0
	}
	return float64(s.Records) / float64(s.Batches)
}

// AvgBytes is the mean batch size in bytes (0 without batches).
func (s *Stats) AvgBytes() float64 {
	if s.Batches == 0 {
		return 0
	}
	return float64(s.Bytes) / float64(s.Batches)
}

// Ratio is uncompressed over compressed payload bytes of the compressed
// batches; 0 when there are none or they were not measured.
func (s *Stats) Ratio() float64 {
	if s.CompressedBytes == 0 || !s.Measured {
		return 0
	}
	return float64(s.UncompressedBytes) / float64(s.CompressedBytes)
}

// Fill is the mean batch size over batchSize (0 when batchSize <= 0).
func (s *Stats) Fill(batchSize int) float64 {
	if batchSize <= 0 {
		return 0
	}
	return s.AvgBytes() / float64(batchSize)
}

func (s *Stats) addBatch(in *BatchInfo) {
	records, ts, pid, first, last := in.Records, in.MaxTimestamp, in.ProducerID, in.BaseOffset, in.LastOffset
	if s.Batches == 0 || records < s.MinRecords {
		s.MinRecords = records
	}
	if s.Batches == 0 || records > s.MaxRecords {
		s.MaxRecords = records
	}
	s.Batches++
	s.Records += int64(records)
	s.Bytes += in.Size
	s.RecordsPerBatch[records]++
	if c := in.Codec; c >= 0 && int(c) < len(s.codecs) {
		s.codecs[c]++
	} else {
		s.Codecs[c.String()]++
	}
	if ts >= 0 {
		if s.MinTimestamp < 0 || ts < s.MinTimestamp {
			s.MinTimestamp = ts
		}
		if ts > s.MaxTimestamp {
			s.MaxTimestamp = ts
		}
	}
	if pid >= 0 && (len(s.ProducerIDs) == 0 || pid != s.ProducerIDs[len(s.ProducerIDs)-1]) {
		// consecutive batches are mostly one producer's: skip the map then
		if _, ok := s.pids[pid]; !ok {
			s.pids[pid] = struct{}{}
			s.ProducerIDs = append(s.ProducerIDs, pid)
		}
	}
	if s.FirstOffset < 0 || first < s.FirstOffset {
		s.FirstOffset = first
	}
	if last > s.LastOffset {
		s.LastOffset = last
	}
}

// finish sorts the producer ids and moves the per-codec counts into Codecs.
func (s *Stats) finish() {
	sort.Slice(s.ProducerIDs, func(i, j int) bool { return s.ProducerIDs[i] < s.ProducerIDs[j] })
	for c, n := range s.codecs {
		if n > 0 {
			s.Codecs[batch.Codec(c).String()] += n
			s.codecs[c] = 0
		}
	}
}

// Counter counts files, reusing its stream and buffers; not safe for
// concurrent use.
type Counter struct {
	Options CountOptions
	st      Stream
	in      BatchInfo // the current batch's; a local would escape (OnBatch) and cost an allocation per batch
}

// CountPartition reads the partition's segments in order.
func (c *Counter) CountPartition(p *Partition) (*Stats, error) {
	s := NewStats()
	for _, seg := range p.Segments {
		if err := c.countInto(s, seg); err != nil {
			return nil, err
		}
	}
	s.finish()
	return s, nil
}

func (c *Counter) countInto(s *Stats, seg Segment) error {
	c.st.SetOptions(Options{MaxDecompressed: c.Options.MaxDecompressed})
	if err := c.st.OpenSegment(seg, c.Options.MaxBytes); err != nil {
		return err
	}
	defer c.st.Close()
	s.Files++
	before := s.Batches
	var pendBytes, pendBatches int64
	if c.Options.Progress != nil {
		defer func() { c.Options.Progress(pendBytes, pendBatches) }()
	}
	for c.st.Next() {
		b := c.st.Batch()
		if c.Options.Progress != nil {
			pendBytes += b.Size
			pendBatches++
			if pendBatches == 4096 || pendBytes >= 8<<20 {
				c.Options.Progress(pendBytes, pendBatches)
				pendBytes, pendBatches = 0, 0
			}
		}
		if err := b.infoInto(&c.in); err != nil {
			return err
		}
		in := &c.in
		if in.Control {
			s.ControlBatches++
		}
		if in.Codec != batch.CodecNone {
			s.CompressedBatches++
			s.CompressedBytes += in.Payload
			switch {
			case b.IsLegacy():
				s.UncompressedBytes += in.Uncompressed
			case c.Options.Uncompressed:
				out, err := b.Decompress()
				if err != nil {
					return err
				}
				s.UncompressedBytes += int64(len(out))
			default:
				s.Measured = false
			}
		}
		s.addBatch(in)
		if c.Options.OnBatch != nil {
			c.Options.OnBatch(in)
		}
	}
	if err := c.st.Err(); err != nil {
		return err
	}
	whole := c.Options.MaxBytes <= 0 || c.st.Size() < c.Options.MaxBytes
	if seg.unnamed && whole && s.Batches == before && c.st.Tail() == 0 && c.st.Size() > 0 {
		return &Error{File: seg.Path, Offset: 0, Err: fmt.Errorf("%w: no record batch frames at its start", ErrNotLog)}
	}
	return nil
}

// PartitionStats pairs a partition with its counts.
type PartitionStats struct {
	Partition
	Stats *Stats
}

// CountPartitions counts partitions with workers goroutines (<=0:
// GOMAXPROCS), one partition at a time each. The result is in the order of
// ps. On failure it returns the error of the first failing partition in
// that order.
func CountPartitions(ps []Partition, workers int, opts CountOptions) ([]PartitionStats, error) {
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	workers = min(workers, max(len(ps), 1))
	out := make([]PartitionStats, len(ps))
	errs := make([]error, len(ps))
	eachIndex(len(ps), workers, func() func(int) {
		c := &Counter{Options: opts}
		return func(i int) {
			out[i].Partition = ps[i]
			out[i].Stats, errs[i] = c.CountPartition(&ps[i])
		}
	})
	if err := firstErr(errs); err != nil {
		return nil, err
	}
	return out, nil
}

func firstErr(errs []error) error {
	for _, e := range errs {
		if e != nil {
			return e
		}
	}
	return nil
}

// eachIndex runs do(i) for every i in [0, n) on workers goroutines, the
// caller's among them; newWorker makes each worker's do, with its own
// buffers. Workers take the next index from a shared counter: handing
// indexes over a channel woke a parked goroutine per index, which on many
// small partitions cost more than the work.
func eachIndex(n, workers int, newWorker func() func(int)) {
	var next atomic.Int64
	work := func() {
		do := newWorker()
		for {
			i := int(next.Add(1) - 1)
			if i >= n {
				return
			}
			do(i)
		}
	}
	var wg sync.WaitGroup
	for range workers - 1 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			work()
		}()
	}
	work()
	wg.Wait()
}
