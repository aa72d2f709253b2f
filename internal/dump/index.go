package dump

import (
	"errors"
	"fmt"
	"os"
	"strconv"

	"github.com/kseg/kseg/batch"
	"github.com/kseg/kseg/index"
	"github.com/kseg/kseg/segment"
)

func (d *Dumper) dumpIndex(name string) error {
	if _, err := baseOffsetOf(name); err != nil {
		return err
	}
	log, err := openIndexLog(name, d.opts.MaxDecompressed, d.opts.KafkaTail)
	if err != nil {
		return err
	}
	defer log.Close()
	idx, err := index.OpenOffsetIndex(name)
	if err != nil {
		return err
	}
	defer idx.Close()
	shown := javaFileString(name)
	if idx.Entries() == 0 {
		if d.json != nil {
			d.json.indexStatus(name, "empty")
		} else {
			d.printf("%s is empty.\n", shown)
		}
		return nil
	}
	if d.opts.IndexSanityCheck {
		if err := idx.SanityCheck(absPath(name)); err != nil {
			return err
		}
		if d.json != nil {
			d.json.indexStatus(name, "passed sanity check")
		} else {
			d.printf("%s passed sanity check.\n", shown)
		}
		return nil
	}
	abs := absPath(name)
	it := idx.Iter()
	prev := int64(-1)
	for it.Next() {
		ent := it.Entry()
		if d.opts.Format != FormatKafka && it.Slot() > 0 && ent.Offset <= prev {
			d.indexFinding(name, "index-not-increasing", "error", ent, fmt.Sprintf("entry %d (offset %d) does not follow the previous entry's offset %d: lookups can land on the wrong batch", it.Slot(), ent.Offset, prev))
		}
		prev = ent.Offset
		first, err := log.BatchAt(int64(ent.Position), d.opts.MaxMessageSize)
		if err != nil {
			// Locate the failure at the index entry; the cause keeps its
			// own place in the log.
			slot := int64(it.Slot())
			return &segment.Error{File: name, Offset: slot * index.OffsetEntrySize, Err: fmt.Errorf("entry %d (offset %d): %w", slot, ent.Offset, err)}
		}
		if lo := first.LastOffset; lo != ent.Offset {
			m := d.indexMismatches.get(abs, func() map[int64]int64 { return map[int64]int64{} })
			m[ent.Offset] = lo
			if d.opts.Format != FormatKafka {
				d.lookupInvariant(name, ent, first)
			}
		}
		if d.json != nil {
			d.json.indexEntry(name, ent.Offset, int64(ent.Position))
		} else if !d.opts.VerifyIndexOnly {
			b := append(d.line[:0], "offset: "...)
			b = strconv.AppendInt(b, ent.Offset, 10)
			b = append(b, " position: "...)
			b = strconv.AppendInt(b, int64(ent.Position), 10)
			d.line = b
			d.flushLine()
		}
	}
	return it.Err()
}

// lookupInvariant is kseg's own check for an entry that Kafka's strict
// comparison flags: the broker only needs a batch to start at the position
// with baseOffset <= indexed offset. Entries written by a follower (one per
// multi-batch append, before Kafka 4.0) satisfy it, so the strict mismatch
// is reported as informational.
func (d *Dumper) indexFinding(name, code, sev string, ent index.OffsetEntry, msg string) {
	if d.json != nil {
		d.json.begin("finding", name)
		d.json.j.Str("code", code)
		d.json.j.Str("severity", sev)
		d.json.j.Int("index_offset", ent.Offset)
		d.json.j.Int("position", int64(ent.Position))
		d.json.j.Str("message", msg)
		d.json.end()
		return
	}
	d.printf("kseg-%s: index offset %d at position %d: %s\n", sev, ent.Offset, ent.Position, msg)
}

func (d *Dumper) lookupInvariant(name string, ent index.OffsetEntry, first *indexedBatch) {
	ok := lookupHolds(ent.Offset, first)
	msg := "strict mismatch only: a batch starts at the position and covers offsets up to the indexed one (a multi-batch append, as followers wrote before Kafka 4.0); lookups are correct"
	sev := "info"
	if !ok {
		msg = "lookup invariant broken: the batch at the indexed position starts after the indexed offset"
		sev = "error"
	}
	if d.json != nil {
		d.json.begin("finding", name)
		d.json.j.Str("code", "index-lookup-invariant")
		d.json.j.Str("severity", sev)
		d.json.j.Int("index_offset", ent.Offset)
		d.json.j.Int("position", int64(ent.Position))
		d.json.j.Int("batch_base_offset", first.BaseOffset)
		d.json.j.Int("batch_last_offset", first.LastOffset)
		d.json.j.Str("message", msg)
		d.json.end()
		return
	}
	d.printf("kseg-%s: index offset %d at position %d: %s\n", sev, ent.Offset, ent.Position, msg)
}

func (d *Dumper) dumpTimeIndex(name string) error {
	if _, err := baseOffsetOf(name); err != nil {
		return err
	}
	log, err := openIndexLog(name, d.opts.MaxDecompressed, d.opts.KafkaTail)
	if err != nil {
		return err
	}
	defer log.Close()
	var offIdx *index.OffsetIndex
	if p := companion(name, ".index"); fileExists(p) {
		if offIdx, err = index.OpenOffsetIndex(p); err != nil {
			return err
		}
		defer offIdx.Close()
	}
	tidx, err := index.OpenTimeIndex(name)
	if err != nil {
		return err
	}
	defer tidx.Close()
	if d.opts.IndexSanityCheck {
		if err := tidx.SanityCheck(absPath(name)); err != nil {
			return err
		}
		if d.json != nil {
			d.json.indexStatus(name, "passed sanity check")
		} else {
			d.printf("%s passed sanity check.\n", javaFileString(name))
		}
		return nil
	}
	abs := absPath(name)
	prev := batch.NoTimestamp
	it := tidx.Iter()
	for it.Next() {
		ent := it.Entry()
		pos := int64(0)
		if offIdx != nil {
			oe, _, err := offIdx.Lookup(ent.Offset)
			if err != nil {
				return err
			}
			pos = int64(oe.Position)
		}
		match, raw, err := log.FirstEnding(pos, ent.Offset)
		if err != nil {
			return timeEntryError(name, it.Slot(), it.ByteOffset(), ent, err)
		}
		switch {
		case match == nil:
			l := d.timeNotFound.get(abs, func() [][2]int64 { return nil })
			d.timeNotFound.set(abs, append(l, [2]int64{ent.Offset, -1}))
		case match.LastOffset != ent.Offset:
			l := d.timeNotFound.get(abs, func() [][2]int64 { return nil })
			d.timeNotFound.set(abs, append(l, [2]int64{ent.Offset, match.LastOffset}))
		default:
			maxTs, err := log.MaxRecordTimestamp(match, raw)
			if err != nil {
				return timeEntryError(name, it.Slot(), it.ByteOffset(), ent, err)
			}
			if maxTs != ent.Timestamp {
				l := d.timeMismatch.get(abs, func() [][2]int64 { return nil })
				d.timeMismatch.set(abs, append(l, [2]int64{ent.Timestamp, maxTs}))
			}
			if prev >= ent.Timestamp {
				l := d.timeOutOfOrder.get(abs, func() [][2]int64 { return nil })
				d.timeOutOfOrder.set(abs, append(l, [2]int64{ent.Timestamp, prev}))
			}
		}
		if d.json != nil {
			d.json.timeIndexEntry(name, ent.Timestamp, ent.Offset)
		} else if !d.opts.VerifyIndexOnly {
			b := append(d.line[:0], "timestamp: "...)
			b = strconv.AppendInt(b, ent.Timestamp, 10)
			b = append(b, " offset: "...)
			b = strconv.AppendInt(b, ent.Offset, 10)
			d.line = b
			d.flushLine()
		}
		prev = ent.Timestamp
	}
	return it.Err()
}

func fileExists(p string) bool { _, err := os.Stat(p); return err == nil }

func (d *Dumper) dumpSnapshot(name string) error {
	snap, err := index.ReadSnapshotFile(name)
	if err != nil {
		if errors.Is(err, index.ErrCorruptSnapshot) {
			d.findings = append(d.findings, err)
			msg, ok := index.KafkaMessage(err)
			if !ok {
				msg = err.Error()
			}
			if d.json != nil {
				d.json.begin("finding", name)
				d.json.j.Str("code", "corrupt-snapshot")
				d.json.j.Str("message", msg)
				d.json.end()
				return nil
			}
			d.errorf("%s\n", msg)
			return nil
		}
		return err
	}
	for _, e := range snap.Entries {
		if d.json != nil {
			d.json.producerEntry(name, e)
			continue
		}
		first, hasTxn := e.TxnFirstOffset()
		b := append(d.line[:0], "producerId: "...)
		b = strconv.AppendInt(b, e.ProducerID, 10)
		b = append(b, " producerEpoch: "...)
		b = strconv.AppendInt(b, int64(e.Epoch), 10)
		b = append(b, " coordinatorEpoch: "...)
		b = strconv.AppendInt(b, int64(e.CoordinatorEpoch), 10)
		b = append(b, " currentTxnFirstOffset: "...)
		b = append(b, index.FormatOptionalLong(first, hasTxn)...)
		b = append(b, " lastTimestamp: "...)
		b = strconv.AppendInt(b, e.Timestamp, 10)
		if e.HasBatchMetadata() {
			b = append(b, " firstSequence: "...)
			b = strconv.AppendInt(b, int64(e.FirstSequence()), 10)
			b = append(b, " lastSequence: "...)
			b = strconv.AppendInt(b, int64(e.LastSequence), 10)
			b = append(b, " lastOffset: "...)
			b = strconv.AppendInt(b, e.LastOffset, 10)
			b = append(b, " offsetDelta: "...)
			b = strconv.AppendInt(b, int64(e.OffsetDelta), 10)
			b = append(b, " timestamp: "...)
			b = strconv.AppendInt(b, e.Timestamp, 10)
		}
		d.line = b
		d.flushLine()
	}
	return nil
}

func (d *Dumper) dumpTxnIndex(name string) error {
	if !fileExists(name) {
		return nil // Kafka reads a missing transaction index as empty
	}
	tx, err := index.OpenTxnIndex(name)
	if err != nil {
		return err
	}
	defer tx.Close()
	it := tx.Iter()
	for it.Next() {
		t := it.Entry()
		if d.json != nil {
			d.json.abortedTxn(name, t)
			continue
		}
		d.printf("version: %d producerId: %d firstOffset: %d lastOffset: %d lastStableOffset: %d\n",
			t.Version(), t.ProducerID, t.FirstOffset, t.LastOffset, t.LastStableOffset)
	}
	return it.Err()
}

func (jw *jsonWriter) indexStatus(name, status string) {
	jw.body("index_status", name)
	jw.j.Str("status", status)
	jw.end()
}

func (jw *jsonWriter) indexEntry(name string, off, pos int64) {
	jw.body("index_entry", name)
	jw.j.Int("offset", off)
	jw.j.Int("position", pos)
	jw.end()
}

func (jw *jsonWriter) timeIndexEntry(name string, ts, off int64) {
	jw.body("time_index_entry", name)
	jw.j.Int("timestamp", ts)
	jw.j.Int("offset", off)
	jw.end()
}

func (jw *jsonWriter) abortedTxn(name string, t index.AbortedTxn) {
	jw.body("aborted_txn", name)
	jw.j.Int("version", int64(t.Version()))
	jw.j.Int("producer_id", t.ProducerID)
	jw.j.Int("first_offset", t.FirstOffset)
	jw.j.Int("last_offset", t.LastOffset)
	jw.j.Int("last_stable_offset", t.LastStableOffset)
	jw.end()
}

func (jw *jsonWriter) producerEntry(name string, e index.ProducerEntry) {
	jw.body("producer_state", name)
	j := &jw.j
	j.Int("producer_id", e.ProducerID)
	j.Int("producer_epoch", int64(e.Epoch))
	j.Int("coordinator_epoch", int64(e.CoordinatorEpoch))
	if f, ok := e.TxnFirstOffset(); ok {
		j.Int("current_txn_first_offset", f)
	} else {
		j.Null("current_txn_first_offset")
	}
	j.Int("last_timestamp", e.Timestamp)
	if e.HasBatchMetadata() {
		j.Int("first_sequence", int64(e.FirstSequence()))
		j.Int("last_sequence", int64(e.LastSequence))
		j.Int("last_offset", e.LastOffset)
		j.Int("offset_delta", int64(e.OffsetDelta))
	}
	jw.end()
}

// timeEntryError locates a failure reading the log at the time index entry
// that led there; the cause keeps its own place in the log.
func timeEntryError(name string, slot, at int64, ent index.TimeEntry, err error) error {
	return &segment.Error{File: name, Offset: at, Err: fmt.Errorf("entry %d (timestamp %d, offset %d): %w", slot, ent.Timestamp, ent.Offset, err)}
}
