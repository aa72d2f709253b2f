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

// TestDecimalCacheSteps: steps of up to 10^8 (added eight digits at a
// time in place) from values of every length, across runs of 9s, into a
// digit more and past the eight digits, agree with strconv.
func TestDecimalCacheSteps(t *testing.T) {
	rng := rand.New(rand.NewSource(29))
	steps := []int64{1, 9, 10, 11, 99, 933, 1066, 99_999_999, 10_000_000, 12_345_678}
	for range 40 {
		steps = append(steps, 1+rng.Int63n(1e8-1))
	}
	for p := int64(1); p <= math.MaxInt64/10; p *= 10 {
		for _, start := range []int64{0, p - 1, p, 10*p - 1 - 99_999_999, 10*p - 1 - 933, 10*p - 2, p + rng.Int63n(9*p)} {
			if start < 0 || start > math.MaxInt64-1e9 {
				continue
			}
			for _, step := range steps {
				var c decimalCache
				v := start
				for range 30 {
					if got, want := string(c.append(nil, v)), strconv.FormatInt(v, 10); got != want {
						t.Fatalf("start %d step %d: %d formatted as %q", start, step, v, got)
					}
					v += step
				}
			}
		}
	}
}

// TestAppendDecimal: the digits made eight at a time in a word are
// strconv's, at every length and around every power of ten, signed.
func TestAppendDecimal(t *testing.T) {
	vals := []int64{0, 1, -1, 9, 10, math.MaxInt64, math.MinInt64, math.MinInt64 + 1, math.MaxUint32, 3292943010}
	for p := int64(1); p <= math.MaxInt64/10; p *= 10 {
		vals = append(vals, p-1, p, p+1, 10*p-1, -p, -p+1, -p-1)
	}
	rng := rand.New(rand.NewSource(28))
	for range 20000 {
		vals = append(vals, rng.Int63()>>rng.Intn(63), -(rng.Int63() >> rng.Intn(63)))
	}
	for _, v := range vals {
		for _, room := range []int{0, 3 + 19, 64} {
			dst := append(make([]byte, 0, room), "x: "...)
			if got, want := string(appendDecimal(dst, v)), "x: "+strconv.FormatInt(v, 10); got != want {
				t.Fatalf("%d (room %d) formatted as %q, want %q", v, room, got, want)
			}
		}
	}
}

// BenchmarkDecimalCache: a batch line's numbers as they step from batch to
// batch (an offset by 9, a position by ~1 KiB, a timestamp by a few ms),
// and a CRC (no step: formatted whole). ns/op is per number.
func BenchmarkDecimalCache(b *testing.B) {
	rng := rand.New(rand.NewSource(28))
	vals := make([]int64, 1<<12)
	for _, tc := range []struct {
		name string
		next func(prev int64) int64
	}{
		{"offset+9", func(p int64) int64 { return p + 9 }},
		{"position+1066", func(p int64) int64 { return p + 1066 }},
		{"position+933/9-digits", func(p int64) int64 { return p + 933 }},
		{"timestamp+ms", func(p int64) int64 { return p + rng.Int63n(40) }},
		{"crc", func(int64) int64 { return int64(rng.Uint32()) }},
	} {
		v := int64(1794025632520)
		switch tc.name {
		case "position+933/9-digits":
			v = 466535645
		case "timestamp+ms":
		default:
			v = 123456
		}
		for i := range vals {
			v = tc.next(v)
			vals[i] = v
		}
		b.Run(tc.name, func(b *testing.B) {
			var c decimalCache
			dst := make([]byte, 0, 64)
			i := 0
			for b.Loop() {
				dst = c.append(dst[:0], vals[i&(len(vals)-1)])
				i++
			}
		})
		b.Run(tc.name+"/strconv", func(b *testing.B) {
			dst := make([]byte, 0, 64)
			i := 0
			for b.Loop() {
				dst = strconv.AppendInt(dst[:0], vals[i&(len(vals)-1)], 10)
				i++
			}
		})
	}
}
