package producer

import (
	"fmt"
	"testing"
)

// Vectors from Kafka's UtilsTest.testMurmur2 and docs/producer-model.md, Worked examples.
func TestMurmur2(t *testing.T) {
	tests := []struct {
		in   string
		want int32
	}{
		{"21", -973932308},
		{"foobar", -790332482},
		{"a-little-bit-long-string", -985981536},
		{"a-little-bit-longer-string", -1486304829},
		{"lkjh234lh9fiuh90y23oiuhsafujhadof229phr9h19h89h8", -58897971},
		{"abc", 479470107},
		{"key-0", 29210041},
		{"key-3", -1839136101},
		{"key-9", -1335190451},
	}
	for _, tt := range tests {
		if got := murmur2([]byte(tt.in)); got != tt.want {
			t.Errorf("murmur2(%q) = %d, want %d", tt.in, got, tt.want)
		}
	}
}

func TestPartitionForKey(t *testing.T) {
	// docs/producer-model.md, Worked examples: key-0..key-9 mod 3.
	want := []int{1, 0, 2, 2, 0, 2, 2, 1, 1, 0}
	for i, w := range want {
		key := []byte(fmt.Sprintf("key-%d", i))
		if got := PartitionForKey(key, 3); got != w {
			t.Errorf("PartitionForKey(%s, 3) = %d, want %d", key, got, w)
		}
	}
	if toPositive(-1) != 0x7fffffff || toPositive(-2147483648) != 0 {
		t.Error("toPositive is not a sign-bit clear")
	}
}
