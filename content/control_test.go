package content

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/kseg/kseg/batch"
)

// voter is a VotersRecord Voter with one endpoint per name/host/port triple.
func voter(id int32, dir string, endpoints ...any) string {
	e := enc{}.i32(id).append(dir).uv(uint32(len(endpoints)/3 + 1))
	for i := 0; i+2 < len(endpoints); i += 3 {
		e = e.cstr(endpoints[i].(string)).cstr(endpoints[i+1].(string)).i16(int16(endpoints[i+2].(int))).uv(0)
	}
	return string(e.i16(0).i16(1).uv(0).uv(0)) // kRaftVersionFeature 0..1, its tags, the voter's tags
}

// craftedControl are KRaft control record values that exercise the corners
// of ControlRecordUtils, the generated readers and JSON converters, and
// DumpLogSegments' printControlRecord. Kafka 4.4.0's rendering of each is in
// testdata/control_crafted.golden, one line per case in order: the JSON
// after the record line's label, or "! " and the exception kafka-dump-log
// stopped with. Each case is a segment of its own (a failing record stops
// kafka-dump-log); regenerate with
//
//	KSEG_WRITE_CRAFTED_CONTROL=/tmp/cc go test ./content -run TestWriteCraftedControl
//	source oracle/infra/common.sh; DUMP_CLASS=$(dump_class)
//	for d in /tmp/cc/*/; do out=$(cd $d && dumplog --files 00000000000000000000.log --deep-iteration 2>err) \
//	  && echo "$out" | sed -n 's/^| offset: .*headerKeys: \[\] [A-Za-z]*:* //p' \
//	  || head -1 $d/err | sed 's/^Exception in thread "main" /! /'; done >content/testdata/control_crafted.golden
var craftedControl = []struct {
	name string
	typ  int16
	val  []byte
}{
	{"snapshot header", 3, enc{}.i16(0).i64(1795976766803).uv(0)},
	{"snapshot header negative time", 3, enc{}.i16(0).i64(-1).uv(0)},
	{"snapshot footer", 4, enc{}.i16(0).uv(0)},
	{"snapshot footer version 7", 4, enc{}.i16(7).uv(0)},
	{"snapshot footer trailing bytes", 4, enc{}.i16(0).uv(0).append("\xde\xad\xbe\xef")},
	{"snapshot footer unknown tags", 4, enc{}.i16(0).uv(2).uv(0).uv(1).append("x").uv(9).uv(0)},
	{"kraft version 1", 5, enc{}.i16(0).i16(1).uv(0)},
	{"kraft version -3", 5, enc{}.i16(-3).i16(1).uv(0)},
	{"leader change", 2, enc{}.i16(0).i32(1).uv(2).i32(1).uv(0).uv(2).i32(1).uv(0).uv(0)},
	{"leader change three voters", 2, enc{}.i16(0).i32(-1).uv(4).i32(1).uv(0).i32(2).uv(0).i32(3).uv(0).uv(1).uv(0)},
	{"leader change version 1", 2, enc{}.i16(1).i32(1).uv(2).i32(1).uv(0).uv(2).i32(1).uv(0).uv(0)},
	{"leader change version 1 directory bytes", 2, enc{}.i16(1).i32(1).uv(2).i32(1).append(someID).uv(0).uv(1).uv(0)},
	{"leader change version -2", 2, enc{}.i16(-2).i32(1).uv(2).i32(1).uv(0).uv(1).uv(0)},
	{"leader change voter tags", 2, enc{}.i16(0).i32(5).uv(2).i32(5).uv(1).uv(3).uv(2).append("ab").uv(1).uv(1).uv(4).uv(0)},
	{"voters", 6, enc{}.i16(0).uv(3).
		append(voter(1, someID, "CONTROLLER", "localhost", 9093)).
		append(voter(2, zeroID, "CONTROLLER", "h\xff\x01\"ü", 65535, "SSL", "", 0)).uv(0)},
	{"voters duplicate endpoint names", 6, enc{}.i16(0).uv(2).append(voter(1, someID, "C", "h", 9093, "C", "i", 9094)).uv(0)},
	{"voters no endpoints", 6, enc{}.i16(0).uv(2).append(voter(1, someID)).uv(0)},
	{"voters none, version 3", 6, enc{}.i16(3).uv(1).uv(0)},
	{"empty snapshot header", 3, enc{}},
	{"empty leader change", 2, enc{}},
	{"snapshot footer missing tag section", 4, enc{}.i16(0)},
	{"snapshot header truncated", 3, enc{}.i16(0).i32(7)},
	{"kraft version truncated", 5, enc{}.i16(0).append("\x01")},
	{"leader change truncated voter", 2, enc{}.i16(0).i32(1).uv(2).append("\x00")},
	{"leader change null voters", 2, enc{}.i16(0).i32(1).uv(0).uv(1).uv(0)},
	{"leader change null granting voters", 2, enc{}.i16(0).i32(1).uv(1).uv(0).uv(0)},
	{"leader change huge count", 2, enc{}.i16(0).i32(1).append("\xff\xff\xff\xff\x07").uv(1).uv(0)},
	{"leader change varint too long", 2, enc{}.i16(0).i32(1).append("\xff\xff\xff\xff\xff\x01").uv(1).uv(0)},
	{"voters null endpoints", 6, enc{}.i16(0).uv(2).i32(1).append(someID).uv(0).i16(0).i16(1).uv(0).uv(0).uv(0)},
	{"voters null name", 6, enc{}.i16(0).uv(2).i32(1).append(someID).uv(2).uv(0).cstr("h").i16(1).uv(0).i16(0).i16(1).uv(0).uv(0).uv(0)},
	{"voters host past the end", 6, enc{}.i16(0).uv(2).i32(1).append(someID).uv(2).cstr("C").uv(10).append("h")},
	{"voters host too long", 6, enc{}.i16(0).uv(2).i32(1).append(someID).uv(2).cstr("C").cstr(strings.Repeat("h", 40000)).i16(1).uv(0).i16(0).i16(1).uv(0).uv(0).uv(0)},
	{"voters short directory id", 6, enc{}.i16(0).uv(2).i32(1).append("\x01\x02")},
	{"voters missing feature", 6, enc{}.i16(0).uv(2).i32(1).append(someID).uv(1).i16(0)},
	{"snapshot header negative tag count", 3, enc{}.i16(0).i64(16).append("\xff\xff\xff\xff\x0f")},
	{"snapshot footer too many tags", 4, enc{}.i16(0).uv(5).uv(1)},
	{"snapshot footer tag past the end", 4, enc{}.i16(0).uv(1).uv(5).uv(10)},
	{"snapshot footer negative tag size", 4, enc{}.i16(0).uv(1).uv(5).append("\xff\xff\xff\xff\x0f")},
}

// TestWriteCraftedControl writes each crafted record as a control batch in
// $KSEG_WRITE_CRAFTED_CONTROL/<nn>/00000000000000000000.log for kafka-dump-log.
func TestWriteCraftedControl(t *testing.T) {
	dir := os.Getenv("KSEG_WRITE_CRAFTED_CONTROL")
	if dir == "" {
		t.Skip("KSEG_WRITE_CRAFTED_CONTROL not set")
	}
	for i, c := range craftedControl {
		b := batch.NewBuilder(batch.CodecNone)
		b.Append(1700000000000, []byte{0, 0, byte(c.typ >> 8), byte(c.typ)}, c.val, nil)
		out, err := b.Build(nil, batch.Header{Attributes: 0x20, ProducerID: -1, ProducerEpoch: -1, BaseSequence: -1}, nil)
		if err != nil {
			t.Fatal(err)
		}
		d := filepath.Join(dir, fmt.Sprintf("%02d", i))
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(d, "00000000000000000000.log"), out, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

func TestControlRecordCrafted(t *testing.T) {
	f, err := os.Open("testdata/control_crafted.golden")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	i := 0
	for ; sc.Scan(); i++ {
		if i >= len(craftedControl) {
			t.Fatalf("golden has more lines than the %d cases", len(craftedControl))
		}
		c := craftedControl[i]
		dst := []byte("prefix ")
		out, ok, err := AppendControlRecord(dst, int64(i), c.typ, c.val)
		if !ok {
			t.Fatalf("%s: type %d not a KRaft control record", c.name, c.typ)
		}
		var got string
		if err != nil {
			ce, isCrash := err.(*CrashError)
			if !isCrash || ce.Offset != int64(i) {
				t.Errorf("%s: error %#v, want a *CrashError at offset %d", c.name, err, i)
			}
			if string(out) != "prefix " {
				t.Errorf("%s: failed append changed dst to %q", c.name, out)
			}
			got = "! " + err.Error()
		} else {
			got = strings.TrimPrefix(string(out), "prefix ")
		}
		if want := sc.Text(); got != want {
			t.Errorf("%s:\n got %s\nwant %s", c.name, got, want)
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	if i != len(craftedControl) {
		t.Errorf("golden has %d lines for %d cases", i, len(craftedControl))
	}
}

// TestControlRecordKafkaWritten renders the control records Kafka wrote in
// the __cluster_metadata fixtures and compares them with kafka-dump-log's
// record lines for the same files.
func TestControlRecordKafkaWritten(t *testing.T) {
	root := filepath.Join("..", "testdata", "segments")
	goldens, err := filepath.Glob(filepath.Join(root, "golden", "*", "__cluster_metadata-*", "*.deep.stdout"))
	if err != nil {
		t.Fatal(err)
	}
	types := map[int16]int{}
	for _, g := range goldens {
		rel, _ := filepath.Rel(filepath.Join(root, "golden"), g)
		seg := filepath.Join(root, strings.TrimSuffix(rel, ".deep.stdout"))
		if !strings.HasSuffix(seg, ".log") && !strings.HasSuffix(seg, ".checkpoint") {
			continue
		}
		want, err := os.ReadFile(g)
		if err != nil {
			t.Fatal(err)
		}
		data, err := os.ReadFile(seg)
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range controlRecords(t, data) {
			line, ok := recordLine(string(want), r.offset)
			if !ok {
				t.Errorf("%s offset %d: no record line in golden", rel, r.offset)
				continue
			}
			typ := int16(r.key[2])<<8 | int16(r.key[3])
			out, ok, err := AppendControlRecord(nil, r.offset, typ, r.value)
			if !ok || err != nil {
				t.Errorf("%s offset %d: type %d: ok %v, %v", rel, r.offset, typ, ok, err)
				continue
			}
			if !strings.HasSuffix(line, "] "+label[typ]+string(out)) {
				t.Errorf("%s offset %d:\n got %s\nwant %s", rel, r.offset, out, line)
			}
			types[typ]++
		}
	}
	// The fixtures hold a LeaderChange in the log and a snapshot header
	// and footer in the checkpoint; the other two types are covered by the
	// crafted golden.
	for _, typ := range []int16{2, 3, 4} {
		if types[typ] == 0 {
			t.Errorf("no Kafka-written control record of type %d found in %s", typ, root)
		}
	}
	t.Logf("control records checked by type: %v", types)
}

var label = map[int16]string{2: "LeaderChange: ", 3: "SnapshotHeader ", 4: "SnapshotFooter ", 5: "KRaftVersion ", 6: "KRaftVoters "}

type controlRec struct {
	offset     int64
	key, value []byte
}

// controlRecords returns the control records of a file of v2 batches.
func controlRecords(t *testing.T, data []byte) []controlRec {
	t.Helper()
	var out []controlRec
	var br batch.BatchReader
	for pos := 0; pos+batch.HeaderSize <= len(data); {
		h, err := batch.ParseHeader(data[pos:])
		if err != nil {
			t.Fatalf("at %d: %v", pos, err)
		}
		end := pos + int(h.Size())
		if end > len(data) {
			break
		}
		if h.IsControl() {
			if err := br.Open(data[pos:end], &h); err != nil {
				t.Fatalf("at %d: %v", pos, err)
			}
			var r batch.Record
			for {
				ok, err := br.Next(&r)
				if err != nil {
					t.Fatalf("at %d: %v", pos, err)
				}
				if !ok {
					break
				}
				out = append(out, controlRec{h.BaseOffset + int64(r.OffsetDelta), bytes.Clone(r.Key), bytes.Clone(r.Value)})
			}
		}
		pos = end
	}
	return out
}

// recordLine returns the golden's record line for offset.
func recordLine(golden string, offset int64) (string, bool) {
	start := fmt.Sprintf("\n| offset: %d ", offset)
	i := strings.Index(golden, start)
	if i < 0 {
		return "", false
	}
	line, _, _ := strings.Cut(golden[i+1:], "\n")
	return line, true
}

// TestControlSchemasWriteWhatTheyRead checks the assumption atWriteVersion
// makes: every field read at version 0 is written at every version.
func TestControlSchemasWriteWhatTheyRead(t *testing.T) {
	var walk func(s *schema)
	walk = func(s *schema) {
		for _, f := range s.fields {
			if f.versions.has(0) && f.versions.hi != maxVersion {
				t.Errorf("%s.%s: versions %v are read at 0 but not written at every version", s.name, f.name, f.versions)
			}
			if f.sub != nil {
				walk(f.sub)
			}
		}
	}
	for typ, s := range controlRecordSchemas {
		if s.fields[0].name != "version" || s.fields[0].kind != kInt16 {
			t.Errorf("type %d: %s does not start with its int16 version", typ, s.name)
		}
		walk(s)
	}
}

func TestControlRecordOtherTypes(t *testing.T) {
	for _, typ := range []int16{0, 1, 7, -1, 0x7fff} {
		out, ok, err := AppendControlRecord([]byte("x"), 0, typ, enc{}.i16(0).uv(0))
		if ok || err != nil || string(out) != "x" {
			t.Errorf("type %d: %q, %v, %v; want nothing appended", typ, out, ok, err)
		}
	}
}

func TestCrashErrorReason(t *testing.T) {
	for _, tc := range []struct {
		err  *CrashError
		want string
	}{
		{&CrashError{Class: bufferUnderflowExc}, "java.nio.BufferUnderflowException"},
		{&CrashError{Class: runtimeException, Message: "non-nullable field voters was serialized as null"}, "non-nullable field voters was serialized as null"},
		{&CrashError{Class: negativeArraySize, Message: "-1"}, "java.lang.NegativeArraySizeException: -1"},
	} {
		if got := tc.err.Reason(); got != tc.want {
			t.Errorf("%v: Reason %q, want %q", tc.err, got, tc.want)
		}
	}
}

// FuzzControlRecord feeds arbitrary values to the control record decoder:
// it must not panic, must leave dst alone on failure, and on success write
// one JSON object whose first member is the value's leading int16.
func FuzzControlRecord(f *testing.F) {
	for _, c := range craftedControl {
		f.Add(uint8(c.typ), c.val)
	}
	f.Fuzz(func(t *testing.T, typ uint8, val []byte) {
		dst := []byte("dst")
		out, ok, err := AppendControlRecord(dst, 9, int16(typ%8), val)
		if !ok {
			if typ%8 >= 2 && typ%8 <= 6 || err != nil || string(out) != "dst" {
				t.Fatalf("type %d: ok %v, err %v, out %q", typ%8, ok, err, out)
			}
			return
		}
		if err != nil {
			if ce, isCrash := err.(*CrashError); !isCrash || ce.Offset != 9 || ce.Class == "" || string(out) != "dst" {
				t.Fatalf("error %#v, out %q", err, out)
			}
			return
		}
		js := bytes.TrimPrefix(out, dst)
		if !utf8.Valid(js) || !json.Valid(js) || bytes.ContainsAny(js, "\n\r") {
			t.Fatalf("output %q is not one line of JSON", js)
		}
		want := fmt.Sprintf(`{"version":%d`, int16(val[0])<<8|int16(val[1]))
		if !bytes.HasPrefix(js, []byte(want)) {
			t.Fatalf("output %s does not start with %s", js, want)
		}
	})
}
