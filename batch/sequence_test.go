package batch

import (
	"math"
	"testing"
)

func TestSequenceArithmetic(t *testing.T) {
	for _, tc := range []struct{ seq, d, dec, inc int32 }{
		{4, 4, 0, 8},
		{0, 0, 0, 0},
		{2, 5, math.MaxInt32 - 2, 7},
		{math.MaxInt32, 1, math.MaxInt32 - 1, 0},
		{math.MaxInt32 - 1, 3, math.MaxInt32 - 4, 1},
	} {
		if got := DecrementSequence(tc.seq, tc.d); got != tc.dec {
			t.Errorf("DecrementSequence(%d,%d) = %d, want %d", tc.seq, tc.d, got, tc.dec)
		}
		if got := IncrementSequence(tc.seq, tc.d); got != tc.inc {
			t.Errorf("IncrementSequence(%d,%d) = %d, want %d", tc.seq, tc.d, got, tc.inc)
		}
		// They are inverses on the sequence ring [0, MaxInt32].
		if got := DecrementSequence(IncrementSequence(tc.seq, tc.d), tc.d); got != tc.seq {
			t.Errorf("dec(inc(%d,%d)) = %d", tc.seq, tc.d, got)
		}
	}
	// The audit's "next sequence" is IncrementSequence(s, 1); -1
	// (NoSequence) is followed by 0.
	for s, want := range map[int32]int32{-1: 0, 0: 1, math.MaxInt32 - 1: math.MaxInt32, math.MaxInt32: 0} {
		if got := IncrementSequence(s, 1); got != want {
			t.Errorf("IncrementSequence(%d, 1) = %d, want %d", s, got, want)
		}
	}
}

func TestSequenceOrder(t *testing.T) {
	for _, tc := range []struct {
		x, y  int32
		after bool
		dist  int64 // SequenceDistance(y, x)
	}{
		{5, 4, true, 1},
		{4, 5, false, math.MaxInt32},
		{7, 7, false, 0},
		{0, math.MaxInt32, true, 1},
		{math.MaxInt32, 0, true, math.MaxInt32}, // no wrap: simply greater
		{10, math.MaxInt32 - 10, true, 21},
		{math.MaxInt32 / 2, 0, true, math.MaxInt32 / 2},
		{0, math.MaxInt32/2 + 2, true, math.MaxInt32 / 2},
		{0, math.MaxInt32/2 - 2, false, math.MaxInt32/2 + 4}, // too far back to be a wrap
	} {
		if got := SequenceAfter(tc.x, tc.y); got != tc.after {
			t.Errorf("SequenceAfter(%d, %d) = %v, want %v", tc.x, tc.y, got, tc.after)
		}
		if got := SequenceDistance(tc.y, tc.x); got != tc.dist {
			t.Errorf("SequenceDistance(%d, %d) = %d, want %d", tc.y, tc.x, got, tc.dist)
		}
	}
}
