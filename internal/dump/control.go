package dump

import (
	"errors"
	"strconv"

	"github.com/kseg/kseg/batch"
	"github.com/kseg/kseg/content"
)

// controlLabels are printControlRecord's prefixes for the KRaft control
// records, whose values content renders as JSON.
var controlLabels = map[batch.ControlType]string{
	batch.ControlLeaderChange:   " LeaderChange: ",
	batch.ControlSnapshotHeader: " SnapshotHeader ",
	batch.ControlSnapshotFooter: " SnapshotFooter ",
	batch.ControlKRaftVersion:   " KRaftVersion ",
	batch.ControlKRaftVoters:    " KRaftVoters ",
}

// appendControl appends printControlRecord's description of the control
// record r at offset off.
func appendControl(b []byte, off int64, r *batch.Record) ([]byte, error) {
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
	}
	if label, ok := controlLabels[t]; ok {
		out, _, err := content.AppendControlRecord(append(b, label...), off, int16(t), r.Value)
		if err != nil {
			return b, controlError(err)
		}
		return out, nil
	}
	b = append(b, " controlType: "...)
	b = append(b, t.Name()...)
	b = append(b, '(')
	b = strconv.AppendInt(b, int64(t), 10)
	return append(b, ')'), nil
}

// controlError is a control record value that kafka-dump-log fails to
// read, as an invalid record with the exception's message.
func controlError(err error) error {
	var ce *content.CrashError
	if errors.As(err, &ce) {
		return &batch.FormatError{Err: batch.ErrInvalidRecord, Detail: ce.Reason()}
	}
	return err
}

// appendHeaderValues is kseg's extra: header values after the keys.
func appendHeaderValues(b []byte, hs []batch.RecordHeader, redact bool) []byte {
	b = append(b, " headers: {"...)
	for i, h := range hs {
		if i > 0 {
			b = append(b, ',', ' ')
		}
		b = content.AppendJavaString(b, h.Key)
		b = append(b, '=')
		if h.Value == nil {
			b = append(b, "null"...)
		} else if redact {
			b = append(b, redacted...)
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
