package batch

import (
	"errors"
	"testing"
)

// TestRecordVarintErrors: a record varint that ends with the buffer is
// truncated; one whose fifth byte still has the continuation bit is too
// long, as ByteUtils.readVarint decides, whether or not a byte follows.
func TestRecordVarintErrors(t *testing.T) {
	tests := []struct {
		name string
		buf  string
		want error
	}{
		{"cut", "\xff\xff", ErrTruncated},
		{"five continuation bytes at the end", "\xff\xff\xff\xff\xff", ErrBadVarint},
		{"five continuation bytes and more", "\xff\xff\xff\xff\xff\x01", ErrBadVarint},
	}
	for _, tc := range tests {
		var rr RecordReader
		var rec Record
		rr.Reset([]byte(tc.buf), 1, 61)
		ok, err := rr.Next(&rec)
		if ok || !errors.Is(err, tc.want) || err.Error() != "at byte 61: Found invalid record structure" {
			t.Errorf("%s: Next = %v, %v; want %v", tc.name, ok, err, tc.want)
		}
	}
	if v, n := Varlong([]byte("\x80\x80\x80\x80\x80\x80\x80\x80\x80\x80")); v != 0 || n != -1 {
		t.Errorf("ten-byte varlong with continuation: %d, %d", v, n)
	}
}
