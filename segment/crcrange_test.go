package segment

import (
	"bytes"
	"hash/crc32"
	"math/rand"
	"testing"
)

func TestRangeCRCMatchesDirect(t *testing.T) {
	data := make([]byte, 3*4096+777)
	rand.New(rand.NewSource(1)).Read(data)
	const origin = 5
	rc := newRangeCRC(bytes.NewReader(data), origin, int64(len(data)))
	cast := crc32.MakeTable(crc32.Castagnoli)
	cases := [][2]int64{{5, 5}, {5, 6}, {5, 4101}, {17, 4100}, {4096, 8192}, {4101, 8197}, {100, int64(len(data))}, {int64(len(data)) - 1, int64(len(data))}}
	for _, c := range cases {
		a, b := c[0], c[1]
		gotC, err := rc.castagnoli(a, b)
		if err != nil {
			t.Fatal(err)
		}
		gotI, err := rc.ieee(a, b)
		if err != nil {
			t.Fatal(err)
		}
		if want := crc32.Checksum(data[a:b], cast); gotC != want {
			t.Errorf("castagnoli[%d,%d) = %08x, want %08x", a, b, gotC, want)
		}
		if want := crc32.ChecksumIEEE(data[a:b]); gotI != want {
			t.Errorf("ieee[%d,%d) = %08x, want %08x", a, b, gotI, want)
		}
	}
}
