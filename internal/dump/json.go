package dump

import (
	"encoding/base64"
	"strconv"
	"unicode/utf8"

	"github.com/kseg/kseg/batch"
	"github.com/kseg/kseg/content"
	"github.com/kseg/kseg/segment"
)

// jsonWriter emits kseg's NDJSON dump schema (documented in docs/json.md,
// "kseg dump --format json"). Keys are snake_case; offsets and ids are numbers; byte
// strings are UTF-8 text when valid, else base64 with an *_encoding field.
type jsonWriter struct {
	w sink
	j jsonObj
}

func (jw *jsonWriter) begin(kind, file string) {
	jw.j.b = jw.j.b[:0]
	jw.j.str("type", kind)
	jw.j.str("file", file)
}

func (jw *jsonWriter) end() {
	jw.w.Write(jw.j.done())
	jw.w.WriteByte('\n')
}

func (j *jsonObj) boolean(k string, v bool) { j.key(k); j.b = strconv.AppendBool(j.b, v) }
func (j *jsonObj) null(k string)            { j.key(k); j.b = append(j.b, "null"...) }

// bytesField writes k (and k_encoding when not UTF-8); nil is JSON null.
func (j *jsonObj) bytesField(k string, v []byte) {
	if v == nil {
		j.null(k)
		return
	}
	if utf8.Valid(v) {
		j.key(k)
		j.b = content.AppendJSONString(j.b, string(v))
		return
	}
	j.key(k)
	j.b = append(j.b, '"')
	j.b = base64.StdEncoding.AppendEncode(j.b, v)
	j.b = append(j.b, '"')
	j.str(k+"_encoding", "base64")
}

func (jw *jsonWriter) batch(name string, e *segment.Batch, raw []byte) error {
	jw.begin("batch", name)
	j := &jw.j
	j.int("position", e.Pos)
	j.int("size", e.Size)
	j.int("magic", int64(e.Magic))
	if e.Magic >= batch.MagicV2 {
		h := &e.Header
		if !h.Codec().Valid() {
			return &segment.Error{File: name, Offset: e.Pos + 21, Err: &batch.FormatError{Pos: 21, Err: batch.ErrUnknownCodec, Detail: "Unknown compression type id: " + strconv.Itoa(int(h.Codec()))}}
		}
		j.int("base_offset", h.BaseOffset)
		j.int("last_offset", h.LastOffset())
		j.int("count", int64(h.RecordCount))
		j.int("base_sequence", int64(h.BaseSequence))
		j.int("last_sequence", int64(h.LastSequence()))
		j.int("producer_id", h.ProducerID)
		j.int("producer_epoch", int64(h.ProducerEpoch))
		j.int("partition_leader_epoch", int64(h.PartitionLeaderEpoch))
		j.boolean("is_transactional", h.IsTransactional())
		j.boolean("is_control", h.IsControl())
		if dh, ok := h.DeleteHorizon(); ok {
			j.int("delete_horizon_ms", dh)
		} else {
			j.null("delete_horizon_ms")
		}
		j.str("timestamp_type", h.TimestampType().String())
		j.int("base_timestamp", h.BaseTimestamp)
		j.int("max_timestamp", h.MaxTimestamp)
		j.str("codec", h.Codec().String())
		j.int("crc", int64(h.CRC))
		j.boolean("crc_valid", batch.ValidCRC(raw))
		if len(raw) > batch.HeaderSize && h.Codec() == batch.CodecNone {
			if s := batch.SniffCodec(raw[batch.HeaderSize:]); s != batch.CodecNone {
				j.str("payload_looks_like", s.String())
			}
		}
	} else {
		m, err := batch.ParseLegacy(raw)
		if err != nil {
			return &segment.Error{File: name, Offset: e.Pos, Err: err}
		}
		j.int("offset", m.Offset)
		j.str("timestamp_type", m.TimestampType().String())
		j.int("timestamp", m.Timestamp)
		j.str("codec", m.Codec().String())
		j.int("crc", int64(m.CRC))
		j.boolean("crc_valid", m.Valid())
	}
	jw.end()
	return nil
}

func (jw *jsonWriter) record(d *formatter, name string, e *segment.Batch, off, ts int64, seq int32, r *batch.Record, control bool) error {
	jw.begin("record", name)
	j := &jw.j
	j.int("batch_position", e.Pos)
	j.int("offset", off)
	j.str("timestamp_type", e.Header.TimestampType().String())
	j.int("timestamp", ts)
	j.int("key_size", int64(r.KeySize()))
	j.int("value_size", int64(r.ValueSize()))
	j.int("sequence", int64(seq))
	j.key("headers")
	j.b = append(j.b, '[')
	for i, h := range r.Headers {
		if i > 0 {
			j.b = append(j.b, ',')
		}
		var hj jsonObj
		hj.bytesField("key", h.Key)
		hj.bytesField("value", h.Value)
		j.b = append(j.b, hj.done()...)
	}
	j.b = append(j.b, ']')
	if control {
		t, err := batch.ParseControlKey(r.Key)
		if err != nil {
			return err
		}
		j.str("control_type", t.Name())
		if t == batch.ControlAbort || t == batch.ControlCommit {
			m, err := batch.ParseEndTxnMarker(r.Value)
			if err != nil {
				return err
			}
			j.int("coordinator_epoch", int64(m.CoordinatorEpoch))
		} else if js, ok, err := content.AppendControlRecord(nil, off, int16(t), r.Value); ok && err == nil {
			j.key("control")
			j.b = append(j.b, js...)
		}
	} else if d.opts.PrintDataLog && d.parser != nil {
		res, err := d.parser.Parse(off, r.Key, r.Value)
		if err != nil {
			return err
		}
		if res.HasKey {
			j.str("key", res.Key)
		}
		if res.HasPayload {
			j.str("payload", res.Payload)
		}
	} else if d.opts.PrintDataLog {
		j.bytesField("key", r.Key)
		j.bytesField("value", r.Value)
	}
	jw.end()
	return nil
}

func (jw *jsonWriter) legacyRecord(d *formatter, name string, e *segment.Batch, m *batch.LegacyMessage) {
	jw.begin("record", name)
	j := &jw.j
	j.int("batch_position", e.Pos)
	j.int("offset", m.Offset)
	j.str("timestamp_type", m.TimestampType().String())
	j.int("timestamp", m.Timestamp)
	j.int("key_size", int64(sizeOrNull(m.Key)))
	j.int("value_size", int64(sizeOrNull(m.Value)))
	j.int("magic", int64(m.Magic))
	j.int("crc", int64(m.CRC))
	j.boolean("crc_valid", m.Valid())
	if d.opts.PrintDataLog {
		j.bytesField("key", m.Key)
		j.bytesField("value", m.Value)
	}
	jw.end()
}

func (jw *jsonWriter) trailing(name string, pos, n int64) {
	jw.begin("finding", name)
	jw.j.str("code", "trailing-bytes")
	jw.j.int("position", pos)
	jw.j.int("bytes", n)
	jw.j.str("message", "bytes after the last whole batch (a partial write, or a preallocated tail)")
	jw.end()
}

func (jw *jsonWriter) corrupt(name string, from, to int64, cause error) {
	jw.begin("finding", name)
	jw.j.str("code", "corrupt-region")
	jw.j.int("position", from)
	jw.j.int("end", to)
	jw.j.str("message", regionCause(cause))
	jw.end()
}

func (jw *jsonWriter) skipped(name, why string) {
	jw.begin("skipped", name)
	jw.j.str("reason", why)
	jw.end()
}

// summaries emits kafka-dump-log's end-of-run findings as finding objects.
func (jw *jsonWriter) summaries(d *Dumper) {
	for _, k := range d.indexMismatches.keys {
		m := d.indexMismatches.m[k]
		for _, off := range sortedKeys(m, false) {
			jw.begin("finding", k)
			jw.j.str("code", "index-offset-mismatch")
			jw.j.int("index_offset", off)
			jw.j.int("log_offset", m[off])
			jw.end()
		}
	}
	emit := func(code string, om *orderedMap[[][2]int64], a, b string) {
		for _, k := range om.keys {
			for _, p := range om.m[k] {
				jw.begin("finding", k)
				jw.j.str("code", code)
				jw.j.int(a, p[0])
				jw.j.int(b, p[1])
				jw.end()
			}
		}
	}
	emit("time-index-timestamp-mismatch", &d.timeMismatch, "index_timestamp", "log_timestamp")
	emit("time-index-out-of-order", &d.timeOutOfOrder, "index_timestamp", "previous_timestamp")
	emit("time-index-offset-not-found", &d.timeNotFound, "index_offset", "found_log_offset")
	for _, k := range d.nonConsecutive.keys {
		m := d.nonConsecutive.m[k]
		for _, off := range sortedKeys(m, false) {
			jw.begin("finding", k)
			jw.j.str("code", "non-consecutive-offsets")
			jw.j.int("previous_offset", off)
			jw.j.int("next_offset", m[off])
			jw.end()
		}
	}
}
