package located_test

import (
	"errors"
	"io"
	"testing"

	"github.com/kseg/kseg/batch"
	"github.com/kseg/kseg/located"
)

func TestErrorText(t *testing.T) {
	rel := &batch.FormatError{Pos: 97, Err: batch.ErrTruncated, Detail: "premature EOF"}
	cases := []struct {
		err  error
		want string
	}{
		{&located.Error{File: "a.log", Offset: 194, Err: rel}, "a.log: at byte 194: premature EOF"},
		{&located.Error{File: "a.log", Offset: -1, Err: io.ErrUnexpectedEOF}, "a.log: unexpected EOF"},
		{&located.Error{Offset: 3, Err: io.ErrUnexpectedEOF}, "at byte 3: unexpected EOF"},
		{&located.Error{Offset: -1, Err: io.ErrUnexpectedEOF}, "unexpected EOF"},
		// A relative position wrapped further down keeps its own words.
		{&located.Error{File: "a.log", Offset: 5, Err: errors.Join(rel)}, "a.log: at byte 5: at byte 97: premature EOF"},
	}
	for _, c := range cases {
		if got := c.err.Error(); got != c.want {
			t.Errorf("got %q, want %q", got, c.want)
		}
	}
}

// TestAtKeepsInnermost: the first location given is the precise one; the
// cause stays reachable for errors.Is.
func TestAtKeepsInnermost(t *testing.T) {
	inner := located.At("a.log", 10, batch.ErrCorrupt)
	outer := located.At("b.log", 99, inner)
	var e *located.Error
	if !errors.As(outer, &e) || e.File != "a.log" || e.Offset != 10 {
		t.Fatalf("got %v", outer)
	}
	if !errors.Is(outer, batch.ErrCorrupt) {
		t.Fatal("cause lost")
	}
}
