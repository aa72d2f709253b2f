package segment

import (
	"bufio"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/kseg/kseg/batch"
	"github.com/kseg/kseg/internal/realworld"
)

// provenanceRow matches the segment rows of the corpus's provenance file
// tables, which an independent Python decoder wrote.
var provenanceRow = regexp.MustCompile("^\\| `([^`]+)` \\| [0-9a-f]+ \\| \\d+ \\| (?:segment|KRaft snapshot \\(\\.checkpoint\\)): " +
	`(\d+) top-level entries, magic \[[^\]]*\], codec \[[^\]]*\], records (\d+), offsets [^,]*, control batches (\d+)[^,]*, ` +
	`transactional (\d+), headers (\d+), producerIds [^|]*?, CRC (all valid|[^,]*), trailing bytes (\d+) \|`)

type provenanceFacts struct {
	path                                              string
	entries, records, control, txn, headers, trailing int
	crcAllValid                                       bool
}

func readProvenance(t *testing.T, root string) []provenanceFacts {
	f, err := os.Open(filepath.Join(root, "PROVENANCE.md"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []provenanceFacts
	section := ""
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		line := sc.Text()
		if strings.HasPrefix(line, "### ") {
			section = strings.TrimPrefix(line, "### ")
			continue
		}
		m := provenanceRow.FindStringSubmatch(line)
		if m == nil {
			continue
		}
		n := func(i int) int { v, _ := strconv.Atoi(m[i]); return v }
		out = append(out, provenanceFacts{
			path: filepath.Join(section, m[1]), entries: n(2), records: n(3), control: n(4), txn: n(5),
			headers: n(6), crcAllValid: m[7] == "all valid", trailing: n(8),
		})
	}
	return out
}

// TestRealWorldSegments decodes every broker-written log of the corpus and
// checks the independent decoder's counts.
func TestRealWorldSegments(t *testing.T) {
	root := realworld.Dir(t)
	rows := readProvenance(t, root)
	if len(rows) < 40 {
		t.Fatalf("parsed only %d segment rows from PROVENANCE.md", len(rows))
	}
	for _, want := range rows {
		want := want
		t.Run(want.path, func(t *testing.T) {
			f, err := OpenFile(filepath.Join(root, "segments", want.path), 0, Options{})
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			var rec batch.Record
			entries, records, control, txn, headers, crcOK := 0, 0, 0, 0, 0, true
			for f.Next() {
				e := f.Batch()
				entries++
				raw, err := e.Bytes()
				if err != nil {
					t.Fatal(err)
				}
				if e.Magic < 2 {
					m, err := e.Legacy()
					if err != nil {
						t.Fatal(err)
					}
					crcOK = crcOK && m.Valid()
					inner, err := e.Inner()
					if err != nil {
						t.Fatal(err)
					}
					records += len(inner)
					continue
				}
				crcOK = crcOK && batch.ValidCRC(raw)
				if e.Header.IsControl() {
					control++
				}
				if e.Header.IsTransactional() {
					txn++
				}
				br, err := e.Records()
				if err != nil {
					t.Fatalf("batch at %d: %v", e.Pos, err)
				}
				for {
					ok, err := br.Next(&rec)
					if err != nil {
						t.Fatalf("batch at %d: %v", e.Pos, err)
					}
					if !ok {
						break
					}
					records++
					headers += len(rec.Headers)
				}
			}
			if err := f.Err(); err != nil {
				t.Fatal(err)
			}
			trailing := int(f.Size() - f.Tail())
			got := provenanceFacts{path: want.path, entries: entries, records: records, control: control, txn: txn,
				headers: headers, trailing: trailing, crcAllValid: crcOK}
			if got != want {
				t.Errorf("got  %+v\nwant %+v", got, want)
			}
		})
	}
}
