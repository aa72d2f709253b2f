package dump

import (
	"encoding/binary"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kseg/kseg/index"
	"github.com/kseg/kseg/segment"
)

// TestKafkaWrittenIndexes: on indexes a Kafka 4.4 leader wrote, every
// offset index entry points at the batch whose last offset it names, and
// every time index entry's batch holds a record with exactly its timestamp.
func TestKafkaWrittenIndexes(t *testing.T) {
	matches, _ := filepath.Glob(filepath.Join("..", "..", "testdata", "segments", "seed", "*", "00000000000000000000.index"))
	if len(matches) == 0 {
		t.Fatal("no committed index fixtures") // committed: missing is a failure
	}
	entries := 0
	for _, name := range matches {
		log, err := openIndexLog(name, 0, false)
		if err != nil {
			t.Fatal(err)
		}
		idx, err := index.OpenOffsetIndex(name)
		if err != nil {
			t.Fatal(err)
		}
		for it := idx.Iter(); it.Next(); {
			e := it.Entry()
			b, err := log.BatchAt(int64(e.Position), 5<<20)
			if err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			if b.LastOffset != e.Offset || !lookupHolds(e.Offset, b) || b.Pos != int64(e.Position) {
				t.Errorf("%s: entry %+v leads to batch %+v", name, e, b)
			}
			entries++
		}
		idx.Close()
		tidx, err := index.OpenTimeIndex(companion(name, ".timeindex"))
		if err != nil {
			t.Fatal(err)
		}
		for it := tidx.Iter(); it.Next(); {
			e := it.Entry()
			b, raw, err := log.FirstEnding(0, e.Offset)
			if err != nil || b == nil {
				t.Fatalf("%s: time entry %+v: batch %v err %v", name, e, b, err)
			}
			ts, err := log.MaxRecordTimestamp(b, raw)
			if err != nil || ts != e.Timestamp {
				t.Errorf("%s: time entry %+v: batch max timestamp %d (err %v)", name, e, ts, err)
			}
			entries++
		}
		tidx.Close()
		log.Close()
	}
	if entries == 0 {
		t.Fatal("no index entries checked")
	}
}

func TestMissingLogAndSlice(t *testing.T) {
	_, err := openIndexLog(filepath.Join(t.TempDir(), "00000000000000000000.index"), 0, false)
	var se *segment.Error
	if !errors.Is(err, ErrMissingLog) || !errors.As(err, &se) || se.Offset != -1 {
		t.Fatalf("missing log: %v", err)
	}
	matches, _ := filepath.Glob(filepath.Join("..", "..", "testdata", "segments", "seed", "*", "00000000000000000000.index"))
	log, err := openIndexLog(matches[0], 0, false)
	if err != nil {
		t.Fatal(err)
	}
	defer log.Close()
	if _, err := log.BatchAt(log.Size()+1, 100); !errors.As(err, &se) || se.Offset != log.Size()+1 {
		t.Fatalf("position past the end: %v", err)
	}
}

// TestLogErrorsLocatedInTheLog: a failure reading the log is located at
// the log's own byte, counted from its start, not from the slice an index
// entry began.
func TestLogErrorsLocatedInTheLog(t *testing.T) {
	matches, _ := filepath.Glob(filepath.Join("..", "..", "testdata", "segments", "seed", "*", "00000000000000000000.log"))
	var raw []byte
	var starts []int64
	for _, m := range matches {
		b, err := os.ReadFile(m)
		if err != nil {
			t.Fatal(err)
		}
		starts = starts[:0]
		for pos := int64(0); pos+12 <= int64(len(b)); pos += 12 + int64(binary.BigEndian.Uint32(b[pos+8:])) {
			starts = append(starts, pos)
		}
		if len(starts) >= 3 {
			raw = b
			break
		}
	}
	if raw == nil {
		t.Fatal("no committed seed log with three batches")
	}
	// The third batch claims a length shorter than any batch header.
	binary.BigEndian.PutUint32(raw[starts[2]+8:], 5)
	dir := t.TempDir()
	name := filepath.Join(dir, "00000000000000000000.timeindex")
	if err := os.WriteFile(filepath.Join(dir, "00000000000000000000.log"), raw, 0o644); err != nil {
		t.Fatal(err)
	}
	log, err := openIndexLog(name, 0, false)
	if err != nil {
		t.Fatal(err)
	}
	defer log.Close()
	_, _, err = log.FirstEnding(starts[1], 1<<40)
	var se *segment.Error
	if !errors.As(err, &se) {
		t.Fatalf("want a located error, got %v", err)
	}
	if se.File != filepath.Join(dir, "00000000000000000000.log") || se.Offset != starts[2]+8 {
		t.Errorf("error located at %s byte %d, want the .log at byte %d (the size field): %v", se.File, se.Offset, starts[2]+8, err)
	}
}

// No whole batch at an indexed position: Kafka's NoSuchElementException in
// its form (--files), plain words in kseg's.
func TestNoBatchAtPositionWording(t *testing.T) {
	matches, _ := filepath.Glob(filepath.Join("..", "..", "testdata", "segments", "seed", "*", "00000000000000000000.index"))
	for _, kafka := range []bool{false, true} {
		log, err := openIndexLog(matches[0], 0, kafka)
		if err != nil {
			t.Fatal(err)
		}
		_, err = log.BatchAt(log.Size(), 100)
		log.Close()
		if err == nil || !strings.Contains(err.Error(), "no whole batch at the indexed position") ||
			strings.Contains(err.Error(), "java.util.NoSuchElementException") != kafka {
			t.Errorf("kafka form %v: %v", kafka, err)
		}
	}
	_, err := openIndexLog(filepath.Join(t.TempDir(), "00000000000000000000.index"), 0, true)
	if err == nil || !strings.Contains(err.Error(), "java.nio.file.NoSuchFileException: ") {
		t.Errorf("kafka form, missing log: %v", err)
	}
}
