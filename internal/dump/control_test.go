package dump

import (
	"errors"
	"testing"

	"github.com/kseg/kseg/batch"
	"github.com/kseg/kseg/content"
)

func controlKey(t batch.ControlType) []byte { return []byte{0, 0, byte(t >> 8), byte(t)} }

// TestAppendControl checks the record-line text and the error of control
// records: KRaft values through content, markers through batch.
func TestAppendControl(t *testing.T) {
	for _, tc := range []struct {
		name   string
		typ    batch.ControlType
		value  string
		want   string // appended to "|"
		detail string // FormatError detail when the value does not decode
	}{
		{"leader change", batch.ControlLeaderChange, "\x00\x00\x00\x00\x00\x01\x02\x00\x00\x00\x01\x00\x02\x00\x00\x00\x01\x00\x00",
			`| LeaderChange: {"version":0,"leaderId":1,"voters":[{"voterId":1}],"grantingVoters":[{"voterId":1}]}`, ""},
		{"snapshot footer", batch.ControlSnapshotFooter, "\x00\x00\x00", `| SnapshotFooter {"version":0}`, ""},
		{"kraft version", batch.ControlKRaftVersion, "\x00\x00\x00\x01\x00", `| KRaftVersion {"version":0,"kRaftVersion":1}`, ""},
		{"commit", batch.ControlCommit, "\x00\x00\x00\x00\x00\x07", "| endTxnMarker: COMMIT coordinatorEpoch: 7", ""},
		{"unknown type", 9, "", "| controlType: UNKNOWN(9)", ""},
		{"truncated header", batch.ControlSnapshotHeader, "\x00\x00\x00", "|", "java.nio.BufferUnderflowException"},
		{"null voters", batch.ControlLeaderChange, "\x00\x00\x00\x00\x00\x01\x00\x01\x00", "|", "non-nullable field voters was serialized as null"},
		{"negative tag size", batch.ControlSnapshotFooter, "\x00\x00\x01\x05\xff\xff\xff\xff\x0f", "|", "java.lang.NegativeArraySizeException: -1"},
	} {
		r := batch.Record{Key: controlKey(tc.typ), Value: []byte(tc.value)}
		got, err := appendControl([]byte("|"), 5, &r)
		if string(got) != tc.want {
			t.Errorf("%s: line %q, want %q", tc.name, got, tc.want)
		}
		var fe *batch.FormatError
		switch {
		case tc.detail == "" && err != nil:
			t.Errorf("%s: %v", tc.name, err)
		case tc.detail != "" && (!errors.As(err, &fe) || fe.Detail != tc.detail || !errors.Is(err, batch.ErrInvalidRecord)):
			t.Errorf("%s: error %#v, want an invalid record %q", tc.name, err, tc.detail)
		}
	}
}

// TestControlLabelsMatchContent keeps the labelled types and the types
// content renders the same set.
func TestControlLabelsMatchContent(t *testing.T) {
	for typ := -1; typ < 16; typ++ {
		_, ok, _ := content.AppendControlRecord(nil, 0, int16(typ), nil)
		if _, labelled := controlLabels[batch.ControlType(typ)]; ok != labelled {
			t.Errorf("type %d: content renders it %v, report labels it %v", typ, ok, labelled)
		}
	}
}
