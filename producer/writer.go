package producer

import (
	"bufio"
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

// Broker limits that decide rolls (PRODUCER-MODEL.md 6.4), for the default
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

// segmentWriter is the active segment of a partition.
type segmentWriter struct {
	base          int64
	logF          *os.File
	log           *bufio.Writer
	idxF, tidxF   *os.File
	idx, tidx     *bufio.Writer
	size          int64
	sinceIndex    int64
	maxTs         int64 // maxTimestampSoFar
	maxTsOffset   int64 // shallowOffsetOfMaxTimestampSoFar
	lastTidxTs    int64
	idxEntries    int
	tidxEntries   int
	rollingBaseTs int64 // max timestamp of the segment's first batch
	hasFirst      bool
}

// partitionWriter writes one partition directory the way a broker leader
// does for client produce requests (PRODUCER-MODEL.md section 6).
type partitionWriter struct {
	cfg            *Config
	dir            string
	leo            int64
	seg            *segmentWriter
	lastSnapOffset int64
	producers      map[int64]*producerEntry
	stats          PartitionStats
	scratch        []byte
}

func newPartitionWriter(cfg *Config, root string, part int) (*partitionWriter, error) {
	dir := filepath.Join(root, fmt.Sprintf("%s-%d", cfg.Topic, part))
	if err := os.Mkdir(dir, 0o755); err != nil {
		return nil, err
	}
	w := &partitionWriter{
		cfg:       cfg,
		dir:       dir,
		producers: map[int64]*producerEntry{},
		stats:     PartitionStats{Partition: part, RecordsPerBatch: map[int]int{}},
	}
	if err := w.openSegment(0); err != nil {
		return nil, err
	}
	return w, nil
}

func segmentName(dir string, base int64, suffix string) string {
	return filepath.Join(dir, index.FormatBaseOffset(base)+suffix)
}

func (w *partitionWriter) openSegment(base int64) error {
	s := &segmentWriter{base: base, maxTs: batch.NoTimestamp, maxTsOffset: -1, lastTidxTs: batch.NoTimestamp}
	var err error
	if s.logF, err = os.Create(segmentName(w.dir, base, ".log")); err != nil {
		return err
	}
	if s.idxF, err = os.Create(segmentName(w.dir, base, ".index")); err != nil {
		return err
	}
	if s.tidxF, err = os.Create(segmentName(w.dir, base, ".timeindex")); err != nil {
		return err
	}
	s.log = bufio.NewWriterSize(s.logF, 1<<20)
	s.idx = bufio.NewWriterSize(s.idxF, 64<<10)
	s.tidx = bufio.NewWriterSize(s.tidxF, 64<<10)
	w.seg = s
	w.stats.Segments++
	return nil
}

// closeSegment is onBecomeInactiveSegment + close: the final time-index
// entry, then the files are flushed at their valid size.
func (w *partitionWriter) closeSegment() error {
	s := w.seg
	if s.maxTs > s.lastTidxTs {
		s.appendTimeIndex(s.maxTs, s.maxTsOffset)
	}
	var first error
	for _, c := range []struct {
		b *bufio.Writer
		f *os.File
	}{{s.log, s.logF}, {s.idx, s.idxF}, {s.tidx, s.tidxF}} {
		if err := c.b.Flush(); err != nil && first == nil {
			first = err
		}
		if err := c.f.Close(); err != nil && first == nil {
			first = err
		}
	}
	w.seg = nil
	return first
}

func (s *segmentWriter) appendTimeIndex(ts, offset int64) {
	var e [12]byte
	binary.BigEndian.PutUint64(e[0:], uint64(ts))
	binary.BigEndian.PutUint32(e[8:], uint32(offset-s.base))
	s.tidx.Write(e[:])
	s.lastTidxTs = ts
	s.tidxEntries++
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
	if _, err := s.log.Write(b); err != nil {
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
		s.idx.Write(e[:])
		s.idxEntries++
		if s.maxTs > s.lastTidxTs {
			s.appendTimeIndex(s.maxTs, s.maxTsOffset)
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
	if err := w.openSegment(w.leo); err != nil {
		return err
	}
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

// abort closes open files after a failure; the temp dir is removed by the
// caller.
func (w *partitionWriter) abort() {
	if w.seg != nil {
		w.seg.logF.Close()
		w.seg.idxF.Close()
		w.seg.tidxF.Close()
		w.seg = nil
	}
}
