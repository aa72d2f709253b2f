package dump

import (
	"bytes"
	"encoding/binary"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/kseg/kseg/batch"
	"github.com/kseg/kseg/internal/realworld"
	"github.com/kseg/kseg/segment"
)

// batchStarts returns the positions of the v2 batches in seg.
func batchStarts(seg []byte) []int {
	var out []int
	for p := 0; p+batch.HeaderSize <= len(seg); {
		out = append(out, p)
		p += int(binary.BigEndian.Uint32(seg[p+8:])) + batch.LogOverhead
	}
	return out
}

func writeSeg(t *testing.T, data []byte) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "00000000000000000000.log")
	if err := os.WriteFile(p, data, 0o444); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestKeepGoingBadRecords: a batch whose records do not decode is reported
// once and the scan continues with the very next batch (regression: the
// resync started one byte past the next batch and dropped it).
func TestKeepGoingBadRecords(t *testing.T) {
	for _, codec := range []batch.Codec{batch.CodecNone, batch.CodecGzip, batch.CodecZstd} {
		seg := genSegment(t, 5, 4, 30, codec)
		starts := batchStarts(seg)
		bad := starts[2]
		binary.BigEndian.PutUint32(seg[bad+57:], 9) // 9 records declared, 4 present
		batch.SetCRC(seg[bad:starts[3]])
		path := writeSeg(t, seg)
		for _, format := range []Format{FormatKafka, FormatJSON} {
			var out, errw bytes.Buffer
			d := NewDumper(fuzzDumpOptions(t, format, true), &out, &errw)
			if err := d.Dump(File(path)); err != nil {
				t.Fatalf("%v/%d: Dump under --keep-going: %v", codec, format, err)
			}
			d.Finish()
			if d.Issues() != 1 {
				t.Errorf("%v/%d: %d issues, want 1", codec, format, d.Issues())
			}
			recLines, batchLines := "| offset: ", "baseOffset: "
			region := "corrupt region in " + path + ": bytes " + itoa(bad) + ".." + itoa(starts[3]) + " skipped"
			where := errw.String()
			if format == FormatJSON {
				recLines, batchLines = `"type":"record"`, `"type":"batch"`
				region = `"code":"corrupt-region","position":` + itoa(bad) + `,"end":` + itoa(starts[3])
				where = out.String()
			}
			if n := strings.Count(out.String(), batchLines); n != 5 {
				t.Errorf("%v/%d: %d batches dumped, want 5", codec, format, n)
			}
			if n := strings.Count(out.String(), recLines); n != 4*4+4 {
				t.Errorf("%v/%d: %d records dumped, want 20 (the bad batch's 4, then the error)", codec, format, n)
			}
			if !strings.Contains(where, region) {
				t.Errorf("%v/%d: no %q in\n%s", codec, format, region, where)
			}
		}
	}
}

// TestCompressedRecordErrorLocated: an error deep in a compressed batch's
// records is located inside the file, at the batch's payload.
func TestCompressedRecordErrorLocated(t *testing.T) {
	seg := genSegment(t, 2, 500, 100, batch.CodecLZ4)
	starts := batchStarts(seg)
	binary.BigEndian.PutUint32(seg[starts[1]+57:], 501)
	batch.SetCRC(seg[starts[1]:])
	path := writeSeg(t, seg)
	var out, errw bytes.Buffer
	d := NewDumper(fuzzDumpOptions(t, FormatKafka, false), &out, &errw)
	err := d.Dump(File(path))
	var se *segment.Error
	if !errors.As(err, &se) {
		t.Fatalf("want a *segment.Error, got %v", err)
	}
	if want := int64(starts[1] + batch.HeaderSize); se.Offset != want || se.File != path {
		t.Fatalf("error at %s:%d, want %s:%d (%v)", se.File, se.Offset, path, want, err)
	}
	if !errors.Is(err, batch.ErrTruncated) {
		t.Fatalf("cause lost: %v", err)
	}
}

func itoa(n int) string { return strconv.Itoa(n) }

// TestLegacyBadValueSize: a legacy message whose value length overruns it
// prints its record line from the raw length fields, as Kafka does; only
// reading the contents (--print-data-log) fails.
func TestLegacyBadValueSize(t *testing.T) {
	src, err := os.ReadFile(filepath.Join(realworld.Dir(t), "segments/xpxwo100__bullShit/tmp/kafka-logs/topic1-0/00000000000000000000.log"))
	if err != nil {
		t.Skip(err)
	}
	data := bytes.Clone(src)
	binary.BigEndian.PutUint32(data[43+30:], 1000) // second message's value length
	path := writeSeg(t, data)
	const line = "| offset: 1 CreateTime: 1479457585646 keySize: -1 valueSize: 1000 isValid: false crc: 2645227045"
	for _, print := range []bool{false, true} {
		opts := fuzzDumpOptions(t, FormatKafka, false)
		opts.PrintDataLog = print
		var out bytes.Buffer
		d := NewDumper(opts, &out, io.Discard)
		err := d.Dump(File(path))
		d.Finish()
		if !strings.Contains(out.String(), line) {
			t.Errorf("print=%v: no %q in\n%s", print, line, out.String())
		}
		if print {
			var se *segment.Error
			if !errors.As(err, &se) || se.Offset != 43+30 || !strings.HasSuffix(out.String(), line) {
				t.Errorf("print=%v: want the line unterminated and an error at byte 73, got %v", print, err)
			}
		} else if err != nil || strings.Count(out.String(), "| offset: ") != 5 {
			t.Errorf("print=%v: want all 5 records and no error, got %v", print, err)
		}
	}
}
