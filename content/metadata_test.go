package content

import (
	"bufio"
	"encoding/json"
	"math"
	"os"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/kseg/kseg/batch"
)

// meta starts a metadata record value: frame version 1, apiKey, version.
func meta(apiKey, version uint32) enc { return enc{}.uv(1).uv(apiKey).uv(version) }

func (e enc) f64(v float64) enc { return e.i64(int64(math.Float64bits(v))) }

var zeroID = string(make([]byte, 16))

const someID = "\x01\x23\x45\x67\x89\xab\xcd\xef\xfe\xdc\xba\x98\x76\x54\x32\x10"

// craftedMetadata are record values that exercise the corners of
// MetadataRecordSerde and the generated readers and JSON converters. Kafka
// 4.4.0's output for each is in testdata/metadata_crafted.golden (one
// payload per line, in order); regenerate with
//
//	KSEG_WRITE_CRAFTED=/tmp/x/00000000000000000000.log go test ./content -run TestWriteCraftedMetadata
//	kafka-dump-log --files /tmp/x/00000000000000000000.log --cluster-metadata-decoder --skip-record-metadata | grep "^| payload: " | cut -c12-
var craftedMetadata = []struct {
	name string
	val  []byte
}{
	{"null value", nil},
	{"empty value", []byte{}},
	{"frame 0", enc{}.uv(0)},
	{"frame 2", enc{}.uv(2)},
	{"frame -1 (5-byte varint)", enc{}.append("\xff\xff\xff\xff\x0f")},
	{"frame 32768", enc{}.uv(32768)},
	{"frame 65537 (too large)", enc{}.uv(65537)},
	{"frame varint too long", enc{}.append("\xff\xff\xff\xff\xff")},
	{"frame -65535 truncates to 1", enc{}.append("\x81\x80\xfc\xff\x0f").uv(20).uv(0).uv(0)},
	{"no type", enc{}.uv(1)},
	{"no version", enc{}.uv(1).uv(20)},
	{"type too large", enc{}.uv(1).uv(40000).uv(0)},
	{"unknown type 6", meta(6, 0).uv(0)},
	{"unknown type 30", meta(30, 0).uv(0)},
	{"unknown type, truncated version", enc{}.uv(1).uv(6)},
	{"no-op", meta(20, 0).uv(0)},
	{"no-op missing tag section", meta(20, 0)},
	{"no-op with garbage", meta(20, 0).uv(0).append("xy")},
	{"no-op version 7", meta(20, 7).uv(0)},
	{"no-op version -1", enc{}.uv(1).uv(20).append("\xff\xff\xff\xff\x0f").uv(0)},
	{"no-op unknown tags", meta(20, 0).uv(2).uv(3).uv(2).append("ab").uv(9).uv(0)},
	{"no-op unknown tag truncated", meta(20, 0).uv(1).uv(3).uv(5).append("ab")},
	{"end transaction", meta(24, 0).uv(0)},
	{"begin transaction named", meta(23, 0).uv(1).uv(0).uv(4).cstr("abc")},
	{"begin transaction null name tag", meta(23, 0).uv(1).uv(0).uv(1).uv(0)},
	{"begin transaction no name", meta(23, 0).uv(0)},
	{"abort transaction", meta(25, 0).uv(1).uv(0).uv(7).cstr("why\x01\"")},
	{"feature level", meta(12, 0).cstr("metadata.version").i16(20).uv(0)},
	{"feature level truncated", meta(12, 0).cstr("metadata.version").append("\x00")},
	{"topic", meta(2, 0).cstr("t\xff\xfe/ü<>").append(someID).uv(0)},
	{"topic null name", meta(2, 0).uv(0).append(someID).uv(0)},
	{"topic long string", meta(2, 0).uv(40000).append(strings.Repeat("x", 39999)).append(someID).uv(0)},
	{"config null value", meta(4, 0).append("\x02").cstr("t").cstr("cleanup.policy").uv(0).uv(0)},
	{"config value with newline", meta(4, 0).append("\x04").cstr("").cstr("k").cstr("a\nb\tc\x7f").uv(0)},
	{"partition v0", meta(3, 0).i32(0).append(someID).uv(2).i32(1).uv(2).i32(1).uv(1).uv(1).i32(-1).i32(0).i32(0).uv(0)},
	{"partition v0 recovering", meta(3, 0).i32(0).append(someID).uv(2).i32(1).uv(2).i32(1).uv(1).uv(1).i32(-1).i32(0).i32(0).uv(1).uv(0).uv(1).append("\x01")},
	{"partition v1", meta(3, 1).i32(3).append(someID).uv(3).i32(1).i32(2).uv(2).i32(2).uv(1).uv(1).i32(2).i32(5).i32(6).uv(3).append(someID).append(zeroID).uv(0)},
	{"partition v2 elr", meta(3, 2).i32(3).append(someID).uv(2).i32(1).uv(1).uv(1).uv(1).i32(-1).i32(5).i32(6).uv(2).append(someID).uv(2).uv(1).uv(5).uv(2).i32(1).uv(2).uv(1).uv(0)},
	{"partition v0 with v2 tag", meta(3, 0).i32(0).append(someID).uv(1).uv(1).uv(1).uv(1).i32(-1).i32(0).i32(0).uv(1).uv(1).uv(1).uv(0)},
	{"partition version -1", enc{}.uv(1).uv(3).append("\xff\xff\xff\xff\x0f").i32(0).append(someID).uv(1).uv(1).uv(1).uv(1).i32(-1).i32(0).i32(0).uv(0)},
	{"partition version 9", meta(3, 9).i32(0).append(someID).uv(1).uv(1).uv(1).uv(1).i32(-1).i32(0).i32(0).uv(1).uv(0)},
	{"partition null replicas", meta(3, 0).i32(0).append(someID).uv(0).uv(1).uv(1).uv(1).i32(-1).i32(0).i32(0).uv(0)},
	{"partition huge array", meta(3, 0).i32(0).append(someID).uv(2000000).uv(1).uv(1).uv(1).i32(-1).i32(0).i32(0).uv(0)},
	{"partition change no tags", meta(5, 0).i32(1).append(someID).uv(0)},
	{"partition change all tags", meta(5, 0).i32(1).append(someID).uv(6).
		uv(0).uv(1).uv(1).
		uv(1).uv(4).i32(-1).
		uv(2).uv(5).uv(2).i32(3).
		uv(3).uv(1).uv(0).
		uv(4).uv(1).uv(1).
		uv(5).uv(1).append("\x00")},
	{"partition change default leader", meta(5, 0).i32(1).append(someID).uv(2).uv(1).uv(4).i32(-2).uv(5).uv(1).append("\xff")},
	{"partition change v1 directories", meta(5, 1).i32(1).append(someID).uv(1).uv(8).uv(18).uv(2).append(someID)},
	{"partition change v2 elr", meta(5, 2).i32(1).append(someID).uv(2).uv(6).uv(1).uv(1).uv(7).uv(5).uv(2).i32(4)},
	{"partition change v0 with directories tag", meta(5, 0).i32(1).append(someID).uv(1).uv(8).uv(1).uv(0)},
	{"register broker v0", meta(0, 0).i32(1).append(someID).i64(7).
		uv(3).cstr("PLAINTEXT").cstr("h").i16(-1).i16(0).uv(0).cstr("PLAINTEXT").cstr("h2").i16(9092).i16(1).uv(0).
		uv(2).cstr("metadata.version").i16(1).i16(20).uv(0).
		uv(0).append("\x01").uv(0)},
	{"register broker v4", meta(0, 4).i32(1).append("\x00").append(someID).i64(7).
		uv(1).uv(1).
		cstr("rack").append("\x00").append("\x01").
		uv(2).uv(0).uv(18).uv(2).append(someID).uv(1).uv(1).uv(1)},
	{"register broker v3 nested unknown tag", meta(0, 3).i32(1).append("\x01").append(someID).i64(7).
		uv(2).cstr("A").cstr("h").i16(1).i16(0).uv(1).uv(7).uv(1).append("z").
		uv(1).uv(0).append("\x01\x00").uv(0)},
	{"broker registration change v0", meta(17, 0).i32(1).i64(13).uv(1).uv(0).uv(1).append("\xff")},
	{"broker registration change v0 with tag 1", meta(17, 0).i32(1).i64(13).uv(1).uv(1).uv(1).append("\x01")},
	{"broker registration change v1", meta(17, 1).i32(1).i64(13).uv(2).uv(0).uv(1).append("\x00").uv(1).uv(1).append("\x01")},
	{"broker registration change v3", meta(17, 3).i32(1).i64(13).uv(2).uv(2).uv(17).uv(2).append(someID).uv(3).uv(1).uv(1)},
	{"producer ids", meta(15, 0).i32(1).i64(-1).i64(1000).uv(0)},
	{"fence broker", meta(7, 0).i32(2).i64(3).uv(0)},
	{"unfence broker", meta(8, 0).i32(2).i64(3).uv(0)},
	{"unregister broker", meta(1, 0).i32(2).i64(3).uv(0)},
	{"remove topic", meta(9, 0).append(someID).uv(0)},
	{"remove topic short uuid", meta(9, 0).append("\x01\x02\x03")},
	{"delegation token", meta(10, 0).cstr("User:a").cstr("User:b").uv(3).cstr("x").cstr("y").i64(1).i64(2).i64(3).cstr("tok").uv(0)},
	{"user scram credential", meta(11, 0).cstr("alice").append("\x01").uv(4).append("abc").uv(1).uv(2).append("k").i32(4096).uv(0)},
	{"user scram credential null salt", meta(11, 0).cstr("alice").append("\x01").uv(0).uv(1).uv(1).i32(4096).uv(0)},
	{"remove user scram credential", meta(22, 0).cstr("alice").append("\x02").uv(0)},
	{"acl", meta(18, 0).append(someID).append("\x02").cstr("topic").append("\x03").cstr("User:*").cstr("*").append("\x04").append("\x03").uv(0)},
	{"remove acl", meta(19, 0).append(someID).uv(0)},
	{"zk migration state", meta(21, 0).append("\x02").uv(0)},
	{"remove delegation token", meta(26, 0).cstr("tok").uv(0)},
	{"register controller", meta(27, 0).i32(3000).append(someID).append("\x00").
		uv(2).cstr("CONTROLLER").cstr("localhost").i16(9093).i16(0).uv(0).
		uv(2).cstr("kraft.version").i16(0).i16(1).uv(0).uv(0)},
	{"clear elr", meta(28, 0).cstr("").uv(0)},
	{"unregister controller", meta(29, 0).i32(3000).uv(0)},
	{"client quota", meta(14, 0).uv(3).cstr("user").cstr("alice").uv(0).cstr("client-id").uv(0).uv(0).cstr("producer_byte_rate").f64(1048576).append("\x00").uv(0)},
}

// JDK 17's Double.toString (FloatingDecimal) is not always the shortest
// round-tripping form, which kseg prints: 5e-324 (Java "4.9E-324") and
// 1e23 (Java "9.999999999999999E22") differ, so they are left out here.
func init() {
	for _, d := range []float64{1e7, 1e-4, 0.001, 9999999.5, math.NaN(), math.Inf(1), math.Inf(-1), math.Copysign(0, -1), 0, 123.456, 1e21, math.MaxFloat64, 0.30000000000000004, 2.5e-3, 100, 4.35, -7.25e-9} {
		craftedMetadata = append(craftedMetadata, struct {
			name string
			val  []byte
		}{"client quota " + strconv.FormatFloat(d, 'g', -1, 64), meta(14, 0).uv(2).cstr("ip").cstr("x").uv(0).cstr("k").f64(d).append("\x01").uv(0)})
	}
}

// TestWriteCraftedMetadata writes craftedMetadata as a segment (one batch)
// for the golden regeneration described above; it is skipped unless
// KSEG_WRITE_CRAFTED names the output file.
func TestWriteCraftedMetadata(t *testing.T) {
	path := os.Getenv("KSEG_WRITE_CRAFTED")
	if path == "" {
		t.Skip("KSEG_WRITE_CRAFTED not set")
	}
	b := batch.NewBuilder(batch.CodecNone)
	for _, c := range craftedMetadata {
		b.Append(1700000000000, nil, c.val, nil)
	}
	out, err := b.Build(nil, batch.Header{ProducerID: -1, ProducerEpoch: -1, BaseSequence: -1}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, out, 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestClusterMetadataCrafted(t *testing.T) {
	f, err := os.Open("testdata/metadata_crafted.golden")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	p := NewClusterMetadataParser()
	i := 0
	for ; sc.Scan(); i++ {
		if i >= len(craftedMetadata) {
			t.Fatalf("golden has more lines than the %d cases", len(craftedMetadata))
		}
		c := craftedMetadata[i]
		res, err := p.Parse(int64(i), []byte("ignored key"), c.val)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if res.HasKey || !res.HasPayload {
			t.Errorf("%s: result %+v", c.name, res)
		}
		if want := sc.Text(); res.Payload != want {
			t.Errorf("%s:\n got %s\nwant %s", c.name, res.Payload, want)
		}
	}
	if i != len(craftedMetadata) {
		t.Errorf("golden has %d lines for %d cases", i, len(craftedMetadata))
	}
}

func TestAppendJavaDouble(t *testing.T) {
	tests := []struct {
		in   float64
		want string
	}{
		{1048576, "1048576.0"}, {1e7, "1.0E7"}, {1e-3, "0.001"}, {9.99e-4, "9.99E-4"},
		{0, "0.0"}, {math.Copysign(0, -1), "-0.0"}, {-1.5, "-1.5"}, {123.456, "123.456"},
		{1.5e300, "1.5E300"}, {math.NaN(), `"NaN"`}, {math.Inf(-1), `"-Infinity"`},
	}
	for _, tc := range tests {
		if got := string(appendJavaDouble(nil, tc.in)); got != tc.want {
			t.Errorf("appendJavaDouble(%g) = %s, want %s", tc.in, got, tc.want)
		}
	}
}

func FuzzClusterMetadataParser(f *testing.F) {
	for _, c := range craftedMetadata {
		f.Add(c.val, c.val == nil)
	}
	p := NewClusterMetadataParser()
	f.Fuzz(func(t *testing.T, val []byte, null bool) {
		if null {
			val = nil
		}
		res, err := p.Parse(42, nil, val)
		if err != nil {
			t.Fatalf("error %v", err)
		}
		if res.HasKey || !res.HasPayload || !utf8.ValidString(res.Payload) || strings.ContainsAny(res.Payload, "\n\r") {
			t.Fatalf("bad result %+v", res)
		}
		if strings.HasPrefix(res.Payload, "Error at 42, skipping. ") {
			return
		}
		var v struct {
			Type    string          `json:"type"`
			Version int             `json:"version"`
			Data    json.RawMessage `json:"data"`
		}
		if err := json.Unmarshal([]byte(res.Payload), &v); err != nil || v.Type == "" || len(v.Data) == 0 {
			t.Fatalf("payload %q: %v", res.Payload, err)
		}
		// Decoding succeeded, so the frame is [1][apiKey][version].
		r := reader{b: val}
		if fv, _ := r.uvarint(); int16(fv) != 1 {
			t.Fatalf("frame version %d decoded: %q", fv, res.Payload)
		}
	})
}

func BenchmarkClusterMetadataParser(b *testing.B) {
	val := craftedMetadata[0].val
	for _, c := range craftedMetadata {
		if c.name == "register broker v0" {
			val = c.val
		}
	}
	p := NewClusterMetadataParser()
	b.ReportAllocs()
	b.SetBytes(int64(len(val)))
	for b.Loop() {
		if _, err := p.Parse(1, nil, val); err != nil {
			b.Fatal(err)
		}
	}
}
