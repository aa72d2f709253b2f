package segment

import (
	"hash/crc32"
	"io"
)

// rangeCRC answers "what is the CRC of bytes [a, b) of the file" for many
// overlapping ranges in time independent of their length, which is what
// makes resynchronisation linear: a corrupt region can hold a candidate
// batch header every few bytes, each claiming to run to the end of the
// file, and checking each by reading its bytes again would be quadratic.
//
// It keeps the CRC of every prefix [origin, origin+k*stride) (computed once,
// in one forward pass, as far as the furthest range asked for) and derives a
// range's CRC from the prefixes at its two ends with the combination rule
// zlib's crc32_combine uses: crc(A||B) = crc(A)·x^(8·len(B)) ⊕ crc(B).
// Memory is 8 bytes per stride of the span covered: 16 KiB per MiB at the
// 512-byte stride, 16 MiB for a corrupt span of 1 GiB.
type rangeCRC struct {
	r      io.ReaderAt
	end    int64
	origin int64
	stride int64
	// marks[i] are the CRCs of [origin, origin+i*stride), one per polynomial.
	marksC, marksI []uint32
	cursor         [2]prefixCursor
	buf            []byte
}

type prefixCursor struct {
	at    int64
	crc   uint32
	valid bool
}

// rangeStride trades memory (8 bytes a stride) for the bytes checksummed
// per candidate (up to a stride at each end).
const rangeStride = 512

var (
	ieeeTable = crc32.IEEETable
	castTable = crc32.MakeTable(crc32.Castagnoli)
	// x2nC[k], x2nI[k] are x^(2^k) modulo each (reflected) polynomial.
	x2nC = x2nTable(crc32.Castagnoli)
	x2nI = x2nTable(crc32.IEEE)
)

func newRangeCRC(r io.ReaderAt, origin, end int64) *rangeCRC {
	return &rangeCRC{r: r, end: end, origin: origin, stride: rangeStride,
		marksC: []uint32{0}, marksI: []uint32{0}}
}

// extend computes prefix marks up to the one at or below x.
func (rc *rangeCRC) extend(x int64) error {
	want := (x - rc.origin) / rc.stride
	have := int64(len(rc.marksC) - 1)
	if want <= have {
		return nil
	}
	const chunk = 1 << 20 // read 2048 strides at a time
	if cap(rc.buf) < chunk {
		rc.buf = make([]byte, chunk)
	}
	for have < want {
		from := rc.origin + have*rc.stride
		n := min(int64(chunk), (want-have)*rc.stride)
		b := rc.buf[:n]
		if _, err := rc.r.ReadAt(b, from); err != nil && !(err == io.EOF && int64(len(b)) <= rc.end-from) {
			return err
		}
		c, i := rc.marksC[have], rc.marksI[have]
		for off := int64(0); off < n; off += rc.stride {
			s := b[off : off+rc.stride]
			c = crc32.Update(c, castTable, s)
			i = crc32.Update(i, ieeeTable, s)
			rc.marksC = append(rc.marksC, c)
			rc.marksI = append(rc.marksI, i)
		}
		have += n / rc.stride
	}
	return nil
}

// poly selects one of the two checksums rangeCRC keeps.
type poly int

const (
	polyCastagnoli poly = iota // v2 batches
	polyIEEE                   // legacy messages
)

// prefix returns the CRC of [origin, x) under p. Consecutive calls with
// growing x (the start of each candidate as the search moves forward)
// continue from the previous answer instead of from a mark.
func (rc *rangeCRC) prefix(p poly, x int64) (uint32, error) {
	if err := rc.extend(x); err != nil {
		return 0, err
	}
	k := (x - rc.origin) / rc.stride
	from, c := rc.origin+k*rc.stride, rc.marksC[k]
	if p == polyIEEE {
		c = rc.marksI[k]
	}
	if cur := &rc.cursor[p]; cur.valid && cur.at <= x && cur.at >= from {
		from, c = cur.at, cur.crc
	}
	if rest := x - from; rest > 0 {
		if cap(rc.buf) < rangeStride {
			rc.buf = make([]byte, rangeStride)
		}
		b := rc.buf[:rest]
		if _, err := rc.r.ReadAt(b, from); err != nil && err != io.EOF {
			return 0, err
		}
		if p == polyIEEE {
			c = crc32.Update(c, ieeeTable, b)
		} else {
			c = crc32.Update(c, castTable, b)
		}
	}
	rc.cursor[p] = prefixCursor{at: x, crc: c, valid: true}
	return c, nil
}

// castagnoli is the CRC-32C of [a, b) (v2 batches); ieee the CRC-32 of
// [a, b) (legacy messages). origin <= a <= b <= end.
func (rc *rangeCRC) castagnoli(a, b int64) (uint32, error) {
	return rc.span(polyCastagnoli, a, b, &x2nC, crc32.Castagnoli)
}

func (rc *rangeCRC) ieee(a, b int64) (uint32, error) {
	return rc.span(polyIEEE, a, b, &x2nI, crc32.IEEE)
}

func (rc *rangeCRC) span(p poly, a, b int64, x2n *[32]uint32, reflected uint32) (uint32, error) {
	pb, err := rc.prefix(p, b)
	if err != nil {
		return 0, err
	}
	pa, err := rc.prefix(p, a) // last: the next candidate's start continues from here
	if err != nil {
		return 0, err
	}
	return pb ^ shiftCRC(pa, b-a, x2n, reflected), nil
}

// multModP multiplies a and b modulo the reflected polynomial poly.
func multModP(a, b, poly uint32) uint32 {
	m := uint32(1) << 31
	var p uint32
	for {
		if a&m != 0 {
			p ^= b
			if a&(m-1) == 0 {
				break
			}
		}
		m >>= 1
		if b&1 != 0 {
			b = b>>1 ^ poly
		} else {
			b >>= 1
		}
	}
	return p
}

func x2nTable(poly uint32) [32]uint32 {
	var t [32]uint32
	p := uint32(1) << 30 // x^1
	t[0] = p
	for k := 1; k < 32; k++ {
		p = multModP(p, p, poly)
		t[k] = p
	}
	return t
}

// shiftCRC multiplies crc by x^(8n): the CRC of A extended by n bytes of
// "nothing", ready to be xored with the CRC of those n bytes.
func shiftCRC(crc uint32, n int64, x2n *[32]uint32, poly uint32) uint32 {
	p := uint32(1) << 31 // x^0
	k := 3               // x^(8n) = x^(n * 2^3)
	for n != 0 {
		if n&1 != 0 {
			p = multModP(x2n[k&31], p, poly)
		}
		n >>= 1
		k++
	}
	return multModP(p, crc, poly)
}
