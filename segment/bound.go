package segment

import (
	"fmt"
	"strconv"
	"strings"
	"time"
)

// Bound is one end of an offset range: the log start, the log end, an
// offset, or the first offset whose record's timestamp is at or after a
// time (Kafka's ListOffsets by timestamp).
type Bound struct {
	Kind   BoundKind
	Offset int64 // BoundOffset
	Millis int64 // BoundTime
}

// BoundKind says how a Bound is resolved.
type BoundKind int

// The kinds of Bound.
const (
	BoundDefault  BoundKind = iota // --from: earliest; --to: latest
	BoundEarliest                  // the log start offset
	BoundLatest                    // the log end offset (a cluster's high watermark)
	BoundOffset                    // an absolute offset
	BoundTime                      // the first offset at or after a time
)

// ParseBound reads earliest|latest|OFFSET|@RFC3339|@MILLIS, and Kafka's
// ListOffsets codes -2 (earliest) and -1 (latest) as its tools take them.
// The empty string is BoundDefault.
func ParseBound(s string) (Bound, error) {
	switch {
	case s == "":
		return Bound{}, nil
	case s == "earliest" || s == "-2":
		return Bound{Kind: BoundEarliest}, nil
	case s == "latest" || s == "-1":
		return Bound{Kind: BoundLatest}, nil
	case strings.HasPrefix(s, "@"):
		v := s[1:]
		if ms, err := strconv.ParseInt(v, 10, 64); err == nil && ms >= 0 {
			return Bound{Kind: BoundTime, Millis: ms}, nil
		}
		t, err := time.Parse(time.RFC3339Nano, v)
		if err != nil {
			return Bound{}, fmt.Errorf("%q: want @RFC3339 (@2026-01-02T15:04:05Z) or @milliseconds since the epoch", s)
		}
		return Bound{Kind: BoundTime, Millis: t.UnixMilli()}, nil
	}
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil || n < 0 {
		return Bound{}, fmt.Errorf("%q: want earliest (-2), latest (-1), an offset, or @time", s)
	}
	return Bound{Kind: BoundOffset, Offset: n}, nil
}
