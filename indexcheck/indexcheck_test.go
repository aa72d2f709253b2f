package indexcheck

import (
	"errors"
	"path/filepath"
	"testing"

	"github.com/kseg/kseg/index"
	"github.com/kseg/kseg/segment"
)

// TestKafkaWrittenIndexes: on indexes a Kafka 4.4 leader wrote, every
// offset index entry points at the batch whose last offset it names, and
// every time index entry's batch holds a record with exactly its timestamp.
func TestKafkaWrittenIndexes(t *testing.T) {
	matches, _ := filepath.Glob(filepath.Join("..", "testdata", "segments", "seed", "*", "00000000000000000000.index"))
	if len(matches) == 0 {
		t.Fatal("no committed index fixtures") // committed: missing is a failure
	}
	entries := 0
	for _, name := range matches {
		log, err := OpenLog(name, 0)
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
			if b.LastOffset != e.Offset || !LookupHolds(e.Offset, b) || b.Pos != int64(e.Position) {
				t.Errorf("%s: entry %+v leads to batch %+v", name, e, b)
			}
			entries++
		}
		idx.Close()
		tidx, err := index.OpenTimeIndex(Companion(name, ".timeindex"))
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
	_, err := OpenLog(filepath.Join(t.TempDir(), "00000000000000000000.index"), 0)
	var se *segment.Error
	if !errors.Is(err, ErrMissingLog) || !errors.As(err, &se) || se.Offset != -1 {
		t.Fatalf("missing log: %v", err)
	}
	matches, _ := filepath.Glob(filepath.Join("..", "testdata", "segments", "seed", "*", "00000000000000000000.index"))
	log, err := OpenLog(matches[0], 0)
	if err != nil {
		t.Fatal(err)
	}
	defer log.Close()
	if _, err := log.BatchAt(log.Size()+1, 100); !errors.As(err, &se) || se.Offset != log.Size()+1 {
		t.Fatalf("position past the end: %v", err)
	}
}
