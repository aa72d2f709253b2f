package dump

import (
	"encoding/base64"
	"github.com/kseg/kseg/internal/jsonobj"
	"math"
	"strconv"
	"unicode/utf8"

	"github.com/kseg/kseg/batch"
	"github.com/kseg/kseg/content"
	"github.com/kseg/kseg/segment"
)

// jsonWriter emits kseg's NDJSON dump schema (documented in docs/json.md,
// "kseg dump --format json"). Keys are snake_case; offsets and ids are numbers; byte
// strings are UTF-8 text when valid, else base64 with an *_encoding field.
//
// Schema 2 (the default) opens each file with a "file" object and leaves
// the file's name off the objects of its body (batches, records, index
// entries, ...), which follow it; findings and skipped files still name
// theirs. Schema 1 (--format json-v1) names the file on every object and
// writes no "file" object.
type jsonWriter struct {
	w  sink
	j  jsonobj.Obj
	v1 bool // schema 1: "file" on every object
	// scratch holds a rendered field that needs escaping (rare).
	scratch []byte
	// own is j.B's buffer when an object does not start in the sink's
	// free space; avail is the start of that space when it does.
	own   []byte
	avail *byte
	_     [cacheLine]byte // workers write j per record
}

// start points j at an empty object: in the sink's free space, where
// end writes it without a copy, or in the writer's own buffer.
func (jw *jsonWriter) start() {
	if a := jw.w.AvailableBuffer(); cap(a) >= minLineRoom && cap(a) >= cap(jw.own) {
		jw.j.B, jw.avail = a, &a[:1][0]
		return
	}
	jw.j.B, jw.avail = jw.own[:0], nil
}

// JSONSchema is the version of kseg dump's NDJSON schema that "file"
// objects carry (docs/json.md).
const JSONSchema = 2

// begin starts an object that names its file in both schemas (findings,
// skipped files).
func (jw *jsonWriter) begin(kind, file string) {
	jw.start()
	jw.j.Str("type", kind)
	jw.j.Str("file", file)
}

// body starts an object of a file's body: named in schema 1 only; in
// schema 2 it belongs to the "file" object before it.
func (jw *jsonWriter) body(kind, file string) {
	if jw.v1 {
		jw.begin(kind, file)
		return
	}
	jw.start()
	jw.j.B = append(jw.j.B, `{"type":"`...)
	jw.j.B = append(jw.j.B, kind...)
	jw.j.B = append(jw.j.B, '"')
}

// file opens a file's part of the dump (schema 2), as "Dumping <file>"
// does in the text form.
func (jw *jsonWriter) file(name string) {
	if jw.v1 {
		return
	}
	jw.begin("file", name)
	jw.j.Int("schema", JSONSchema)
	jw.end()
}

// appendRendered appends a field rendered by a content.Appender as a JSON
// string: the appender writes its text straight after the opening quote,
// and only text that needs escaping (seldom) is copied and escaped.
func (jw *jsonWriter) appendRendered(k string, render func([]byte) ([]byte, bool, error)) error {
	j := &jw.j
	mark := len(j.B)
	j.Key(k)
	j.B = append(j.B, '"')
	start := len(j.B)
	out, printed, err := render(j.B)
	if err != nil {
		return err
	}
	if !printed {
		j.B = j.B[:mark]
		return nil
	}
	if content.JSONSafe(out[start:]) {
		j.B = append(out, '"')
		return nil
	}
	jw.scratch = append(jw.scratch[:0], out[start:]...)
	j.B = content.AppendJSONBytes(out[:start-1], jw.scratch)
	return nil
}

func (jw *jsonWriter) end() {
	b := append(jw.j.Done(), '\n')
	jw.w.Write(b)
	if cap(b) > 0 && &b[:1][0] != jw.avail {
		jw.own = b[:0] // not the sink's: keep it for the next object
	}
	jw.j.B, jw.avail = nil, nil // never append to what was written
}

// bytesField writes k (and k_encoding when not UTF-8); nil is JSON null.
func bytesField(j *jsonobj.Obj, k string, v []byte) {
	if v == nil {
		j.Null(k)
		return
	}
	if utf8.Valid(v) {
		j.Key(k)
		j.B = content.AppendJSONBytes(j.B, v)
		return
	}
	j.Key(k)
	j.B = append(j.B, '"')
	j.B = base64.StdEncoding.AppendEncode(j.B, v)
	j.B = append(j.B, '"')
	j.Str(k+"_encoding", "base64")
}

// shownBound is one end of a batch's shown range.
func shownBound(j *jsonobj.Obj, k string, v int64, none bool) {
	if none {
		j.Null(k)
		return
	}
	j.Int(k, v)
}

func (jw *jsonWriter) batch(name string, e *segment.Batch, raw []byte, shown offsetRange, crc crcVerdict) error {
	jw.body("batch", name)
	j := &jw.j
	j.Int("position", e.Pos)
	j.Int("size", e.Size)
	j.Int("magic", int64(e.Magic))
	if e.Magic >= batch.MagicV2 {
		h := &e.Header
		if !h.Codec().Valid() {
			return &segment.Error{File: name, Offset: e.Pos + 21, Err: &batch.FormatError{Pos: 21, Err: batch.ErrUnknownCodec, Detail: "Unknown compression type id: " + strconv.Itoa(int(h.Codec()))}}
		}
		j.Int("base_offset", h.BaseOffset)
		j.Int("last_offset", h.LastOffset())
		j.Int("count", int64(h.RecordCount))
		j.Int("base_sequence", int64(h.BaseSequence))
		j.Int("last_sequence", int64(h.LastSequence()))
		j.Int("producer_id", h.ProducerID)
		j.Int("producer_epoch", int64(h.ProducerEpoch))
		j.Int("partition_leader_epoch", int64(h.PartitionLeaderEpoch))
		j.Bool("is_transactional", h.IsTransactional())
		j.Bool("is_control", h.IsControl())
		if dh, ok := h.DeleteHorizon(); ok {
			j.Int("delete_horizon_ms", dh)
		} else {
			j.Null("delete_horizon_ms")
		}
		j.Str("timestamp_type", h.TimestampType().String())
		j.Int("base_timestamp", h.BaseTimestamp)
		j.Int("max_timestamp", h.MaxTimestamp)
		j.Str("codec", h.Codec().String())
		j.Int("crc", int64(h.CRC))
		j.Bool("crc_valid", crc.valid(raw))
		if len(raw) > batch.HeaderSize && h.Codec() == batch.CodecNone {
			if s := batch.SniffCodec(raw[batch.HeaderSize:]); s != batch.CodecNone {
				j.Str("payload_looks_like", s.String())
			}
		}
		if shown.cuts(h.BaseOffset, h.LastOffset()) {
			// Only its records in [shown_from, shown_to) follow (null:
			// no bound on that side).
			shownBound(j, "shown_from", shown.from, shown.from == math.MinInt64)
			shownBound(j, "shown_to", shown.to, shown.to == segment.Unbounded)
		}
		if shown.byKey() {
			j.Bool("shown_by_key", true) // only records whose key matches follow
		}
	} else {
		m, err := batch.ParseLegacy(raw)
		if err != nil {
			return &segment.Error{File: name, Offset: e.Pos, Err: err}
		}
		j.Int("offset", m.Offset)
		j.Str("timestamp_type", m.TimestampType().String())
		j.Int("timestamp", m.Timestamp)
		j.Str("codec", m.Codec().String())
		j.Int("crc", int64(m.CRC))
		j.Bool("crc_valid", m.Valid())
	}
	jw.end()
	return nil
}

// jsonTsLabel is a record's timestamp type and the timestamp's key.
func jsonTsLabel(t batch.TimestampType) string {
	switch t {
	case batch.CreateTime:
		return `,"timestamp_type":"CreateTime","timestamp":`
	case batch.LogAppendTime:
		return `,"timestamp_type":"LogAppendTime","timestamp":`
	}
	return `,"timestamp_type":"NoTimestampType","timestamp":` // t.String() of any other value
}

func (jw *jsonWriter) record(d *formatter, name string, e *segment.Batch, off, ts int64, seq int32, r *batch.Record, control bool) error {
	jw.body("record", name)
	j := &jw.j
	// The fields are written as the text form writes its line: constant
	// keys appended whole, and the numbers that repeat or step by one
	// from the formatter's digit caches.
	b := append(j.B, `,"batch_position":`...)
	b = d.posDigits.append(b, e.Pos)
	b = append(b, `,"offset":`...)
	b = d.offDigits.append(b, off)
	b = append(b, jsonTsLabel(e.Header.TimestampType())...)
	b = d.tsDigits.append(b, ts)
	// The sizes' run, kept while they repeat, as the text form keeps its.
	if p := &d.jsonSizes; !p.holds([5]int64{int64(r.KeySize()), int64(r.ValueSize())}) {
		p.b = append(p.b, `,"key_size":`...)
		p.b = appendDecimal(p.b, int64(r.KeySize()))
		p.b = append(p.b, `,"value_size":`...)
		p.b = appendDecimal(p.b, int64(r.ValueSize()))
		p.b = append(p.b, `,"sequence":`...)
	}
	b = append(b, d.jsonSizes.b...)
	b = d.seqDigits.append(b, int64(seq))
	j.B = append(b, `,"headers":[`...)
	for i, h := range r.Headers {
		if i > 0 {
			j.B = append(j.B, ',')
		}
		var hj jsonobj.Obj
		bytesField(&hj, "key", h.Key)
		if d.opts.Redact && h.Value != nil {
			hj.Str("value", redacted)
			hj.Int("value_size", int64(len(h.Value)))
		} else {
			bytesField(&hj, "value", h.Value)
		}
		j.B = append(j.B, hj.Done()...)
	}
	j.B = append(j.B, ']')
	if control {
		t, err := batch.ParseControlKey(r.Key)
		if err != nil {
			return err
		}
		j.Str("control_type", t.Name())
		if t == batch.ControlAbort || t == batch.ControlCommit {
			m, err := batch.ParseEndTxnMarker(r.Value)
			if err != nil {
				return err
			}
			j.Int("coordinator_epoch", int64(m.CoordinatorEpoch))
		} else if js, ok, err := content.AppendControlRecord(nil, off, int16(t), r.Value); ok && err == nil {
			j.Key("control")
			j.B = append(j.B, js...)
		}
	} else if d.keyStr && d.valueStr && d.opts.PrintDataLog {
		// The string decoder's text, appended without the parser's calls
		// (it is always printed, never an error), as the text form does.
		if r.Key != nil {
			jw.appendRendered("key", func(b []byte) ([]byte, bool, error) { return content.AppendJavaString(b, r.Key), true, nil })
		}
		if r.Value != nil {
			jw.appendRendered("payload", func(b []byte) ([]byte, bool, error) { return content.AppendJavaString(b, r.Value), true, nil })
		}
	} else if ap := d.ap; ap != nil && d.opts.PrintDataLog {
		// Kafka parses key and value before printing either; an error
		// drops the whole object, so nothing half-written is kept.
		if r.Key != nil {
			if err := jw.appendRendered("key", func(b []byte) ([]byte, bool, error) { return ap.AppendKey(b, off, r.Key) }); err != nil {
				return err
			}
		}
		if r.Value != nil {
			if err := jw.appendRendered("payload", func(b []byte) ([]byte, bool, error) { return ap.AppendPayload(b, off, r.Value) }); err != nil {
				return err
			}
		}
	} else if d.opts.PrintDataLog && d.parser != nil {
		res, err := d.parser.Parse(off, r.Key, r.Value)
		if err != nil {
			return err
		}
		if res.HasKey {
			j.Str("key", res.Key)
		}
		if res.HasPayload {
			j.Str("payload", res.Payload)
		}
	} else if d.opts.PrintDataLog {
		bytesField(j, "key", r.Key)
		bytesField(j, "value", r.Value)
	}
	jw.end()
	return nil
}

func (jw *jsonWriter) legacyRecord(d *formatter, name string, e *segment.Batch, m *batch.LegacyMessage) {
	jw.body("record", name)
	j := &jw.j
	j.Int("batch_position", e.Pos)
	j.Int("offset", m.Offset)
	j.Str("timestamp_type", m.TimestampType().String())
	j.Int("timestamp", m.Timestamp)
	j.Int("key_size", int64(sizeOrNull(m.Key)))
	j.Int("value_size", int64(sizeOrNull(m.Value)))
	j.Int("magic", int64(m.Magic))
	j.Int("crc", int64(m.CRC))
	j.Bool("crc_valid", m.Valid())
	if d.opts.PrintDataLog {
		bytesField(j, "key", m.Key)
		bytesField(j, "value", m.Value)
	}
	jw.end()
}

func (jw *jsonWriter) trailing(name string, pos, n int64) {
	jw.begin("finding", name)
	jw.j.Str("code", "trailing-bytes")
	jw.j.Int("position", pos)
	jw.j.Int("bytes", n)
	jw.j.Str("message", "bytes after the last whole batch (a partial write, or a preallocated tail)")
	jw.end()
}

func (jw *jsonWriter) corrupt(name string, from, to int64, cause error) {
	jw.begin("finding", name)
	jw.j.Str("code", "corrupt-region")
	jw.j.Int("position", from)
	jw.j.Int("end", to)
	jw.j.Str("message", regionCause(cause))
	jw.end()
}

func (jw *jsonWriter) skipped(name, why string) {
	jw.begin("skipped", name)
	jw.j.Str("reason", why)
	jw.end()
}

// summaries emits kafka-dump-log's end-of-run findings as finding objects.
func (jw *jsonWriter) summaries(d *Dumper) {
	for _, k := range d.indexMismatches.keys {
		m := d.indexMismatches.m[k]
		for _, off := range sortedKeys(m, false) {
			jw.begin("finding", k)
			jw.j.Str("code", "index-offset-mismatch")
			jw.j.Int("index_offset", off)
			jw.j.Int("log_offset", m[off])
			jw.end()
		}
	}
	emit := func(code string, om *orderedMap[[][2]int64], a, b string) {
		for _, k := range om.keys {
			for _, p := range om.m[k] {
				jw.begin("finding", k)
				jw.j.Str("code", code)
				jw.j.Int(a, p[0])
				jw.j.Int(b, p[1])
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
			jw.j.Str("code", "non-consecutive-offsets")
			jw.j.Int("previous_offset", off)
			jw.j.Int("next_offset", m[off])
			jw.end()
		}
	}
}
