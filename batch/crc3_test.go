package batch

import (
	"fmt"
	"hash/crc32"
	"math/rand/v2"
	"testing"
)

var castagnoliRef = crc32.MakeTable(crc32.Castagnoli)

// crcRegion is n pseudo-random bytes starting off bytes into a buffer of
// its own, so each region has its own alignment.
func crcRegion(r *rand.Rand, off, n int) []byte {
	buf := make([]byte, off+n)
	for i := range buf {
		buf[i] = byte(r.Uint32())
	}
	return buf[off:]
}

func checkCRC32C3(t *testing.T, a, b, c []byte) {
	t.Helper()
	ga, gb, gc := CRC32C3(a, b, c)
	for i, x := range []struct {
		got uint32
		p   []byte
	}{{ga, a}, {gb, b}, {gc, c}} {
		if want := crc32.Checksum(x.p, castagnoliRef); x.got != want {
			t.Fatalf("region %d of lengths %d, %d, %d: CRC32C3 gives %#08x, hash/crc32 %#08x", i, len(a), len(b), len(c), x.got, want)
		}
	}
}

func TestCRC32C3(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for _, tc := range []struct{ a, b, c int }{
		{0, 0, 0}, {1, 1, 1}, {7, 7, 7}, {8, 8, 8}, {9, 9, 9}, {15, 15, 15},
		{16, 16, 16}, {17, 17, 17}, {24, 24, 24}, {0, 912, 912}, {912, 0, 912},
		{1, 2, 3}, {3, 5, 7}, {8, 16, 24}, {912, 912, 912}, {911, 912, 913},
		{504, 505, 503}, {912, 4000, 20}, {4032, 4040, 4100}, {100000, 99999, 100001},
	} {
		for off := range 8 {
			a := crcRegion(r, off, tc.a)
			b := crcRegion(r, (off+3)%8, tc.b)
			c := crcRegion(r, (off+5)%8, tc.c)
			checkCRC32C3(t, a, b, c)
			checkCRC32C3(t, a, a, a) // the same bytes on every chain
		}
	}
	checkCRC32C3(t, nil, nil, nil)
}

func TestCRC32C3AllLengths(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for n := range 80 {
		checkCRC32C3(t, crcRegion(r, n%8, n), crcRegion(r, 1, n), crcRegion(r, 7, n+n%3))
	}
}

// v2Batches are v2 batches of the given sizes whose CRC is right, but for
// the indexes in bad.
func v2Batches(r *rand.Rand, sizes []int, bad map[int]bool) [][]byte {
	var out [][]byte
	for i, n := range sizes {
		b := crcRegion(r, i%8, n)
		if n >= HeaderSize {
			SetCRC(b)
			if bad[i] {
				b[n-1]++
			}
		}
		out = append(out, b)
	}
	return out
}

func TestValidCRCs(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	for _, tc := range []struct {
		sizes []int
		bad   map[int]bool
	}{
		{nil, nil},
		{[]int{HeaderSize}, nil},
		{[]int{933}, map[int]bool{0: true}},
		{[]int{933, 933}, map[int]bool{1: true}},
		{[]int{933, 933, 933}, map[int]bool{0: true}},
		{[]int{933, 933, 933, 933}, map[int]bool{3: true}},
		{[]int{933, 10, 933, 0, 933, 940, 61, 62, 70}, map[int]bool{2: true, 5: true}},
		{[]int{933, 933, 933, 933, 933, 933, 933}, map[int]bool{1: true, 4: true, 6: true}},
		{[]int{5000, 61, 933, 20000, 933}, nil},
	} {
		batches := v2Batches(r, tc.sizes, tc.bad)
		valid := make([]bool, len(batches)+1)
		valid[len(batches)] = true // past the batches: left alone
		for i := range batches {
			valid[i] = i%2 == 0 // stale values are overwritten
		}
		ValidCRCs(valid, batches)
		for i, b := range batches {
			if want := ValidCRC(b); valid[i] != want {
				t.Errorf("sizes %v: batch %d: ValidCRCs says %v, ValidCRC %v", tc.sizes, i, valid[i], want)
			}
		}
		if !valid[len(batches)] {
			t.Errorf("sizes %v: ValidCRCs wrote past the batches", tc.sizes)
		}
	}
}

func FuzzCRC32C3(f *testing.F) {
	f.Add([]byte{}, uint16(0), uint16(0), uint8(0))
	f.Add(make([]byte, 3000), uint16(912), uint16(913), uint8(3))
	f.Add([]byte("0123456789abcdefghijklmnopqrstuvwxyz"), uint16(7), uint16(1), uint8(5))
	f.Fuzz(func(t *testing.T, data []byte, la, lb uint16, skew uint8) {
		// a, b and c are cut from data back to back, after skew bytes;
		// c is what is left.
		s := min(int(skew)%8, len(data))
		data = data[s:]
		na := min(int(la), len(data))
		nb := min(int(lb), len(data)-na)
		checkCRC32C3(t, data[:na], data[na:na+nb], data[na+nb:])
	})
}

// BenchmarkCRC32C3 checks the CRCs of batches of size bytes (attributes to
// end), three at a time against one at a time as ValidCRC does.
func BenchmarkCRC32C3(b *testing.B) {
	r := rand.New(rand.NewPCG(7, 8))
	for _, size := range []int{64, 912, 4096} {
		regions := [3][]byte{crcRegion(r, 0, size), crcRegion(r, 3, size), crcRegion(r, 5, size)}
		b.Run(fmt.Sprintf("size=%d/path=single", size), func(b *testing.B) {
			b.SetBytes(int64(3 * size))
			for b.Loop() {
				for _, p := range regions {
					CRC32C(p)
				}
			}
		})
		b.Run(fmt.Sprintf("size=%d/path=three", size), func(b *testing.B) {
			b.SetBytes(int64(3 * size))
			for b.Loop() {
				CRC32C3(regions[0], regions[1], regions[2])
			}
		})
	}
}

// BenchmarkValidCRCs checks a parallel dump chunk's worth of v2 batches
// (128 KiB of 933-byte batches, in cache) with ValidCRCs against ValidCRC
// on each.
func BenchmarkValidCRCs(b *testing.B) {
	r := rand.New(rand.NewPCG(9, 10))
	sizes := make([]int, 140)
	for i := range sizes {
		sizes[i] = 933
	}
	all := v2Batches(r, sizes, nil)
	// Back to back in one buffer, as in a chunk.
	var buf []byte
	for _, x := range all {
		buf = append(buf, x...)
	}
	for i := range all {
		all[i] = buf[i*933 : (i+1)*933]
	}
	valid := make([]bool, len(all))
	b.Run("path=single", func(b *testing.B) {
		b.SetBytes(int64(len(buf)))
		for b.Loop() {
			for i, x := range all {
				valid[i] = ValidCRC(x)
			}
		}
	})
	b.Run("path=validcrcs", func(b *testing.B) {
		b.SetBytes(int64(len(buf)))
		for b.Loop() {
			ValidCRCs(valid, all)
		}
	})
}
