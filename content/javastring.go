package content

import (
	"encoding/binary"
	"unicode/utf8"
)

const replacement = "\uFFFD"

// JavaString returns what Java's new String(b, UTF_8) holds, as UTF-8.
// Malformed input becomes U+FFFD following the JDK's String decoder, which
// is the Unicode "maximal subpart" rule with one exception: a well-formed
// 3-byte encoding of a surrogate (ED A0..BF xx) becomes a single U+FFFD, and
// so does a truncated ED A0..BF at the end of the input.
func JavaString(b []byte) string {
	if utf8.Valid(b) { // Go's validity rules (no surrogates, shortest form) match Java's
		return string(b)
	}
	return string(appendJavaString(make([]byte, 0, len(b)+8), b))
}

func isCont(c byte) bool { return c&0xc0 == 0x80 }

// appendJavaString appends the Java decoding of b to dst. It is long
// because it is one decoder: a switch over the lead byte, each case the
// JDK's rule for a sequence of that length.
func appendJavaString(dst, b []byte) []byte {
	n := len(b)
	for i := 0; i < n; {
		c := b[i]
		switch {
		case c < 0x80:
			dst = append(dst, c)
			i++
		case c >= 0xc2 && c <= 0xdf:
			if i+1 < n && isCont(b[i+1]) {
				dst = append(dst, c, b[i+1])
				i += 2
			} else {
				dst = append(dst, replacement...)
				i++
			}
		case c >= 0xe0 && c <= 0xef:
			switch {
			case i+2 < n:
				b2, b3 := b[i+1], b[i+2]
				if (c == 0xe0 && b2&0xe0 == 0x80) || !isCont(b2) || !isCont(b3) {
					dst = append(dst, replacement...)
					if (c == 0xe0 && b2&0xe0 == 0x80) || !isCont(b2) {
						i++
					} else {
						i += 2
					}
					continue
				}
				if c == 0xed && b2 >= 0xa0 { // surrogate
					dst = append(dst, replacement...)
				} else {
					dst = append(dst, c, b2, b3)
				}
				i += 3
			case i+1 < n:
				b2 := b[i+1]
				dst = append(dst, replacement...)
				if (c == 0xe0 && b2&0xe0 == 0x80) || !isCont(b2) {
					i++
				} else {
					i += 2
				}
			default:
				dst = append(dst, replacement...)
				i++
			}
		case c >= 0xf0 && c <= 0xf7:
			if i+3 < n {
				b2, b3, b4 := b[i+1], b[i+2], b[i+3]
				uc := rune(c&0x07)<<18 | rune(b2&0x3f)<<12 | rune(b3&0x3f)<<6 | rune(b4&0x3f)
				if !isCont(b2) || !isCont(b3) || !isCont(b4) || uc < 0x10000 || uc > 0x10ffff {
					dst = append(dst, replacement...)
					switch {
					case c > 0xf4 || (c == 0xf0 && (b2 < 0x90 || b2 > 0xbf)) ||
						(c == 0xf4 && b2&0xf0 != 0x80) || !isCont(b2):
						i++
					case !isCont(b3):
						i += 2
					default:
						i += 3
					}
					continue
				}
				dst = append(dst, c, b2, b3, b4)
				i += 4
				continue
			}
			// Fewer than four bytes left.
			if c > 0xf4 || (i+1 < n && malformed4x2(c, b[i+1])) {
				dst = append(dst, replacement...)
				i++
				continue
			}
			dst = append(dst, replacement...)
			i += 2 // the lead and a valid second byte (or the end)
			if i < n && !isCont(b[i]) {
				continue
			}
			return dst // the JDK stops here: at most one byte is left and it is swallowed
		default: // 0x80-0xc1, 0xf8-0xff
			dst = append(dst, replacement...)
			i++
		}
	}
	return dst
}

func malformed4x2(b1, b2 byte) bool {
	return (b1 == 0xf0 && (b2 < 0x90 || b2 > 0xbf)) || (b1 == 0xf4 && b2&0xf0 != 0x80) || !isCont(b2)
}

// AppendJavaString appends Java's decoding of b (see JavaString) to dst
// without allocating when b is valid UTF-8.
func AppendJavaString(dst, b []byte) []byte {
	if i := asciiPrefix(b); i == len(b) || utf8.Valid(b[i:]) {
		return append(dst, b...)
	}
	return appendJavaString(dst, b)
}

// asciiPrefix is the length of a prefix of b that is all ASCII: len(b)
// when b is, else at most the position of its first other byte. It reads
// 32 bytes a step (utf8.Valid reads 8), so the usual ASCII key or value
// is checked in a quarter of the steps; what follows a non-ASCII byte is left to
// utf8.Valid (an ASCII prefix is whole characters).
func asciiPrefix(b []byte) int {
	const high = 0x8080808080808080
	n := len(b)
	p := b // resliced, so that the loads need no bounds checks
	for len(p) >= 32 {
		if (binary.LittleEndian.Uint64(p[:8])|binary.LittleEndian.Uint64(p[8:16])|
			binary.LittleEndian.Uint64(p[16:24])|binary.LittleEndian.Uint64(p[24:32]))&high != 0 {
			return n - len(p)
		}
		p = p[32:]
	}
	if len(p) >= 16 {
		if (binary.LittleEndian.Uint64(p[:8])|binary.LittleEndian.Uint64(p[8:16]))&high != 0 {
			return n - len(p)
		}
		p = p[16:]
	}
	if len(p) == 0 {
		return n
	}
	if n >= 16 {
		// The last 16 bytes, overlapping what was checked.
		t := b[n-16:]
		if (binary.LittleEndian.Uint64(t[:8])|binary.LittleEndian.Uint64(t[8:16]))&high != 0 {
			return n - len(p)
		}
		return n
	}
	for i, c := range b {
		if c >= 0x80 {
			return i
		}
	}
	return n
}
