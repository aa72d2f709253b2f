package content_test

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/kseg/kseg/batch"
	"github.com/kseg/kseg/content"
)

// oracleSegments returns the repository's testdata/segments, whose
// kafka-dump-log goldens are committed with the code: the test fails when
// they are missing.
func oracleSegments(t *testing.T) string {
	t.Helper()
	dir := filepath.Join("..", "testdata", "segments")
	if st, err := os.Stat(filepath.Join(dir, "golden")); err != nil || !st.IsDir() {
		t.Fatalf("committed goldens missing: %s (%v)", filepath.Join(dir, "golden"), err)
	}
	return dir
}

type rec struct {
	offset     int64
	key, value []byte
	control    bool
}

// readLog walks the v2 batches of a segment file with package batch.
func readLog(t *testing.T, path string) []rec {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var out []rec
	var br batch.BatchReader
	for pos := 0; pos+batch.HeaderSize <= len(data); {
		h, err := batch.ParseHeader(data[pos:])
		if err != nil {
			t.Fatalf("%s at %d: %v", path, pos, err)
		}
		end := pos + int(h.Size())
		if end > len(data) {
			break
		}
		if h.Magic != 2 {
			t.Fatalf("%s at %d: magic %d", path, pos, h.Magic)
		}
		if err := br.Open(data[pos:end], &h); err != nil {
			t.Fatalf("%s at %d: %v", path, pos, err)
		}
		var r batch.Record
		for {
			ok, err := br.Next(&r)
			if err != nil {
				t.Fatalf("%s at %d: %v", path, pos, err)
			}
			if !ok {
				break
			}
			out = append(out, rec{
				offset:  h.BaseOffset + int64(r.OffsetDelta),
				key:     clone(r.Key),
				value:   clone(r.Value),
				control: h.IsControl(),
			})
		}
		pos = end
	}
	return out
}

func clone(b []byte) []byte {
	if b == nil {
		return nil
	}
	return append([]byte{}, b...)
}

// recordChunk returns the golden text of the record line for offset: from
// "| offset: <o> " to the next record or batch line (a value holding a
// newline spans several lines).
func recordChunk(golden string, offset int64) (string, bool) {
	start := "| offset: " + strconv.FormatInt(offset, 10) + " "
	i := strings.Index(golden, "\n"+start)
	if i < 0 {
		return "", false
	}
	rest := golden[i+1:]
	end := len(rest)
	for _, next := range []string{"\n| offset: ", "\nbaseOffset: "} {
		if j := strings.Index(rest, next); j >= 0 && j < end {
			end = j
		}
	}
	return strings.TrimSuffix(rest[:end], "\n"), true
}

func TestGoldenDumpLog(t *testing.T) {
	root := oracleSegments(t)
	cases := []struct {
		suffix string // golden file suffix after the segment name
		parser func() content.Parser
	}{
		{".offsets-decoder.stdout", content.NewOffsetsParser},
		{".transaction-log-decoder.stdout", content.NewTransactionLogParser},
		{".cluster-metadata-decoder.stdout", content.NewClusterMetadataParser},
		{".data.stdout", func() content.Parser {
			p, err := content.NewStringParser("org.apache.kafka.tools.api.StringDecoder", "org.apache.kafka.tools.api.StringDecoder")
			if err != nil {
				t.Fatal(err)
			}
			return p
		}},
	}
	for _, c := range cases {
		goldens, err := filepath.Glob(filepath.Join(root, "golden", "*", "*", "*.log"+c.suffix))
		if err != nil {
			t.Fatal(err)
		}
		checked := 0
		for _, g := range goldens {
			rel, _ := filepath.Rel(filepath.Join(root, "golden"), g)
			logPath := filepath.Join(root, strings.TrimSuffix(rel, c.suffix))
			if strings.Contains(rel, "__cluster_metadata") != (c.suffix == ".cluster-metadata-decoder.stdout") {
				continue // cluster-metadata records are only for their decoder
			}
			checked++
			t.Run(rel, func(t *testing.T) {
				want, err := os.ReadFile(g)
				if err != nil {
					t.Fatal(err)
				}
				golden := "\n" + string(want)
				p := c.parser()
				n := 0
				for _, r := range readLog(t, logPath) {
					if r.control {
						continue
					}
					chunk, ok := recordChunk(golden, r.offset)
					if !ok {
						t.Errorf("offset %d: no record line in golden", r.offset)
						continue
					}
					res, err := p.Parse(r.offset, r.key, r.value)
					if err != nil {
						t.Errorf("offset %d: %v", r.offset, err)
						continue
					}
					var sb strings.Builder
					if res.HasKey {
						sb.WriteString(" key: " + res.Key)
					}
					if res.HasPayload {
						sb.WriteString(" payload: " + res.Payload)
					}
					if !strings.HasSuffix(chunk, "]"+sb.String()) {
						t.Errorf("offset %d:\n got: ...%s\nwant: %s", r.offset, sb.String(), chunk)
					}
					n++
				}
				if n == 0 {
					t.Errorf("%s has no data record, so its golden checks nothing", logPath)
				}
				t.Logf("%d records match", n)
			})
		}
		if checked == 0 {
			t.Errorf("no golden *.log%s under %s", c.suffix, filepath.Join(root, "golden"))
		}
	}
}
