package dump

import (
	"math"
	"math/rand"
	"strconv"
	"testing"
)

func TestDecimalCache(t *testing.T) {
	seq := []int64{0, 1, 2, 9, 10, 11, 11, 19, 20, -1, 0, 1, -10, -9, 99, 100, 199, 200, 999, 1000, math.MaxInt64 - 1, math.MaxInt64, math.MinInt64, 1700000000009, 1700000000010, 1700000000010, 1699999999999, 1700000000000}
	for i := int64(0); i < 1200; i++ {
		seq = append(seq, i, i) // +1 steps with repeats across carries
	}
	// Steps of a batch line's numbers (offsets by a batch's count,
	// positions by its size, up to the step the cache adds in place and
	// past it), across carries and into more digits.
	rng := rand.New(rand.NewSource(28))
	for _, start := range []int64{-20000, 0, 9_999_000, 999_999_999_000, math.MaxInt64 - 1<<32} {
		v := start
		for range 3000 {
			seq = append(seq, v)
			v += rng.Int63n(1<<20+2) * int64(rng.Intn(2))
		}
	}
	for _, tc := range []struct {
		name string
		dst  func() []byte
	}{
		{"no room", func() []byte { return nil }},
		{"room for the whole array", func() []byte { return append(make([]byte, 0, 64), "x: "...) }},
		{"room for fewer bytes than the array", func() []byte { return append(make([]byte, 0, decimalRoom+2), "x: "...) }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var c decimalCache
			for _, v := range seq {
				dst := tc.dst()
				prefix := string(dst)
				if got, want := string(c.append(dst, v)), prefix+strconv.FormatInt(v, 10); got != want {
					t.Fatalf("%d formatted as %q, want %q", v, got, want)
				}
			}
		})
	}
}
