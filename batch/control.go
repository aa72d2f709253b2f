package batch

import (
	"encoding/binary"
	"fmt"
)

// ControlType is the type in a control record's key.
type ControlType int16

const (
	ControlAbort          ControlType = 0
	ControlCommit         ControlType = 1
	ControlLeaderChange   ControlType = 2
	ControlSnapshotHeader ControlType = 3
	ControlSnapshotFooter ControlType = 4
	ControlKRaftVersion   ControlType = 5
	ControlKRaftVoters    ControlType = 6
)

// Name is Kafka's ControlRecordType enum name; unknown ids are UNKNOWN.
func (t ControlType) Name() string {
	switch t {
	case ControlAbort:
		return "ABORT"
	case ControlCommit:
		return "COMMIT"
	case ControlLeaderChange:
		return "LEADER_CHANGE"
	case ControlSnapshotHeader:
		return "SNAPSHOT_HEADER"
	case ControlSnapshotFooter:
		return "SNAPSHOT_FOOTER"
	case ControlKRaftVersion:
		return "KRAFT_VERSION"
	case ControlKRaftVoters:
		return "KRAFT_VOTERS"
	}
	return "UNKNOWN"
}

// ParseControlKey reads the version and type from a control record key.
func ParseControlKey(key []byte) (ControlType, error) {
	if len(key) < 4 {
		return 0, &FormatError{Err: ErrInvalidRecord, Detail: fmt.Sprintf("Invalid value size found for end control record key. Must have at least 4 bytes, but found only %d", len(key))}
	}
	if v := int16(binary.BigEndian.Uint16(key)); v < 0 {
		return 0, &FormatError{Err: ErrInvalidRecord, Detail: fmt.Sprintf("Invalid version found for control record: %d. May indicate data corruption", v)}
	}
	return ControlType(binary.BigEndian.Uint16(key[2:])), nil
}

// EndTxnMarker is the value of a COMMIT or ABORT control record.
type EndTxnMarker struct {
	Version          int16
	CoordinatorEpoch int32
}

// ParseEndTxnMarker decodes an EndTransactionMarker value.
func ParseEndTxnMarker(value []byte) (EndTxnMarker, error) {
	if len(value) < 6 {
		return EndTxnMarker{}, &FormatError{Err: ErrInvalidRecord, Detail: fmt.Sprintf("Invalid value size found for end transaction marker. Must have at least 6 bytes, but found only %d", len(value))}
	}
	m := EndTxnMarker{Version: int16(binary.BigEndian.Uint16(value)), CoordinatorEpoch: int32(binary.BigEndian.Uint32(value[2:]))}
	if m.Version < 0 {
		return m, &FormatError{Err: ErrInvalidRecord, Detail: fmt.Sprintf("Invalid version found for end transaction marker: %d. May indicate data corruption", m.Version)}
	}
	return m, nil
}
