package report

import "unicode/utf8"

// appendJavaString appends b decoded as Java's new String(b, UTF_8) would:
// each maximal ill-formed subpart becomes one U+FFFD (Go's decoder would
// emit one per byte).
func appendJavaString(dst, b []byte) []byte {
	for i := 0; i < len(b); {
		c := b[i]
		if c < utf8.RuneSelf {
			dst = append(dst, c)
			i++
			continue
		}
		r, n := utf8.DecodeRune(b[i:])
		if r != utf8.RuneError || n > 1 {
			dst = append(dst, b[i:i+n]...)
			i += n
			continue
		}
		dst = append(dst, "\uFFFD"...)
		i += maximalSubpart(b[i:])
	}
	return dst
}

// maximalSubpart is the length of the longest prefix of b that starts a
// well-formed sequence but is not complete (at least 1).
func maximalSubpart(b []byte) int {
	c := b[0]
	var need int
	lo, hi := byte(0x80), byte(0xBF)
	switch {
	case c >= 0xC2 && c <= 0xDF:
		need = 1
	case c == 0xE0:
		need, lo = 2, 0xA0
	case c >= 0xE1 && c <= 0xEC, c == 0xEE, c == 0xEF:
		need = 2
	case c == 0xED:
		need, hi = 2, 0x9F
	case c == 0xF0:
		need, lo = 3, 0x90
	case c >= 0xF1 && c <= 0xF3:
		need = 3
	case c == 0xF4:
		need, hi = 3, 0x8F
	default:
		return 1
	}
	n := 1
	for k := 0; k < need && n < len(b); k++ {
		x := b[n]
		if k == 0 {
			if x < lo || x > hi {
				return n
			}
		} else if x < 0x80 || x > 0xBF {
			return n
		}
		n++
	}
	return n
}

// JavaString is new String(b, UTF_8) as Java decodes it.
func JavaString(b []byte) string { return string(appendJavaString(nil, b)) }
