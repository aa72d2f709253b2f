package dump

import (
	"bytes"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kseg/kseg/batch"
	"github.com/kseg/kseg/content"
)

// parseOnly hides a parser's Appender, so the dump takes its Parse path.
type parseOnly struct{ p content.Parser }

func (p parseOnly) Parse(off int64, k, v []byte) (content.Result, error) { return p.p.Parse(off, k, v) }

// awkwardSegment has keys and values that JSON escapes at every position
// of an 8-byte word, invalid UTF-8, non-ASCII text and null keys.
func awkwardSegment(t *testing.T) string {
	t.Helper()
	var out []byte
	var c batch.Compressor
	b := batch.NewBuilder(batch.CodecNone)
	vals := []string{"", "plain ascii value of some length", "é ü 中文", "\xff\xfe bad utf-8", "tab\there", "0123456789abcdef"}
	for i, special := range []string{`"`, `\`, "\n", "\x01", "\x1f"} {
		for pos := 0; pos < 18; pos++ {
			v := []byte(strings.Repeat("v", 20))
			copy(v[pos:], special)
			vals = append(vals, string(v))
			_ = i
		}
	}
	for i, v := range vals {
		var key []byte
		if i%3 != 0 {
			key = []byte("key\"" + v)
		}
		b.Append(1700000000000+int64(i), key, []byte(v), nil)
	}
	out, err := b.Build(out, batch.Header{ProducerID: -1, ProducerEpoch: -1, BaseSequence: -1}, &c)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "00000000000000000000.log")
	if err := os.WriteFile(path, out, 0o444); err != nil {
		t.Fatal(err)
	}
	return path
}

func dumpJSON(t *testing.T, path string, format Format, parser content.Parser, workers int) string {
	t.Helper()
	opts := fuzzDumpOptions(t, format, false)
	if parser != nil {
		opts.Parser = parser
	}
	var out bytes.Buffer
	d := NewDumper(opts, &out, io.Discard)
	d.workers = workers
	if err := d.Dump(File(path)); err != nil {
		t.Fatal(err)
	}
	if err := d.Finish(); err != nil {
		t.Fatal(err)
	}
	return out.String()
}

// TestJSONSchemas: schema 2 is schema 1 with each file named once, in a
// file object before its body; records rendered in place (Appender) are
// the ones rendered through Parse; every line is JSON.
func TestJSONSchemas(t *testing.T) {
	path := awkwardSegment(t)
	v1 := dumpJSON(t, path, FormatJSONv1, nil, 1)
	v2 := dumpJSON(t, path, FormatJSON, nil, 1)
	p, err := content.NewStringParser("", "")
	if err != nil {
		t.Fatal(err)
	}
	if viaParse := dumpJSON(t, path, FormatJSON, parseOnly{p}, 1); viaParse != v2 {
		t.Fatalf("records rendered in place differ from Parse's:\n%s\nwant\n%s", v2, viaParse)
	}
	if strings.Contains(v1, `"type":"file"`) {
		t.Fatal("schema 1 has a file object")
	}
	lines := strings.Split(strings.TrimSuffix(v2, "\n"), "\n")
	wantFile := `{"type":"file","file":` + string(content.AppendJSONString(nil, path)) + `,"schema":2}`
	if lines[0] != wantFile {
		t.Fatalf("first line %s, want %s", lines[0], wantFile)
	}
	// Put the name back on each body object: that is schema 1.
	var back []string
	fileField := `,"file":` + string(content.AppendJSONString(nil, path))
	for _, l := range lines[1:] {
		if !json.Valid([]byte(l)) {
			t.Fatalf("not JSON: %s", l)
		}
		i := strings.Index(l, `",`)
		back = append(back, l[:i+1]+fileField+l[i+1:])
	}
	if got := strings.Join(back, "\n") + "\n"; got != v1 {
		t.Fatalf("schema 2 with the file put back:\n%s\nschema 1:\n%s", got, v1)
	}
	for _, want := range []string{`"payload":"vvvvv\"`, `"payload":"vv\\vv`, `\u0001`, `\u001F`, `"é ü 中文"`, `"payload":"tab\there"`} {
		if !strings.Contains(v2, want) {
			t.Errorf("output lacks %s", want)
		}
	}
}
