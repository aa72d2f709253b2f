package content

import (
	"encoding/base64"
	"encoding/binary"
	"math"
	"strconv"
	"strings"
	"unicode/utf8"
	"unsafe"
)

const hexUpper = "0123456789ABCDEF"

// appendJSONString appends s as a JSON string literal escaped the way
// Jackson's generator does: only '"', '\\' and control characters below
// 0x20 are escaped (\b \t \n \f \r by name, the rest as upper-case \u00XX);
// '/', '<', '>', '&', U+2028/2029 and all non-ASCII text stay raw UTF-8.
// s must already be valid UTF-8 (see JavaString).
func appendJSONString[S ~string | ~[]byte](dst []byte, s S) []byte {
	dst = append(dst, '"')
	start := 0
	i := 0
	switch v := any(s).(type) {
	case string:
		i = jsonSafePrefix(unsafe.Slice(unsafe.StringData(v), len(v)))
	case []byte:
		i = jsonSafePrefix(v)
	}
	for ; i < len(s); i++ {
		c := s[i]
		if c >= 0x20 && c != '"' && c != '\\' {
			continue
		}
		dst = append(dst, []byte(s[start:i])...)
		switch c {
		case '"':
			dst = append(dst, '\\', '"')
		case '\\':
			dst = append(dst, '\\', '\\')
		case '\b':
			dst = append(dst, '\\', 'b')
		case '\t':
			dst = append(dst, '\\', 't')
		case '\n':
			dst = append(dst, '\\', 'n')
		case '\f':
			dst = append(dst, '\\', 'f')
		case '\r':
			dst = append(dst, '\\', 'r')
		default:
			dst = append(dst, '\\', 'u', '0', '0', hexUpper[c>>4], hexUpper[c&0xf])
		}
		start = i + 1
	}
	dst = append(dst, []byte(s[start:])...)
	return append(dst, '"')
}

// jsonSafePrefix is the length of s's prefix that JSON keeps as it is,
// to a multiple of 8 bytes: it tests 8 bytes at a time for a control
// character, '"' or '\\' (the ASCII fast path of appendJSONString).
func jsonSafePrefix(b []byte) int {
	const ones, highs = 0x0101010101010101, 0x8080808080808080
	i := 0
	for ; i+8 <= len(b); i += 8 {
		x := binary.LittleEndian.Uint64(b[i:])
		q, bs := x^(ones*'"'), x^(ones*'\\')
		// A byte below 0x20, or one equal to '"' or '\\' (zero after the xor).
		if ((x-ones*0x20)&^x|(q-ones)&^q|(bs-ones)&^bs)&highs != 0 {
			break
		}
	}
	return i
}

// JSONSafe tells that b, valid UTF-8, needs no escaping in a JSON string.
//
// It tests 16 bytes a step, and the last bytes as the word that ends b
// (overlapping bytes tested before), so a 100-byte value takes 7 steps.
func JSONSafe(b []byte) bool {
	const highs = 0x8080808080808080
	p := b // resliced, so that the loads need no bounds checks
	for len(p) >= 16 {
		if (jsonEscaped(binary.LittleEndian.Uint64(p[:8]))|jsonEscaped(binary.LittleEndian.Uint64(p[8:16])))&highs != 0 {
			return false
		}
		p = p[16:]
	}
	if len(p) >= 8 {
		if jsonEscaped(binary.LittleEndian.Uint64(p[:8]))&highs != 0 {
			return false
		}
		p = p[8:]
	}
	if len(p) == 0 {
		return true
	}
	if n := len(b); n >= 8 {
		return jsonEscaped(binary.LittleEndian.Uint64(b[n-8:]))&highs == 0
	}
	for _, c := range p {
		if c < 0x20 || c == '"' || c == '\\' {
			return false
		}
	}
	return true
}

// jsonEscaped has the high bit of a byte of x set for some byte when x
// holds a byte that JSON escapes (below 0x20, '"' or '\\'), and of none
// when it holds none.
func jsonEscaped(x uint64) uint64 {
	const ones = 0x0101010101010101
	q, bs := x^(ones*'"'), x^(ones*'\\')
	return (x-ones*0x20)&^x | (q-ones)&^q | (bs-ones)&^bs
}

// AppendJSONBytes is AppendJSONString for bytes (valid UTF-8).
func AppendJSONBytes(dst, b []byte) []byte { return appendJSONString(dst, b) }

// appendJSONJavaString appends the Java decoding of the UTF-8 bytes b as a
// JSON string, without allocating when b is valid UTF-8.
func appendJSONJavaString(dst, b []byte) []byte {
	if utf8.Valid(b) {
		return appendJSONString(dst, b)
	}
	return appendJSONString(dst, appendJavaString(nil, b))
}

// appendBase64 appends b in standard base64 with padding (Jackson's default
// MIME_NO_LINEFEEDS variant) inside quotes.
func appendBase64(dst, b []byte) []byte {
	dst = append(dst, '"')
	dst = base64.StdEncoding.AppendEncode(dst, b)
	return append(dst, '"')
}

// appendUUID appends Kafka's Uuid.toString of the 16 bytes u (URL-safe
// base64 without padding) inside quotes.
func appendUUID(dst, u []byte) []byte {
	dst = append(dst, '"')
	dst = base64.RawURLEncoding.AppendEncode(dst, u)
	return append(dst, '"')
}

func appendInt(dst []byte, v int64) []byte { return strconv.AppendInt(dst, v, 10) }

// AppendJSONString appends s quoted and escaped as Jackson does (only '"',
// '\\' and control characters escaped; upper-case hex).
func AppendJSONString(dst []byte, s string) []byte { return appendJSONString(dst, s) }

// appendJavaDouble appends d as Jackson writes a DoubleNode: Java's
// Double.toString ("1048576.0", "1.0E7", "1.0E-4"), or the quoted strings
// "NaN", "Infinity", "-Infinity" (WRITE_NAN_AS_STRINGS). The digits are the
// shortest that round-trip; JDK 17's FloatingDecimal prints one digit more
// for a few rare values.
func appendJavaDouble(dst []byte, d float64) []byte {
	switch {
	case math.IsNaN(d):
		return append(dst, `"NaN"`...)
	case math.IsInf(d, 1):
		return append(dst, `"Infinity"`...)
	case math.IsInf(d, -1):
		return append(dst, `"-Infinity"`...)
	}
	if math.Signbit(d) {
		dst = append(dst, '-')
		d = -d
	}
	if d == 0 {
		return append(dst, "0.0"...)
	}
	var tmp [32]byte
	e := strconv.AppendFloat(tmp[:0], d, 'e', -1, 64) // d[.ddd]e±xx
	mant, expText, _ := strings.Cut(string(e), "e")
	exp, _ := strconv.Atoi(expText)
	digits := strings.Replace(mant, ".", "", 1)
	if d >= 1e-3 && d < 1e7 {
		if exp < 0 {
			dst = append(dst, "0."...)
			for i := 0; i < -exp-1; i++ {
				dst = append(dst, '0')
			}
			return append(dst, digits...)
		}
		for len(digits) < exp+1 {
			digits += "0"
		}
		dst = append(dst, digits[:exp+1]...)
		dst = append(dst, '.')
		if frac := digits[exp+1:]; frac != "" {
			return append(dst, frac...)
		}
		return append(dst, '0')
	}
	dst = append(dst, digits[0], '.')
	if len(digits) > 1 {
		dst = append(dst, digits[1:]...)
	} else {
		dst = append(dst, '0')
	}
	dst = append(dst, 'E')
	return strconv.AppendInt(dst, int64(exp), 10)
}
