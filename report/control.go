package report

import (
	"encoding/base64"
	"encoding/binary"
	"errors"
	"fmt"
	"strconv"

	"github.com/kseg/kseg/batch"
	"github.com/kseg/kseg/content"
)

// appendControl appends printControlRecord's description of a control record.
func appendControl(b []byte, r *batch.Record) ([]byte, error) {
	t, err := batch.ParseControlKey(r.Key)
	if err != nil {
		return b, err
	}
	switch t {
	case batch.ControlAbort, batch.ControlCommit:
		m, err := batch.ParseEndTxnMarker(r.Value)
		if err != nil {
			return b, err
		}
		b = append(b, " endTxnMarker: "...)
		b = append(b, t.Name()...)
		b = append(b, " coordinatorEpoch: "...)
		return strconv.AppendInt(b, int64(m.CoordinatorEpoch), 10), nil
	case batch.ControlLeaderChange, batch.ControlSnapshotHeader, batch.ControlSnapshotFooter, batch.ControlKRaftVersion, batch.ControlKRaftVoters:
		js, err := kraftControlJSON(t, r.Value)
		if err != nil {
			return b, err
		}
		label := map[batch.ControlType]string{
			batch.ControlLeaderChange:   " LeaderChange: ",
			batch.ControlSnapshotHeader: " SnapshotHeader ",
			batch.ControlSnapshotFooter: " SnapshotFooter ",
			batch.ControlKRaftVersion:   " KRaftVersion ",
			batch.ControlKRaftVoters:    " KRaftVoters ",
		}[t]
		b = append(b, label...)
		return append(b, js...), nil
	}
	b = append(b, " controlType: "...)
	b = append(b, t.Name()...)
	b = append(b, '(')
	b = strconv.AppendInt(b, int64(t), 10)
	return append(b, ')'), nil
}

// flexReader decodes Kafka's flexible-version generated messages.
type flexReader struct {
	b   []byte
	p   int
	err error
}

var errUnderflow = errors.New("java.nio.BufferUnderflowException")

func (r *flexReader) need(n int) bool {
	if r.err != nil {
		return false
	}
	if len(r.b)-r.p < n {
		r.err = errUnderflow
		return false
	}
	return true
}

func (r *flexReader) i16() int16 {
	if !r.need(2) {
		return 0
	}
	v := int16(binary.BigEndian.Uint16(r.b[r.p:]))
	r.p += 2
	return v
}

func (r *flexReader) u16() uint16 { return uint16(r.i16()) }

func (r *flexReader) i32() int32 {
	if !r.need(4) {
		return 0
	}
	v := int32(binary.BigEndian.Uint32(r.b[r.p:]))
	r.p += 4
	return v
}

func (r *flexReader) i64() int64 {
	if !r.need(8) {
		return 0
	}
	v := int64(binary.BigEndian.Uint64(r.b[r.p:]))
	r.p += 8
	return v
}

func (r *flexReader) uvarint() uint32 {
	if r.err != nil {
		return 0
	}
	v, n := batch.Uvarint32(r.b[r.p:])
	if n <= 0 {
		r.err = errUnderflow
		return 0
	}
	r.p += n
	return v
}

func (r *flexReader) uuid() string {
	if !r.need(16) {
		return ""
	}
	s := base64.RawURLEncoding.EncodeToString(r.b[r.p : r.p+16])
	r.p += 16
	return s
}

func (r *flexReader) compactString() string {
	n := int(r.uvarint()) - 1
	if n < 0 || !r.need(n) {
		if r.err == nil {
			r.err = fmt.Errorf("non-nullable field was serialized as null")
		}
		return ""
	}
	s := string(r.b[r.p : r.p+n])
	r.p += n
	return s
}

// arrayLen reads a compact array length; -1 for null.
func (r *flexReader) arrayLen() int {
	n := int(r.uvarint()) - 1
	if n > len(r.b)-r.p {
		r.err = fmt.Errorf("Tried to allocate a collection of size %d, but there are only %d bytes remaining.", n, len(r.b)-r.p)
		return 0
	}
	return n
}

// tags skips a tagged-field section.
func (r *flexReader) tags() {
	n := r.uvarint()
	for i := uint32(0); i < n && r.err == nil; i++ {
		r.uvarint()
		size := int(r.uvarint())
		if r.need(size) {
			r.p += size
		}
	}
}

// kraftControlJSON renders a KRaft control record value as the generated
// JSON converters do (schema version 0, fields in schema order).
func kraftControlJSON(t batch.ControlType, v []byte) ([]byte, error) {
	r := &flexReader{b: v}
	var j jsonObj
	switch t {
	case batch.ControlLeaderChange:
		j.int("version", int64(r.i16()))
		j.int("leaderId", int64(r.i32()))
		for _, field := range []string{"voters", "grantingVoters"} {
			n := r.arrayLen()
			j.key(field)
			j.b = append(j.b, '[')
			for i := 0; i < n && r.err == nil; i++ {
				if i > 0 {
					j.b = append(j.b, ',')
				}
				var vj jsonObj
				vj.int("voterId", int64(r.i32()))
				r.tags()
				j.b = append(j.b, vj.done()...)
			}
			j.b = append(j.b, ']')
		}
	case batch.ControlSnapshotHeader:
		j.int("version", int64(r.i16()))
		j.int("lastContainedLogTimestamp", r.i64())
	case batch.ControlSnapshotFooter:
		j.int("version", int64(r.i16()))
	case batch.ControlKRaftVersion:
		j.int("version", int64(r.i16()))
		j.int("kRaftVersion", int64(r.i16()))
	case batch.ControlKRaftVoters:
		j.int("version", int64(r.i16()))
		n := r.arrayLen()
		j.key("voters")
		j.b = append(j.b, '[')
		for i := 0; i < n && r.err == nil; i++ {
			if i > 0 {
				j.b = append(j.b, ',')
			}
			var vj jsonObj
			vj.int("voterId", int64(r.i32()))
			vj.str("voterDirectoryId", r.uuid())
			m := r.arrayLen()
			vj.key("endpoints")
			vj.b = append(vj.b, '[')
			for k := 0; k < m && r.err == nil; k++ {
				if k > 0 {
					vj.b = append(vj.b, ',')
				}
				var ej jsonObj
				ej.str("name", r.compactString())
				ej.str("host", r.compactString())
				ej.int("port", int64(r.u16()))
				r.tags()
				vj.b = append(vj.b, ej.done()...)
			}
			vj.b = append(vj.b, ']')
			var fj jsonObj
			fj.int("minSupportedVersion", int64(r.i16()))
			fj.int("maxSupportedVersion", int64(r.i16()))
			r.tags()
			vj.key("kRaftVersionFeature")
			vj.b = append(vj.b, fj.done()...)
			r.tags()
			j.b = append(j.b, vj.done()...)
		}
		j.b = append(j.b, ']')
	}
	r.tags()
	if r.err != nil {
		return nil, &batch.FormatError{Err: batch.ErrInvalidRecord, Detail: r.err.Error()}
	}
	return j.done(), nil
}

// jsonObj builds compact JSON objects in field order, as Jackson prints them.
type jsonObj struct{ b []byte }

func (j *jsonObj) key(k string) {
	if len(j.b) == 0 {
		j.b = append(j.b, '{')
	} else {
		j.b = append(j.b, ',')
	}
	j.b = append(j.b, '"')
	j.b = append(j.b, k...)
	j.b = append(j.b, '"', ':')
}

func (j *jsonObj) int(k string, v int64) { j.key(k); j.b = strconv.AppendInt(j.b, v, 10) }
func (j *jsonObj) str(k, v string)       { j.key(k); j.b = content.AppendJSONString(j.b, v) }

func (j *jsonObj) done() []byte {
	if len(j.b) == 0 {
		return []byte("{}")
	}
	return append(j.b, '}')
}

// appendHeaderValues is kseg's extra: header values after the keys.
func appendHeaderValues(b []byte, hs []batch.RecordHeader) []byte {
	b = append(b, " headers: {"...)
	for i, h := range hs {
		if i > 0 {
			b = append(b, ',', ' ')
		}
		b = content.AppendJavaString(b, h.Key)
		b = append(b, '=')
		if h.Value == nil {
			b = append(b, "null"...)
		} else {
			b = appendDisplayBytes(b, h.Value)
		}
	}
	return append(b, '}')
}

// appendDisplayBytes shows valid printable UTF-8 as is, anything else as hex.
func appendDisplayBytes(b, v []byte) []byte {
	if printableUTF8(v) {
		return append(b, v...)
	}
	const hex = "0123456789abcdef"
	b = append(b, "0x"...)
	for _, c := range v {
		b = append(b, hex[c>>4], hex[c&15])
	}
	return b
}

func printableUTF8(v []byte) bool {
	for _, r := range string(v) {
		if r == 0xFFFD || r < 0x20 || r == 0x7f {
			return false
		}
	}
	return true
}
