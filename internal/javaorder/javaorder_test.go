package javaorder

import (
	"fmt"
	"testing"
)

func TestHashes(t *testing.T) {
	// Values from the JDK: "hello".hashCode(), "😀".hashCode() (a surrogate
	// pair), Long.hashCode.
	for s, want := range map[string]int32{"": 0, "a": 97, "hello": 99162322, "😀": 1772899,
		"/tmp/00000000000000000000.log": javaStringHashByHand("/tmp/00000000000000000000.log")} {
		if got := StringHash(s); got != want {
			t.Errorf("StringHash(%q) = %d, want %d", s, got, want)
		}
	}
	for v, want := range map[int64]int32{0: 0, 1: 1, -1: 0, 1 << 32: 1, 1<<32 + 5: 4, -2: 1} {
		if got := LongHash(v); got != want {
			t.Errorf("LongHash(%d) = %d, want %d", v, got, want)
		}
	}
}

func javaStringHashByHand(s string) int32 {
	var h int32
	for i := 0; i < len(s); i++ { // ASCII only
		h = 31*h + int32(s[i])
	}
	return h
}

func TestOrder(t *testing.T) {
	seq := func(from, to int64) []int64 {
		var out []int64
		for i := from; i <= to; i++ {
			out = append(out, i)
		}
		return out
	}
	tests := []struct {
		name string
		in   []int64
		want []int64
	}{
		{"buckets ascend", []int64{3, 2, 1}, []int64{1, 2, 3}},
		{"one bucket keeps insertion order", []int64{33, 17, 1}, []int64{33, 17, 1}},
		// 12 entries stay in 16 buckets: 16 shares bucket 0 and came first.
		{"12 entries", append([]int64{16}, seq(0, 10)...), append([]int64{16}, seq(0, 10)...)},
		// The 13th entry grows the table to 32: 16 gets its own bucket.
		{"13 entries", append([]int64{16}, seq(0, 11)...), append(seq(0, 11), 16)},
		// The spread hash folds bit 16 into bit 0: 1<<16 lands in bucket 1
		// (after 1, inserted earlier), not in bucket 0.
		{"spread", []int64{1, 1 << 16, 0}, []int64{0, 1, 1 << 16}},
	}
	for _, tc := range tests {
		if got := Longs(tc.in); fmt.Sprint(got) != fmt.Sprint(tc.want) {
			t.Errorf("%s: Longs(%v) = %v, want %v", tc.name, tc.in, got, tc.want)
		}
	}
	if got := Strings([]string{"c", "b", "a", "q"}); fmt.Sprint(got) != "[a q b c]" {
		t.Errorf("Strings = %v", got)
	}
}
