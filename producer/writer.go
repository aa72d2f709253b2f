package producer

import (
	"encoding/binary"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"sort"

	"github.com/kseg/kseg/batch"
	"github.com/kseg/kseg/index"
	"github.com/kseg/kseg/internal/javaorder"
)

// Broker limits that decide rolls (docs/producer-model.md, Broker write path), for the default
// segment.index.bytes of 10 MiB.
const (
	maxOffsetIndexEntries = 10485760 / 8
	maxTimeIndexEntries   = 10485760 / 12
)

// PartitionStats is what the writer wrote to one partition.
type PartitionStats struct {
	Partition       int
	Batches         int64
	Records         int64
	Bytes           int64
	Segments        int
	RecordsPerBatch map[int]int
}

// producerEntry is the broker's ProducerStateEntry as a snapshot keeps it:
// the last batch only.
type producerEntry struct {
	pid         int64
	epoch       int16
	lastSeq     int32
	lastOffset  int64
	offsetDelta int32
	timestamp   int64
	inserted    int64 // insertion order into the broker's map
}

// pendingFile is one file of the active segment: bytes appended in memory
// and written out (open, write, close) when flushAt of them are pending,
// when the buffers of all partitions hold more than their pool's budget,
// and when the segment closes. No file stays open between writes, so the
// number of partitions is not bounded by the open-file limit.
type pendingFile struct {
	path    string
	buf     []byte
	flushAt int
	written bool // the file exists (created by the first write)
	pool    *writePool
}

// writePool is the memory the pending files of one run hold: the
// capacity of their buffers, which the writer keeps at most budget (plus
// the buffer being written) whatever the number of partitions.
type writePool struct {
	held, budget int
	peak         int // the most held at once (for tests)
}

// write appends b, flushing when flushAt bytes are pending; when the
// pool is over its budget it flushes and lets the buffer go. As the
// partitions fill at similar rates, each is then flushed with about
// budget/partitions bytes pending.
func (f *pendingFile) write(b []byte) error {
	c := cap(f.buf)
	f.buf = append(f.buf, b...)
	f.pool.held += cap(f.buf) - c
	f.pool.peak = max(f.pool.peak, f.pool.held)
	if f.pool.held > f.pool.budget {
		return f.release()
	}
	if len(f.buf) >= f.flushAt {
		return f.flush()
	}
	return nil
}

// release flushes f and gives its buffer back.
func (f *pendingFile) release() error {
	err := f.flush()
	f.pool.held -= cap(f.buf)
	f.buf = nil
	return err
}

// flush writes the pending bytes: the first flush creates (truncates) the
// file, later ones append. A flush with nothing pending still creates it.
func (f *pendingFile) flush() error {
	if f.written && len(f.buf) == 0 {
		return nil
	}
	flag := os.O_WRONLY | os.O_APPEND
	if !f.written {
		flag = os.O_WRONLY | os.O_CREATE | os.O_TRUNC
	}
	h, err := os.OpenFile(f.path, flag, 0o644)
	if err != nil {
		return err
	}
	_, err = h.Write(f.buf)
	if cerr := h.Close(); err == nil {
		err = cerr
	}
	f.written = true
	f.buf = f.buf[:0]
	return err
}

// Memory for pending bytes: writeBudget shared by the partitions, each
// flushing at between minFlush and maxFlush bytes per file (a variable so
// that a test can force many small writes).
var writeBudget = 64 << 20

const (
	minFlush = 4 << 10
	maxFlush = 1 << 20
)

// segmentWriter is the active segment of a partition.
type segmentWriter struct {
	base           int64
	log, idx, tidx pendingFile
	size           int64
	sinceIndex     int64
	maxTs          int64 // maxTimestampSoFar
	maxTsOffset    int64 // shallowOffsetOfMaxTimestampSoFar
	lastTidxTs     int64
	idxEntries     int
	tidxEntries    int
	rollingBaseTs  int64 // max timestamp of the segment's first batch
	hasFirst       bool
}

// partitionWriter writes one partition directory the way a broker leader
// does for client produce requests (docs/producer-model.md, Broker write path).
type partitionWriter struct {
	cfg            *Config
	dir            string
	leo            int64
	seg            *segmentWriter
	lastSnapOffset int64
	producers      map[int64]*producerEntry
	stats          PartitionStats
	scratch        []byte
	flushAt        int // pending bytes per file that trigger a write
	pool           *writePool
}

func newPartitionWriter(cfg *Config, root string, part int, pool *writePool) (*partitionWriter, error) {
	dir := filepath.Join(root, fmt.Sprintf("%s-%d", cfg.Topic, part))
	if err := os.Mkdir(dir, 0o755); err != nil {
		return nil, err
	}
	w := &partitionWriter{
		cfg:       cfg,
		dir:       dir,
		producers: map[int64]*producerEntry{},
		stats:     PartitionStats{Partition: part, RecordsPerBatch: map[int]int{}},
		flushAt:   min(maxFlush, max(minFlush, pool.budget/max(cfg.Partitions, 1))),
		pool:      pool,
	}
	w.openSegment(0)
	return w, nil
}

func segmentName(dir string, base int64, suffix string) string {
	return filepath.Join(dir, index.FormatBaseOffset(base)+suffix)
}

func (w *partitionWriter) openSegment(base int64) {
	s := &segmentWriter{base: base, maxTs: batch.NoTimestamp, maxTsOffset: -1, lastTidxTs: batch.NoTimestamp}
	s.log = pendingFile{path: segmentName(w.dir, base, ".log"), flushAt: w.flushAt, pool: w.pool}
	s.idx = pendingFile{path: segmentName(w.dir, base, ".index"), flushAt: w.flushAt, pool: w.pool}
	s.tidx = pendingFile{path: segmentName(w.dir, base, ".timeindex"), flushAt: w.flushAt, pool: w.pool}
	// The files are created by their first write at the latest when the
	// segment closes: a small partition's files are each opened once.
	w.seg = s
	w.stats.Segments++
}

// closeSegment is onBecomeInactiveSegment + close: the final time-index
// entry, then the files are written out at their valid size.
func (w *partitionWriter) closeSegment() error {
	s := w.seg
	var first error
	if s.maxTs > s.lastTidxTs {
		first = s.appendTimeIndex(s.maxTs, s.maxTsOffset)
	}
	for _, f := range []*pendingFile{&s.log, &s.idx, &s.tidx} {
		if err := f.release(); err != nil && first == nil {
			first = err
		}
	}
	w.seg = nil
	return first
}

func (s *segmentWriter) appendTimeIndex(ts, offset int64) error {
	var e [12]byte
	binary.BigEndian.PutUint64(e[0:], uint64(ts))
	binary.BigEndian.PutUint32(e[8:], uint32(offset-s.base))
	s.lastTidxTs = ts
	s.tidxEntries++
	return s.tidx.write(e[:])
}

// shouldRoll is LogSegment.shouldRoll for an append of size bytes whose
// largest timestamp is maxTs and last offset lastOffset.
func (w *partitionWriter) shouldRoll(size int64, maxTs, lastOffset int64) bool {
	s := w.seg
	switch {
	case s.size > w.cfg.SegmentBytes-size:
		return true
	case s.size > 0 && s.hasFirst && maxTs-s.rollingBaseTs > w.cfg.SegmentMs:
		return true
	case s.idxEntries >= maxOffsetIndexEntries || s.tidxEntries >= maxTimeIndexEntries-1:
		return true
	case lastOffset-s.base > math.MaxInt32:
		return true
	}
	return false
}

// appendBatch appends one client batch (as the producer built it) at broker
// time nowMs: offsets and leader epoch are assigned in place, LogAppendTime
// rewrites the max timestamp, the segment rolls if needed, the indexes and
// producer state follow.
func (w *partitionWriter) appendBatch(b []byte, nowMs int64) error {
	batch.SetBaseOffset(b, w.leo)
	batch.SetPartitionLeaderEpoch(b, w.cfg.LeaderEpoch)
	if w.cfg.TimestampType == batch.LogAppendTime {
		batch.SetLogAppendTime(b, nowMs)
	}
	h, err := batch.ParseHeader(b)
	if err != nil {
		return err
	}
	size := int64(len(b))
	if size > w.cfg.SegmentBytes {
		return fmt.Errorf("batch of %d bytes is larger than segment.bytes %d (RecordBatchTooLarge)", size, w.cfg.SegmentBytes)
	}
	lastOffset := h.LastOffset()
	if w.seg.size > 0 && w.shouldRoll(size, h.MaxTimestamp, lastOffset) {
		if err := w.roll(); err != nil {
			return err
		}
	}
	s := w.seg
	if err := s.log.write(b); err != nil {
		return err
	}
	// LogSegment.append, per batch (KAFKA-806 form).
	if !s.hasFirst {
		s.hasFirst = true
		s.rollingBaseTs = h.MaxTimestamp
	}
	if h.MaxTimestamp > s.maxTs {
		s.maxTs = h.MaxTimestamp
		s.maxTsOffset = lastOffset
	}
	if s.sinceIndex > int64(w.cfg.IndexIntervalBytes) {
		var e [8]byte
		binary.BigEndian.PutUint32(e[0:], uint32(lastOffset-s.base))
		binary.BigEndian.PutUint32(e[4:], uint32(s.size))
		s.idxEntries++
		if err := s.idx.write(e[:]); err != nil {
			return err
		}
		if s.maxTs > s.lastTidxTs {
			if err := s.appendTimeIndex(s.maxTs, s.maxTsOffset); err != nil {
				return err
			}
		}
		s.sinceIndex = 0
	}
	s.size += size
	s.sinceIndex += size

	if h.ProducerID >= 0 {
		ins := int64(len(w.producers))
		if old, ok := w.producers[h.ProducerID]; ok {
			ins = old.inserted
		}
		w.producers[h.ProducerID] = &producerEntry{
			inserted:    ins,
			pid:         h.ProducerID,
			epoch:       h.ProducerEpoch,
			lastSeq:     h.LastSequence(),
			lastOffset:  lastOffset,
			offsetDelta: h.LastOffsetDelta,
			timestamp:   h.MaxTimestamp,
		}
	}
	w.leo = lastOffset + 1
	w.stats.Batches++
	w.stats.Records += int64(h.RecordCount)
	w.stats.Bytes += size
	w.stats.RecordsPerBatch[int(h.RecordCount)]++
	return nil
}

// roll closes the active segment, opens one at the log end offset and
// takes a producer snapshot there (UnifiedLog.roll).
func (w *partitionWriter) roll() error {
	if err := w.closeSegment(); err != nil {
		return err
	}
	w.openSegment(w.leo)
	return w.takeSnapshot(w.leo)
}

// takeSnapshot writes <offset>.snapshot if offset is past the last one
// (ProducerStateManager.takeSnapshot).
func (w *partitionWriter) takeSnapshot(offset int64) error {
	if offset <= w.lastSnapOffset {
		return nil
	}
	w.scratch = appendSnapshot(w.scratch[:0], w.producers)
	if err := os.WriteFile(segmentName(w.dir, offset, ".snapshot"), w.scratch, 0o644); err != nil {
		return err
	}
	w.lastSnapOffset = offset
	return nil
}

// snapshotOrder lists producer ids the way a java.util.HashMap<Long,_> of
// them iterates (insertion order within a bucket). Broker-written snapshots
// (Kafka 3.5+, ProducerStateManager in Java) list producers in this order.
func snapshotOrder(producers map[int64]*producerEntry) []int64 {
	ids := make([]int64, 0, len(producers))
	for id := range producers {
		ids = append(ids, id)
	}
	sort.Slice(ids, func(i, j int) bool { return producers[ids[i]].inserted < producers[ids[j]].inserted })
	return javaorder.Longs(ids)
}

// appendSnapshot encodes the producer snapshot with package index's
// encoder, entries in Java HashMap iteration order as the broker writes them.
func appendSnapshot(dst []byte, producers map[int64]*producerEntry) []byte {
	ids := snapshotOrder(producers)
	entries := make([]index.ProducerEntry, len(ids))
	for i, id := range ids {
		e := producers[id]
		entries[i] = index.ProducerEntry{ProducerID: e.pid, Epoch: e.epoch, LastSequence: e.lastSeq,
			LastOffset: e.lastOffset, OffsetDelta: e.offsetDelta, Timestamp: e.timestamp,
			CoordinatorEpoch: -1, CurrentTxnFirstOffset: -1}
	}
	return index.NewSnapshot(entries).AppendTo(dst)
}

// close finishes the partition as a clean broker shutdown leaves it: the
// active segment closed with its final time-index entry, a snapshot at the
// log end offset, the leader-epoch checkpoint and partition.metadata.
func (w *partitionWriter) close(topicID index.Uuid) error {
	if w.seg != nil {
		if err := w.closeSegment(); err != nil {
			return err
		}
	}
	if err := w.takeSnapshot(w.leo); err != nil {
		return err
	}
	lec := index.AppendLeaderEpochCheckpoint(nil, []index.EpochEntry{{Epoch: w.cfg.LeaderEpoch, StartOffset: 0}})
	if err := os.WriteFile(filepath.Join(w.dir, "leader-epoch-checkpoint"), lec, 0o644); err != nil {
		return err
	}
	pm := index.PartitionMetadata{Version: index.PartitionMetadataVersion, TopicID: topicID}.AppendTo(nil)
	return os.WriteFile(filepath.Join(w.dir, "partition.metadata"), pm, 0o644)
}

// abort drops the pending bytes after a failure (no file is held open);
// the temp dir is removed by the caller.
func (w *partitionWriter) abort() {
	w.seg = nil
}
