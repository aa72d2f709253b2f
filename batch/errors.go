package batch

import (
	"errors"
	"fmt"
)

// Sentinel causes, for errors.Is.
var (
	ErrTruncated     = errors.New("truncated")
	ErrCorrupt       = errors.New("corrupt")
	ErrBadVarint     = errors.New("bad varint")
	ErrUnknownCodec  = errors.New("unknown compression codec")
	ErrTooLarge      = errors.New("decompressed size exceeds limit")
	ErrDecompress    = errors.New("decompression failed")
	ErrInvalidRecord = errors.New("invalid record")
)

// FormatError locates a decoding failure inside a batch or message. Pos is
// relative to the start of the batch (or buffer) handed to the decoder;
// package segment adds the file and the batch's file position.
type FormatError struct {
	Pos    int64
	Err    error  // one of the sentinels above, or a library error
	Detail string // Kafka's wording where it has one
}

func (e *FormatError) Error() string {
	if e.Detail == "" {
		return fmt.Sprintf("at byte %d: %v", e.Pos, e.Err)
	}
	return fmt.Sprintf("at byte %d: %s", e.Pos, e.Detail)
}

func (e *FormatError) Unwrap() error { return e.Err }

// Cause is the failure in words without its batch-relative position, for
// a caller that prints the absolute one (located.Error).
func (e *FormatError) Cause() string {
	if e.Detail == "" {
		return e.Err.Error()
	}
	return e.Detail
}

func formatErr(pos int, err error, format string, args ...any) *FormatError {
	return &FormatError{Pos: int64(pos), Err: err, Detail: fmt.Sprintf(format, args...)}
}
