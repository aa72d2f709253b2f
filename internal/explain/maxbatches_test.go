package explain

import (
	"path/filepath"
	"testing"
	"time"

	"github.com/kseg/kseg/producer"
	"github.com/kseg/kseg/segment"
)

func seedPartitions(t *testing.T, names ...string) []segment.Partition {
	t.Helper()
	var dirs []string
	for _, n := range names {
		dirs = append(dirs, filepath.Join("..", "..", "testdata", "segments", "seed", n))
	}
	parts, err := segment.Partitions(dirs)
	if err != nil {
		t.Fatal(err)
	}
	return parts
}

// A partition past its share of MaxBatches is explained from its first
// batches, says where it stopped, and the batches it did read get the
// same settings as when it is read whole.
func TestExplainMaxBatches(t *testing.T) {
	parts := seedPartitions(t, "u05-small-0") // 25 batches of 8 records, batch.size 1024
	whole, err := Run(parts)
	if err != nil {
		t.Fatal(err)
	}
	if len(whole.Unread) != 0 || len(whole.Batches) != 25 {
		t.Fatalf("read whole: %d batches, unread %+v", len(whole.Batches), whole.Unread)
	}
	for _, tc := range []struct {
		max, read int
	}{{25, 25}, {1000, 25}, {10, 10}, {1, 1}} {
		res, err := RunWith(parts, Options{MaxBatches: tc.max})
		if err != nil {
			t.Fatal(err)
		}
		if len(res.Batches) != tc.read {
			t.Errorf("MaxBatches %d: %d batches explained, want %d", tc.max, len(res.Batches), tc.read)
			continue
		}
		if tc.read == 25 {
			if len(res.Unread) != 0 {
				t.Errorf("MaxBatches %d: unread %+v, want none", tc.max, res.Unread)
			}
			continue
		}
		want := Unread{Topic: "u05-small", Partition: 0, Read: tc.read, From: whole.Batches[tc.read].BaseOffset}
		if len(res.Unread) != 1 || res.Unread[0] != want {
			t.Errorf("MaxBatches %d: unread %+v, want %+v", tc.max, res.Unread, want)
		}
		for i, b := range res.Batches {
			if b.BaseOffset != whole.Batches[i].BaseOffset {
				t.Fatalf("MaxBatches %d: batch %d at offset %d, want %d", tc.max, i, b.BaseOffset, whole.Batches[i].BaseOffset)
			}
		}
	}
	ten, err := RunWith(parts, Options{MaxBatches: 10})
	if err != nil {
		t.Fatal(err)
	}
	got, want := ten.Producers[0].Settings.BatchSize, whole.Producers[0].Settings.BatchSize
	if got == nil || want == nil || got.Likely != want.Likely || got.Min > 1024 || got.Max < 1024 {
		t.Errorf("batch.size from 10 batches %+v, from 25 %+v: want both to hold 1024", got, want)
	}
}

// Partitions of a topic share MaxBatches and end together: none holds a
// batch begun after the last record read of the one that was stopped, so
// a sticky producer's partitions cover the same stretch of its records.
func TestExplainMaxBatchesEndsTogether(t *testing.T) {
	// a sticky producer on 3 partitions, a record every 200 µs
	cfg := producer.DefaultConfig()
	cfg.Records, cfg.ValueSize, cfg.BatchSize, cfg.Partitions = 3000, 100, 1024, 3
	cfg.SendInterval = 200 * time.Microsecond
	parts := writeModelLog(t, cfg)
	whole, err := Run(parts)
	if err != nil {
		t.Fatal(err)
	}
	res, err := RunWith(parts, Options{MaxBatches: 90}) // shares 30, 30, 30
	if err != nil {
		t.Fatal(err)
	}
	end := int64(-1)
	byPart := map[int32][]*Batch{}
	for _, b := range whole.Batches {
		byPart[b.Partition] = append(byPart[b.Partition], b)
	}
	for _, u := range res.Unread {
		if u.Read == 30 {
			if last := byPart[u.Partition][29].LastTs; end < 0 || last < end {
				end = last
			}
		}
	}
	if end < 0 {
		t.Fatalf("no partition stopped at its share: %+v", res.Unread)
	}
	explained := map[int32]int{}
	for _, b := range res.Batches {
		explained[b.Partition]++
		if b.FirstTs > end {
			t.Errorf("%d@%d begins at %d, after the end %d of the partition stopped first", b.Partition, b.BaseOffset, b.FirstTs, end)
		}
	}
	if len(res.Unread) != 3 {
		t.Fatalf("unread %+v: want every partition cut short", res.Unread)
	}
	for _, u := range res.Unread {
		bs := byPart[u.Partition]
		if u.Read != explained[u.Partition] || u.Read >= len(bs) || bs[u.Read].BaseOffset != u.From || bs[u.Read].FirstTs <= end && u.Read < 30 {
			t.Errorf("partition %d: %+v, explained %d of %d", u.Partition, u, explained[u.Partition], len(bs))
		}
	}
}

// A partition smaller than an equal share leaves the rest to the others:
// partitions that fit the bound together are read whole, whatever their
// order.
func TestExplainMaxBatchesFairShares(t *testing.T) {
	parts := seedPartitions(t, "u05-sticky-0", "u05-sticky-1", "u05-sticky-2") // 22, 31 and 22 batches
	for _, tc := range []struct {
		max, read1 int
		unread     bool
	}{{75, 31, false}, {100, 31, false}, {70, 26, true}} {
		res, err := RunWith(parts, Options{MaxBatches: tc.max})
		if err != nil {
			t.Fatal(err)
		}
		read1 := 0
		for _, b := range res.Batches {
			if b.Partition == 1 {
				read1++
			}
		}
		if read1 != tc.read1 || (len(res.Unread) > 0) != tc.unread || len(res.Batches) > tc.max {
			t.Errorf("MaxBatches %d: %d batches of partition 1 explained (want %d), %d in all, unread %+v", tc.max, read1, tc.read1, len(res.Batches), res.Unread)
		}
	}
}
