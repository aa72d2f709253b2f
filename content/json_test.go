package content

import (
	"strings"
	"testing"
)

// jsonStringByByte is appendJSONString without the 8-byte fast path.
func jsonStringByByte(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c == '"' || c == '\\':
			b.WriteByte('\\')
			b.WriteByte(c)
		case c == '\b':
			b.WriteString(`\b`)
		case c == '\t':
			b.WriteString(`\t`)
		case c == '\n':
			b.WriteString(`\n`)
		case c == '\f':
			b.WriteString(`\f`)
		case c == '\r':
			b.WriteString(`\r`)
		case c < 0x20:
			b.WriteString(`\u00`)
			b.WriteByte(hexUpper[c>>4])
			b.WriteByte(hexUpper[c&0xf])
		default:
			b.WriteByte(c)
		}
	}
	b.WriteByte('"')
	return b.String()
}

// TestJSONStringFastPath: every byte value at every position of the 8-byte
// words (and the tail) escapes as the byte-by-byte loop escapes it, and
// JSONSafe says so exactly when nothing is escaped.
func TestJSONStringFastPath(t *testing.T) {
	// Lengths around JSONSafe's 16-byte steps, its 8-byte step and the
	// word that ends the input; 26 bytes: three words and a tail.
	for _, n := range []int{1, 7, 8, 9, 15, 16, 17, 23, 24, 26, 31, 32, 33, 100} {
		testJSONStringFastPath(t, strings.Repeat("abcdefghijklmnopqrstuvwxyz", 4)[:n])
	}
}

func testJSONStringFastPath(t *testing.T, base string) {
	for pos := 0; pos < len(base); pos++ {
		for c := 0; c < 256; c++ {
			b := []byte(base)
			b[pos] = byte(c)
			if c >= 0x80 {
				b = append(b[:pos], append([]byte("é"), b[pos+1:]...)...) // keep it UTF-8
			}
			s := string(b)
			want := jsonStringByByte(s)
			if got := string(AppendJSONString(nil, s)); got != want {
				t.Fatalf("byte %#x at %d: %s, want %s", c, pos, got, want)
			}
			if got := string(AppendJSONBytes([]byte("x"), b)); got != "x"+want {
				t.Fatalf("bytes: byte %#x at %d: %s, want x%s", c, pos, got, want)
			}
			if safe := JSONSafe(b); safe != (want == `"`+s+`"`) {
				t.Fatalf("JSONSafe(%q) = %v", s, safe)
			}
		}
	}
}
