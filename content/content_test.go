package content

import (
	"bufio"
	"encoding/hex"
	"os"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/kseg/kseg/internal/varint"
)

func TestJavaStringMaximalSubpart(t *testing.T) {
	const r = "\uFFFD"
	tests := []struct {
		in   string // hex
		want string
	}{
		{"e282", r},                 // truncated 3-byte sequence: one
		{"c080", r + r},             // overlong lead C0: two
		{"eda080", r},               // encoded surrogate: the JDK gives one, not three
		{"f4908080", r + r + r + r}, // above U+10FFFF: four
		{"e28261", r + "a"},
		{"e080af", r + r + r},
		{"f09f9880", "\U0001F600"},
		{"f09f98", r},
		{"68656c6c6f", "hello"},
		{"", ""},
		{"ff", r},
	}
	for _, tc := range tests {
		b, _ := hex.DecodeString(tc.in)
		if got := JavaString(b); got != tc.want {
			t.Errorf("JavaString(%s) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

// TestJavaStringJDK compares with new String(bytes, UTF_8) as computed by
// OpenJDK 17 for 3036 inputs (testdata/javastring_jdk17.txt: input hex,
// output UTF-8 hex), mostly random short sequences of boundary bytes.
func TestJavaStringJDK(t *testing.T) {
	f, err := os.Open("testdata/javastring_jdk17.txt")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	n := 0
	for sc.Scan() {
		parts := strings.Fields(sc.Text())
		if len(parts) != 2 {
			continue
		}
		in, _ := hex.DecodeString(parts[0])
		want, _ := hex.DecodeString(parts[1])
		if got := JavaString(in); got != string(want) {
			t.Errorf("JavaString(%s) = %x, want %s", parts[0], got, parts[1])
		}
		n++
	}
	if n < 3000 {
		t.Fatalf("only %d vectors read", n)
	}
}

func TestJacksonEscaping(t *testing.T) {
	tests := []struct{ in, want string }{
		{`a"b\c`, `"a\"b\\c"`},
		{"\b\t\n\f\r", `"\b\t\n\f\r"`},
		{"\x00\x01\x1f", `"\u0000\u0001\u001F"`},
		{"</script>&", `"</script>&"`},
		{"\u2028\u2029é😀", "\"\u2028\u2029é😀\""},
		{"\x7f", "\"\x7f\""},
	}
	for _, tc := range tests {
		if got := string(appendJSONString(nil, tc.in)); got != tc.want {
			t.Errorf("escape(%q) = %s, want %s", tc.in, got, tc.want)
		}
	}
}

// enc builds generated-message bytes.
type enc []byte

func (e enc) i16(v int16) enc   { return append(e, byte(v>>8), byte(v)) }
func (e enc) i32(v int32) enc   { return append(e, byte(v>>24), byte(v>>16), byte(v>>8), byte(v)) }
func (e enc) i64(v int64) enc   { return e.i32(int32(v >> 32)).i32(int32(v)) }
func (e enc) str(s string) enc  { return append(e.i16(int16(len(s))), s...) }
func (e enc) uv(v uint32) enc   { return varint.Append(e, uint64(v)) }
func (e enc) cstr(s string) enc { return append(e.uv(uint32(len(s)+1)), s...) }

func TestOffsetsParser(t *testing.T) {
	commitKey := enc{}.i16(1).str("g").str("t").i32(3)
	sub := enc{}.i16(1).i32(1).str("foo").i32(-1).i32(1).str("foo").i32(1).i32(0)
	asg := enc{}.i16(0).i32(1).str("foo").i32(1).i32(0).i32(3).append("abc")
	gm := enc{}.i16(3).str("consumer").i32(5).str("range").str("m1").i64(7).
		i32(1).str("m1").i16(-1).str("c").str("/h").i32(100).i32(200).
		i32(int32(len(sub))).append(string(sub)).i32(int32(len(asg))).append(string(asg))
	gmBad := enc{}.i16(0).str("consumer").i32(1).i16(-1).i16(-1).
		i32(1).str("m").str("c").str("h").i32(9).i32(1).append("Z").i32(0)
	tests := []struct {
		name       string
		key, value []byte
		want       Result
	}{
		{"commit v1", commitKey, enc{}.i16(1).i64(42).str("md").i64(100).i64(200),
			Result{`{"type":"1","data":{"group":"g","topic":"t","partition":3}}`,
				`{"version":"1","data":{"offset":42,"metadata":"md","commitTimestamp":100,"expireTimestamp":200}}`, true, true}},
		{"commit v4 flexible, zero topicId left out", commitKey,
			enc{}.i16(4).i64(1).i32(-1).cstr("").i64(5).uv(1).uv(0).uv(16).append(string(make([]byte, 16))),
			Result{`{"type":"1","data":{"group":"g","topic":"t","partition":3}}`,
				`{"version":"4","data":{"offset":1,"leaderEpoch":-1,"metadata":"","commitTimestamp":5}}`, true, true}},
		{"tombstone", commitKey, nil,
			Result{`{"type":"1","data":{"group":"g","topic":"t","partition":3}}`, "<DELETE>", true, true}},
		{"group metadata, consumer protocol expanded", enc{}.i16(2).str("grp"), gm,
			Result{`{"type":"2","data":{"group":"grp"}}`,
				`{"version":"3","data":{"protocolType":"consumer","generation":5,"protocol":"range","leader":"m1","currentStateTimestamp":7,"members":[{"memberId":"m1","groupInstanceId":null,"clientId":"c","clientHost":"/h","rebalanceTimeout":100,"sessionTimeout":200,"subscription":{"topics":["foo"],"userData":null,"ownedPartitions":[{"topic":"foo","partitions":[0]}]},"assignment":{"assignedPartitions":[{"topic":"foo","partitions":[0]}],"userData":"YWJj"}}]}}`, true, true}},
		{"group metadata, malformed subscription stays base64", enc{}.i16(2).str("grp"), gmBad,
			Result{`{"type":"2","data":{"group":"grp"}}`,
				`{"version":"0","data":{"protocolType":"consumer","generation":1,"protocol":null,"leader":null,"members":[{"memberId":"m","clientId":"c","clientHost":"h","sessionTimeout":9,"subscription":"Wg==","assignment":""}]}}`, true, true}},
		{"unknown type", enc{}.i16(9).str("x"), nil,
			Result{Key: "Unknown record type 9 at offset 7, skipping.", HasKey: true}},
		{"short key", []byte{0}, nil,
			Result{Key: "Error at offset 7, skipping. Could not read version from key's buffer.", HasKey: true}},
		{"bad value version", commitKey, enc{}.i16(5),
			Result{Key: "Error at offset 7, skipping. Found an unknown record version 5 for 1 type", HasKey: true}},
		{"truncated value", commitKey, enc{}.i16(0).i64(1).i16(10),
			Result{Key: "Error at offset 7, skipping. Could not read record with version 0 from value's buffer due to: Error reading byte array of 10 byte(s): only 0 byte(s) available.", HasKey: true}},
		{"underflow", commitKey, enc{}.i16(0).i32(1),
			Result{Key: "Error at offset 7, skipping. Could not read record with version 0 from value's buffer due to: null.", HasKey: true}},
		{"null non-nullable key string", enc{}.i16(2).i16(-1), nil,
			Result{Key: "Error at offset 7, skipping. Could not read record with version 2 from key's buffer due to: non-nullable field group was serialized as null.", HasKey: true}},
		{"consumer group metadata, tagged hash", enc{}.i16(3).str("g"),
			enc{}.i16(0).i32(4).uv(1).uv(0).uv(8).i64(-2),
			Result{`{"type":"3","data":{"groupId":"g"}}`, `{"version":"0","data":{"epoch":4,"metadataHash":-2}}`, true, true}},
		{"huge collection", enc{}.i16(7).str("g").str("m"), enc{}.i16(0).uv(0x7fffffff),
			Result{Key: "Error at offset 7, skipping. Could not read record with version 0 from value's buffer due to: Tried to allocate a collection of size 2147483646, but there are only 0 bytes remaining..", HasKey: true}},
	}
	p := NewOffsetsParser()
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := p.Parse(7, tc.key, tc.value)
			if err != nil {
				t.Fatal(err)
			}
			if got != tc.want {
				t.Errorf("got  %+v\nwant %+v", got, tc.want)
			}
		})
	}
	if _, err := p.Parse(12, nil, []byte{0, 0}); err == nil ||
		err.Error() != "java.lang.RuntimeException: Failed to decode message at offset 12 using the specified decoder (message had a missing key)" {
		t.Errorf("missing key: %v", err)
	}
}

func (e enc) append(s string) enc { return append(e, s...) }

func TestTransactionLogParser(t *testing.T) {
	key := enc{}.i16(0).str("tx")
	v0 := enc{}.i16(0).i64(10).i16(1).i32(60000).append("\x02").i32(1).str("t").i32(2).i32(0).i32(1).i64(5).i64(6)
	v1 := enc{}.i16(1).i64(10).i16(1).i32(60000).append("\x09").uv(0).i64(5).i64(6).
		uv(2).uv(1).uv(8).i64(11).uv(2).uv(2).i16(2)
	tests := []struct {
		name  string
		value []byte
		want  string
	}{
		{"v0", v0, `{"version":"0","data":{"producerId":10,"producerEpoch":1,"transactionTimeoutMs":60000,"transactionStatus":"PrepareCommit","transactionPartitions":[{"topic":"t","partitionIds":[0,1]}],"transactionLastUpdateTimestampMs":5,"transactionStartTimestampMs":6}}`},
		{"v1 tags, unknown status", v1, `{"version":"1","data":{"producerId":10,"nextProducerId":11,"producerEpoch":1,"transactionTimeoutMs":60000,"transactionStatus":"9","transactionPartitions":null,"transactionLastUpdateTimestampMs":5,"transactionStartTimestampMs":6,"clientTransactionVersion":2}}`},
	}
	p := NewTransactionLogParser()
	for _, tc := range tests {
		got, err := p.Parse(0, key, tc.value)
		if err != nil {
			t.Fatal(err)
		}
		if want := (Result{`{"type":"0","data":{"transactionalId":"tx"}}`, tc.want, true, true}); got != want {
			t.Errorf("%s:\ngot  %+v\nwant %+v", tc.name, got, want)
		}
	}
}

func TestStringParser(t *testing.T) {
	tests := []struct {
		k, v       string
		key, value []byte
		want       Result
		crash      bool
	}{
		{"string", "string", []byte("k\xe2\x82"), []byte("v"), Result{"k\uFFFD", "v", true, true}, false},
		{"org.apache.kafka.tools.api.IntegerDecoder", "long", []byte{0, 0, 1, 0}, []byte{0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xfe}, Result{"256", "-2", true, true}, false},
		{"int", "string", []byte{0, 1}, nil, Result{}, true},
		{"hex", "base64", []byte{0xab}, []byte("hi"), Result{"ab", "aGk=", true, true}, false},
		{"none", "string", []byte("k"), nil, Result{}, false},
		{"string", "string", nil, []byte{}, Result{"", "", false, true}, false},
	}
	for _, tc := range tests {
		p, err := NewStringParser(tc.k, tc.v)
		if err != nil {
			t.Fatal(err)
		}
		got, err := p.Parse(3, tc.key, tc.value)
		if tc.crash {
			if err == nil || err.Error() != "java.nio.BufferUnderflowException" {
				t.Errorf("%s: err = %v, want BufferUnderflowException", tc.k, err)
			}
			continue
		}
		if err != nil || got != tc.want {
			t.Errorf("%s/%s: got %+v, %v; want %+v", tc.k, tc.v, got, err, tc.want)
		}
	}
	if _, err := NewStringParser("kafka.serializer.StringDecoder", "string"); err == nil {
		t.Error("removed kafka.serializer name accepted")
	}
}

func FuzzJavaString(f *testing.F) {
	for _, s := range []string{"", "abc", "\xe2\x82", "\xc0\x80", "\xed\xa0\x80", "\xf4\x90\x80\x80", "\xf0\x9f\x98"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		s := JavaString(b)
		if a := string(AppendJavaString(nil, b)); a != s {
			t.Fatalf("AppendJavaString(%x) = %q, JavaString %q", b, a, s)
		}
		if !utf8.ValidString(s) {
			t.Fatalf("invalid UTF-8 output for %x", b)
		}
		if utf8.Valid(b) && s != string(b) {
			t.Fatalf("valid input changed: %x", b)
		}
		// Each replacement stands for at least one input byte.
		if utf8.RuneCountInString(s) > len(b) {
			t.Fatalf("more runes than bytes for %x", b)
		}
	})
}

func fuzzParser(f *testing.F, p Parser, seeds [][2][]byte) {
	for _, s := range seeds {
		f.Add(s[0], s[1], false)
	}
	f.Fuzz(func(t *testing.T, key, val []byte, nullValue bool) {
		if nullValue {
			val = nil
		}
		res, err := p.Parse(1, key, val)
		if err != nil {
			if _, ok := err.(*CrashError); !ok || key != nil {
				t.Fatalf("unexpected error %v", err)
			}
			return
		}
		if !res.HasKey || !utf8.ValidString(res.Key) || !utf8.ValidString(res.Payload) {
			t.Fatalf("bad result %+v", res)
		}
		if res.HasPayload && res.Payload != "<DELETE>" && !strings.HasPrefix(res.Payload, `{"version":"`) {
			t.Fatalf("payload %q", res.Payload)
		}
		if strings.ContainsAny(res.Key+res.Payload, "\n\r") {
			t.Fatalf("line break in %+v", res)
		}
	})
}

func FuzzOffsetsParser(f *testing.F) {
	key := enc{}.i16(2).str("grp")
	sub := enc{}.i16(3).i32(1).str("foo").i32(-1).i32(1).str("foo").i32(1).i32(0).i32(0).i16(-1)
	gm := enc{}.i16(4).cstr("consumer").i32(5).cstr("range").cstr("m1").i64(7).uv(2).
		cstr("m1").uv(0).cstr("c").cstr("/h").i32(100).i32(200).uv(uint32(len(sub) + 1)).append(string(sub)).uv(1).uv(0).uv(0)
	seeds := [][2][]byte{
		{enc{}.i16(1).str("g").str("t").i32(3), enc{}.i16(3).i64(42).i32(1).str("md").i64(100)},
		{key, gm},
		{enc{}.i16(8).str("g").str("m"), enc{}.i16(0).i32(1).i32(0).append("\x00").uv(2).append(string(make([]byte, 16))).uv(2).i32(0).uv(1).uv(0).uv(1).uv(0).uv(0)},
		{enc{}.i16(5).str("g").str("m"), enc{}.i16(0).uv(0).uv(0).cstr("c").cstr("h").uv(1).uv(0).i32(1).uv(0).uv(1).uv(0).uv(3).i32(1).uv(1).uv(0)},
	}
	for _, c := range craftedShareGroup {
		seeds = append(seeds, [2][]byte{c.key, c.val})
	}
	for _, c := range craftedStreamsGroup {
		seeds = append(seeds, [2][]byte{c.key, c.val})
	}
	fuzzParser(f, NewOffsetsParser(), seeds)
}

func FuzzTransactionLogParser(f *testing.F) {
	key := enc{}.i16(0).str("tx")
	fuzzParser(f, NewTransactionLogParser(), [][2][]byte{
		{key, enc{}.i16(0).i64(10).i16(1).i32(60000).append("\x02").i32(1).str("t").i32(2).i32(0).i32(1).i64(5).i64(6)},
		{key, enc{}.i16(1).i64(10).i16(1).i32(60000).append("\x04").uv(0).i64(5).i64(6).uv(2).uv(1).uv(8).i64(11).uv(2).uv(2).i16(2)},
	})
}

func BenchmarkOffsetsParser(b *testing.B) {
	key := enc{}.i16(1).str("group").str("topic").i32(3)
	val := enc{}.i16(4).i64(1).i32(-1).cstr("").i64(5).uv(1).uv(0).uv(16).append("0123456789abcdef")
	p := NewOffsetsParser()
	b.ReportAllocs()
	b.SetBytes(int64(len(key) + len(val)))
	for b.Loop() {
		if _, err := p.Parse(1, key, val); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkJavaString(b *testing.B) {
	in := []byte(strings.Repeat("hello wörld \xe2\x82 ", 8))
	b.ReportAllocs()
	b.SetBytes(int64(len(in)))
	for b.Loop() {
		_ = JavaString(in)
	}
}

// TestAppendJavaStringASCIIPrefix: the 16-byte ASCII check hands every
// input, whatever its length and wherever its first non-ASCII byte, to the
// decoding JavaString gives.
func TestAppendJavaStringASCIIPrefix(t *testing.T) {
	for _, odd := range []string{"\xff", "\xc3", "\xc3\xa9", "\xe2\x82\xac", "\xed\xa0\x80", "\xf0\x9f\x98"} {
		for n := 0; n <= 70; n++ {
			for at := -1; at < n; at++ {
				b := []byte(strings.Repeat("v", n))
				if at >= 0 {
					b = append(b[:at], append([]byte(odd), b[at:]...)...)
				}
				got := string(AppendJavaString([]byte("x: "), b))
				if want := "x: " + JavaString(b); got != want {
					t.Fatalf("%x: got %q, want %q", b, got, want)
				}
				if i := asciiPrefix(b); i > len(b) || (at >= 0 && i > at) || (at < 0 && i != len(b)) {
					t.Fatalf("%x: asciiPrefix %d (first non-ASCII byte at %d)", b, i, at)
				}
			}
		}
	}
}

func BenchmarkAppendJavaStringASCII100(b *testing.B) {
	in := []byte(strings.Repeat("v", 100))
	dst := make([]byte, 0, 256)
	b.SetBytes(int64(len(in)))
	for b.Loop() {
		dst = AppendJavaString(dst[:0], in)
	}
}
