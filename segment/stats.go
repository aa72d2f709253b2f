package segment

import (
	"runtime"
	"sort"
	"sync"

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

func (s *Stats) addBatch(records int, size int64, codec batch.Codec, ts int64, pid int64, first, last int64) {
	if s.Batches == 0 || records < s.MinRecords {
		s.MinRecords = records
	}
	if s.Batches == 0 || records > s.MaxRecords {
		s.MaxRecords = records
	}
	s.Batches++
	s.Records += int64(records)
	s.Bytes += size
	s.RecordsPerBatch[records]++
	s.Codecs[codec.String()]++
	if ts >= 0 {
		if s.MinTimestamp < 0 || ts < s.MinTimestamp {
			s.MinTimestamp = ts
		}
		if ts > s.MaxTimestamp {
			s.MaxTimestamp = ts
		}
	}
	if pid >= 0 {
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

func (s *Stats) sortPIDs() {
	sort.Slice(s.ProducerIDs, func(i, j int) bool { return s.ProducerIDs[i] < s.ProducerIDs[j] })
}

// Counter counts files, reusing its buffers; not safe for concurrent use.
type Counter struct {
	Options CountOptions
	dec     batch.Decompressor
	inner   []batch.LegacyMessage
	buf     []byte // the scanner's block buffer, kept across files
}

// CountFile reads the batch headers of one log file.
func (c *Counter) CountFile(path string) (*Stats, error) {
	s := NewStats()
	if err := c.countInto(s, path); err != nil {
		return nil, err
	}
	s.sortPIDs()
	return s, nil
}

// CountPartition reads the partition's segments in order.
func (c *Counter) CountPartition(p *Partition) (*Stats, error) {
	s := NewStats()
	for _, seg := range p.Segments {
		if err := c.countInto(s, seg.Path); err != nil {
			return nil, err
		}
	}
	s.sortPIDs()
	return s, nil
}

func (c *Counter) countInto(s *Stats, path string) error {
	f, err := Open(path, c.Options.MaxBytes)
	if err != nil {
		return err
	}
	defer f.Close()
	f.buf = c.buf
	defer func() { c.buf = f.buf }()
	c.dec.Max = c.Options.MaxDecompressed
	s.Files++
	var pendBytes, pendBatches int64
	if c.Options.Progress != nil {
		defer func() { c.Options.Progress(pendBytes, pendBatches) }()
	}
	for f.Next() {
		e := f.Entry()
		if c.Options.Progress != nil {
			pendBytes += e.Size
			pendBatches++
			if pendBatches == 4096 || pendBytes >= 8<<20 {
				c.Options.Progress(pendBytes, pendBatches)
				pendBytes, pendBatches = 0, 0
			}
		}
		if e.Magic >= batch.MagicV2 {
			h := &e.Header
			codec := h.Codec()
			if h.IsControl() {
				s.ControlBatches++
			}
			if codec != batch.CodecNone {
				s.CompressedBatches++
				payload := e.Size - batch.HeaderSize
				if payload < 0 {
					payload = 0
				}
				s.CompressedBytes += payload
				if c.Options.Uncompressed {
					b, err := f.Bytes()
					if err != nil {
						return err
					}
					if len(b) < batch.HeaderSize {
						return &Error{File: path, Offset: e.Pos, Err: batch.ErrTruncated}
					}
					out, err := c.dec.Decompress(codec, b[batch.HeaderSize:], h.Magic)
					if err != nil {
						return &Error{File: path, Offset: e.Pos, Err: err}
					}
					s.UncompressedBytes += int64(len(out))
				} else {
					s.Measured = false
				}
			}
			ts := h.MaxTimestamp
			if ts < 0 {
				ts = -1
			}
			s.addBatch(int(h.RecordCount), e.Size, codec, ts, h.ProducerID, h.BaseOffset, h.LastOffset())
			continue
		}
		b, err := f.Bytes()
		if err != nil {
			return err
		}
		m, err := batch.ParseLegacy(b)
		if err != nil {
			return &Error{File: path, Offset: e.Pos, Err: err}
		}
		codec := m.Codec()
		records := 1
		first := m.Offset
		if codec != batch.CodecNone {
			s.CompressedBatches++
			s.CompressedBytes += int64(len(m.Value))
			c.inner, err = batch.LegacyInner(&m, &c.dec, c.inner)
			if err != nil {
				return &Error{File: path, Offset: e.Pos, Err: err}
			}
			records = len(c.inner)
			first = c.inner[0].Offset
			for i := range c.inner {
				s.UncompressedBytes += c.inner[i].EntrySize()
			}
		}
		ts := m.Timestamp
		if ts < 0 {
			ts = -1
		}
		s.addBatch(records, e.Size, codec, ts, -1, first, m.Offset)
	}
	return f.Err()
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
	next := make(chan int)
	var wg sync.WaitGroup
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			c := &Counter{Options: opts}
			for i := range next {
				out[i].Partition = ps[i]
				out[i].Stats, errs[i] = c.CountPartition(&ps[i])
			}
		}()
	}
	for i := range ps {
		next <- i
	}
	close(next)
	wg.Wait()
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
