package located

import (
	"errors"
	"fmt"
)

// Error locates a failure in a file. Offset is the absolute byte position
// in File, or -1 when no byte applies (a missing companion file).
type Error struct {
	File   string
	Offset int64
	Err    error
}

// At wraps err as an *Error at file position off. An error that already
// carries a location is returned as it is: the innermost place is the
// precise one.
func At(file string, off int64, err error) error {
	var e *Error
	if errors.As(err, &e) {
		return err
	}
	return &Error{File: file, Offset: off, Err: err}
}

// Relative is a cause that knows its position inside the span a decoder
// was handed (batch.FormatError): the absolute Offset already says where,
// so only its own words are printed.
type Relative interface {
	error
	Cause() string
}

func (e *Error) Error() string {
	cause := e.Err.Error()
	var rel Relative
	if errors.As(e.Err, &rel) && rel == e.Err {
		cause = rel.Cause()
	}
	switch {
	case e.File == "" && e.Offset < 0:
		return cause
	case e.File == "":
		return fmt.Sprintf("at byte %d: %s", e.Offset, cause)
	case e.Offset < 0:
		return fmt.Sprintf("%s: %s", e.File, cause)
	}
	return fmt.Sprintf("%s: at byte %d: %s", e.File, e.Offset, cause)
}

func (e *Error) Unwrap() error { return e.Err }
