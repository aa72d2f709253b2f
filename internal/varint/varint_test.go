package varint

import (
	"encoding/binary"
	"testing"
)

func TestUvarint(t *testing.T) {
	tests := []struct {
		in    string
		max   int
		wantX uint64
		wantN int
	}{
		{"\x00", 5, 0, 1},
		{"\x7f", 5, 127, 1},
		{"\x80\x01", 5, 128, 2},
		{"\xff\xff\xff\xff\x0f", 5, 0xffffffff, 5},
		// Bits above 32 in the fifth byte are kept; callers truncate.
		{"\xff\xff\xff\xff\x7f", 5, 0x7ffffffff, 5},
		{"", 5, 0, 0},
		{"\x80", 5, 0, 0},
		{"\xff\xff\xff\xff", 5, 0, 0},
		// The fifth byte has its continuation bit: too long, no sixth byte
		// needed; x is what readUnsignedVarint prints (ffffffff here).
		{"\xff\xff\xff\xff\xff", 5, 0x7ffffffff, -1},
		{"\x81\x80\x80\x80\x81\x01", 5, 0x10000001, -1},
		{"\xff\xff\xff\xff\xff\xff\xff\xff\xff\x01", 10, 1<<64 - 1, 10},
		{"\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff", 10, 1<<64 - 1, -1},
		{"\xff\xff\xff\xff\xff\xff\xff\xff\xff", 10, 0, 0},
	}
	for _, tc := range tests {
		x, n := Uvarint([]byte(tc.in), tc.max)
		if x != tc.wantX || n != tc.wantN {
			t.Errorf("Uvarint(%q, %d) = %#x, %d; want %#x, %d", tc.in, tc.max, x, n, tc.wantX, tc.wantN)
		}
	}
	if x, n := Uvarint([]byte("\xff\xff\xff\xff\xff"), 5); uint32(x) != 0xffffffff || n != -1 {
		t.Errorf("converted value %x", uint32(x))
	}
}

// TestRoundTrip checks Append, Size and Uvarint against each other and
// against encoding/binary, whose encoding is the same for valid input.
func TestRoundTrip(t *testing.T) {
	vals := []uint64{0, 1, 127, 128, 255, 16383, 16384, 1<<21 - 1, 1 << 21, 1<<28 - 1, 1 << 28,
		1<<32 - 1, 1 << 32, 1<<35 - 1, 1 << 35, 1<<63 - 1, 1 << 63, 1<<64 - 1}
	for _, v := range vals {
		b := Append(nil, v)
		if want := binary.AppendUvarint(nil, v); string(b) != string(want) {
			t.Errorf("Append(%d) = %x, want %x", v, b, want)
		}
		if Size(v) != len(b) {
			t.Errorf("Size(%d) = %d, want %d", v, Size(v), len(b))
		}
		max := 10
		if v < 1<<35 {
			max = 5
		}
		x, n := Uvarint(append(b, 0xAA), max)
		if x != v || n != len(b) {
			t.Errorf("Uvarint(Append(%d)) = %d, %d", v, x, n)
		}
	}
}
