package dump

import (
	"bytes"
	"io"
	"os"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/kseg/kseg/segment"
)

const nonZeroBase = "../../testdata/segments/segments/segments-0/00000000000000000142.log"

// TestNonConsecutiveFileStart: Kafka 4.4 starts every file at offset -1,
// so a segment whose base offset is not 0 gets "-1 is followed by 142".
// The --files form keeps that line; kseg's own forms (--format kseg and
// the JSON finding) reported it too before the fix, for every such segment.
func TestNonConsecutiveFileStart(t *testing.T) {
	for _, c := range []struct {
		format Format
		want   bool
	}{{FormatKafka, true}, {FormatKseg, false}, {FormatJSON, false}} {
		opts := DefaultDumpOptions()
		opts.DeepIteration, opts.Format = true, c.format
		for _, workers := range []int{1, 4} {
			so, se, errText := dumpWith(t, workers, []string{nonZeroBase}, opts)
			if errText != "" {
				t.Fatal(errText)
			}
			got := strings.Contains(se, "-1 is followed by 142") || strings.Contains(so, `"previous_offset":-1`)
			if got != c.want {
				t.Errorf("format %d, %d workers: file-start finding %v, want %v\nstdout %.400s\nstderr %s", c.format, workers, got, c.want, so, se)
			}
		}
	}
}

// rangedReader is a fetched segment's reader as internal/wire serves it:
// whole batches around the offsets asked for.
type rangedReader struct {
	io.ReaderAt
	from, to int64
}

func (r rangedReader) OffsetRange() (int64, int64) { return r.from, r.to }

// TestRangeTrimsRecords: a source fetched for offsets [from, to) holds
// the whole batches around them; the dump prints only the records in the
// range and says so on the batch line. Before the fix it printed every
// record of the batch (over kafka://, --from 100 --to 102 printed 52–103),
// and named the segment by a cleaned path (".../kafka:/host:port/...").
func TestRangeTrimsRecords(t *testing.T) {
	data, err := os.ReadFile(nonZeroBase)
	if err != nil {
		t.Fatal(err)
	}
	// Choose a range inside the segment's first multi-record batch.
	st := segment.NewStream(segment.BytesSource("x", data), segment.Options{})
	var from, to, base, last, end int64 = -1, -1, -1, -1, -1
	for st.Next() {
		h := st.Batch().Header
		if h.RecordCount >= 3 {
			base, last, end = h.BaseOffset, h.LastOffset(), st.Batch().Pos+st.Batch().Size
			from, to = base+1, base+2
			break
		}
	}
	data = data[:end] // a fetch ends with the batch that holds to-1
	if from < 0 {
		t.Fatal("no batch of 3+ records in the fixture")
	}
	name := "kafka://127.0.0.1:9092/segments-0/" + strings.Repeat("0", 17) + "142.log"
	seg := segment.Segment{Path: name, BaseOffset: 142, Open: func() (segment.Source, io.Closer, error) {
		return segment.Source{Name: name, R: rangedReader{bytes.NewReader(data), from, to}, Size: -1}, nil, nil
	}}
	for _, format := range []Format{FormatKafka, FormatKseg, FormatJSON} {
		opts := DefaultDumpOptions()
		opts.DeepIteration, opts.Format = true, format
		var so, se bytes.Buffer
		d := NewDumper(opts, &so, &se)
		if err := d.Dump(seg); err != nil {
			t.Fatal(err)
		}
		if err := d.Finish(); err != nil {
			t.Fatal(err)
		}
		out := so.String()
		offs := regexp.MustCompile(`(?m)(?:^\| offset: |"offset":)(\d+)`).FindAllStringSubmatch(out, -1)
		var got []string
		for _, m := range offs {
			got = append(got, m[1])
		}
		if strings.Join(got, ",") != i64toa(from) {
			t.Errorf("format %d: record offsets %v, want only %d (the batch holds %d..%d)\n%s", format, got, from, base, last, out)
		}
		note := " kseg-shown: records at offsets " + i64toa(from) + ".." + i64toa(to-1) + " only (--from/--to)"
		if format == FormatJSON {
			note = `"shown_from":` + i64toa(from) + `,"shown_to":` + i64toa(to)
		}
		if strings.Count(out, note) != 1 {
			t.Errorf("format %d: want the batch line to note the range once (%q)\n%s", format, note, out)
		}
		if strings.Contains(out+se.String(), "kafka:/1") {
			t.Errorf("format %d: the URL was cleaned as a path:\n%s%s", format, out, se.String())
		}
		if format == FormatKafka && !strings.Contains(out, "Dumping "+name+"\n") {
			t.Errorf("Dumping line does not name %s:\n%s", name, out)
		}
	}
}

func i64toa(n int64) string { return strconv.FormatInt(n, 10) }
