package dump

import (
	"math"
	"strconv"
	"testing"
)

func TestDecimalCache(t *testing.T) {
	var c decimalCache
	seq := []int64{0, 1, 2, 9, 10, 11, 11, 19, 20, -1, 0, 1, -10, -9, 99, 100, math.MaxInt64 - 1, math.MaxInt64, math.MinInt64, 1700000000009, 1700000000010, 1700000000010}
	for i := int64(0); i < 1200; i++ {
		seq = append(seq, i, i) // +1 steps with repeats across carries
	}
	for _, v := range seq {
		if got := string(c.append(nil, v)); got != strconv.FormatInt(v, 10) {
			t.Fatalf("%d formatted as %q", v, got)
		}
	}
}
