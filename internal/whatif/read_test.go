package whatif

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/kseg/kseg/batch"
	"github.com/kseg/kseg/producer"
	"github.com/kseg/kseg/segment"
)

// writeBatches writes partition directory t-<part> under dir: one batch
// per element, each with its producer id and record timestamps.
func writeBatches(t testing.TB, dir string, part int, batches []testBatch) {
	t.Helper()
	pd := filepath.Join(dir, "t-"+string(rune('0'+part)))
	if err := os.MkdirAll(pd, 0o755); err != nil {
		t.Fatal(err)
	}
	var out []byte
	var off int64
	for _, tb := range batches {
		b := batch.NewBuilder(batch.CodecNone)
		for _, ts := range tb.ts {
			b.Append(ts, nil, []byte("0123456789"), nil)
		}
		h := batch.Header{BaseOffset: off, ProducerID: tb.pid, BaseSequence: -1, ProducerEpoch: -1}
		if tb.pid >= 0 {
			h.ProducerEpoch, h.BaseSequence = 0, int32(off)
		}
		var err error
		if out, err = b.Build(out, h, nil); err != nil {
			t.Fatal(err)
		}
		off += int64(len(tb.ts))
	}
	if err := os.WriteFile(filepath.Join(pd, "00000000000000000000.log"), out, 0o644); err != nil {
		t.Fatal(err)
	}
}

type testBatch struct {
	pid int64
	ts  []int64
}

// Two producer ids writing one partition at once are two sessions, each
// in time order; producer id -1 is one session, and says so.
func TestReadSessions(t *testing.T) {
	dir := t.TempDir()
	var bs []testBatch
	for i := range int64(20) {
		bs = append(bs, testBatch{pid: 1 + i%2, ts: []int64{1000 + 10*i, 1001 + 10*i}})
	}
	writeBatches(t, dir, 0, bs)
	writeBatches(t, dir, 1, []testBatch{{pid: 2, ts: []int64{1005, 1006}}})
	parts, err := segment.Partitions([]string{dir})
	if err != nil {
		t.Fatal(err)
	}
	topics, err := Read(parts)
	if err != nil {
		t.Fatal(err)
	}
	if len(topics) != 1 || len(topics[0].Sessions) != 2 || topics[0].NoPID || topics[0].Evidence != "" {
		t.Fatalf("topics %+v", topics[0])
	}
	tp := topics[0]
	if tp.Partitions != 2 || tp.Sessions[0].Len() != 20 || tp.Sessions[1].Len() != 22 {
		t.Errorf("partitions %d, sessions of %d and %d records", tp.Partitions, tp.Sessions[0].Len(), tp.Sessions[1].Len())
	}
	b, r, _ := tp.LogLayout()
	if b[0] != 20 || b[1] != 1 || r[0] != 40 || r[1] != 2 {
		t.Errorf("log layout %v %v", b, r)
	}
	res, _, err := Run(parts, Options{Was: []producer.Property{{Key: "linger.ms", Value: "0"}}, Set: []producer.Property{{Key: "linger.ms", Value: "100"}}, Runs: 5})
	if err != nil {
		t.Fatal(err)
	}
	if got := res[0].Replay.TotalBatches().P50; got < 15 {
		t.Errorf("two sessions at linger.ms=0 replay into %d batches, want about the log's 21", got)
	}

	dir = t.TempDir()
	bs = nil
	for i := range int64(20) {
		bs = append(bs, testBatch{pid: -1, ts: []int64{1000 + 10*i}})
	}
	writeBatches(t, dir, 0, bs)
	parts, _ = segment.Partitions([]string{dir})
	topics, err = Read(parts)
	if err != nil {
		t.Fatal(err)
	}
	if len(topics[0].Sessions) != 1 || !topics[0].NoPID {
		t.Errorf("producer id -1: %d sessions, NoPID %v", len(topics[0].Sessions), topics[0].NoPID)
	}
	if topics[0].Sessions[0].ProducerID != -1 {
		t.Errorf("session producer id %d", topics[0].Sessions[0].ProducerID)
	}
}

// A session's records stepping back in time beyond the thresholds are
// evidence of explicit timestamps; small steps back (threads sharing a
// producer) are not.
func TestReadEvidence(t *testing.T) {
	tests := []struct {
		name string
		ts   [][]int64
		want string
	}{
		{"monotonic", [][]int64{{1, 2, 3}, {4, 5}}, ""},
		{"small step back", [][]int64{{100, 102, 101, 103}, {104, 105, 106, 107, 108, 109, 110, 111, 112, 113, 114, 115, 116, 117, 118, 119, 120, 121, 122, 123}}, ""},
		{"long step back", [][]int64{{5000, 5001}, {10, 11}}, "explicit timestamps"},
		{"no timestamps", [][]int64{{-1, -1}}, "no record timestamps"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			var bs []testBatch
			for _, ts := range tc.ts {
				bs = append(bs, testBatch{pid: 3, ts: ts})
			}
			writeBatches(t, dir, 0, bs)
			parts, _ := segment.Partitions([]string{dir})
			topics, err := Read(parts)
			if err != nil {
				t.Fatal(err)
			}
			ev := topics[0].Evidence
			if (tc.want == "") != (ev == "") || !strings.Contains(ev, tc.want) {
				t.Errorf("evidence %q, want %q", ev, tc.want)
			}
		})
	}
}

// A directory not named TOPIC-N (a loose segment file, segment.Partition
// -1) is a one-partition topic of its own, replayed as partition 0; it
// once indexed the replay's partitions by -1 and panicked. Given beside
// named partitions of a topic of the same name it is refused: which
// partition it holds decides where its keyed records go.
func TestReadUnnamedPartition(t *testing.T) {
	dir := t.TempDir()
	writeBatches(t, dir, 0, []testBatch{{pid: 1, ts: []int64{1000, 1001}}, {pid: 1, ts: []int64{1010}}})
	loose := filepath.Join(dir, "t")
	if err := os.Rename(filepath.Join(dir, "t-0"), loose); err != nil {
		t.Fatal(err)
	}
	parts, err := segment.Partitions([]string{loose})
	if err != nil {
		t.Fatal(err)
	}
	if len(parts) != 1 || parts[0].Partition != -1 {
		t.Fatalf("partitions %+v: want one unnamed (-1)", parts)
	}
	topics, err := Read(parts)
	if err != nil {
		t.Fatal(err)
	}
	tp := topics[0]
	if tp.Partitions != 1 || tp.Unnamed != loose || len(tp.Named) != 1 || tp.Named[0] != 0 {
		t.Errorf("topic: %d partitions, named %v, unnamed %q", tp.Partitions, tp.Named, tp.Unnamed)
	}
	if parts[0].Partition != -1 {
		t.Errorf("Read changed its argument: partition %d", parts[0].Partition)
	}
	res, _, err := Run(parts, Options{Was: []producer.Property{{Key: "linger.ms", Value: "5"}}, Set: []producer.Property{{Key: "linger.ms", Value: "100"}}, Runs: 5})
	if err != nil {
		t.Fatal(err)
	}
	if got := res[0].Replay.TotalBatches().P50; got < 1 || got > 3 {
		t.Errorf("replay of a 2-batch log: %d batches", got)
	}

	writeBatches(t, dir, 1, []testBatch{{pid: 1, ts: []int64{1020}}})
	named, err := segment.Partitions([]string{loose, filepath.Join(dir, "t-1")})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Read(named); err == nil || !strings.Contains(err.Error(), "not named TOPIC-PARTITION") {
		t.Errorf("unnamed beside named partitions of topic t: err %v", err)
	}
	slices.Reverse(named)
	if _, err := Read(named); err == nil || !strings.Contains(err.Error(), "not named TOPIC-PARTITION") {
		t.Errorf("named then unnamed partitions of topic t: err %v", err)
	}
}

// A partition directory's name sets the topic's partition count: past
// MaxPartitions it is refused, naming the directory, before anything is
// sized by it (t-2000000000 ran kseg out of memory).
func TestReadPartitionBound(t *testing.T) {
	dir := t.TempDir()
	writeBatches(t, dir, 0, []testBatch{{pid: 1, ts: []int64{1000}}})
	huge := filepath.Join(dir, "t-2000000000")
	if err := os.Rename(filepath.Join(dir, "t-0"), huge); err != nil {
		t.Fatal(err)
	}
	parts, err := segment.Partitions([]string{huge})
	if err != nil {
		t.Fatal(err)
	}
	_, err = Read(parts)
	if err == nil || !strings.Contains(err.Error(), huge) || !strings.Contains(err.Error(), "up to 100000 partitions") {
		t.Errorf("t-2000000000: err %v", err)
	}
	last := filepath.Join(dir, fmt.Sprintf("t-%d", MaxPartitions-1))
	if err := os.Rename(huge, last); err != nil {
		t.Fatal(err)
	}
	parts, _ = segment.Partitions([]string{last})
	if topics, err := Read(parts); err != nil || topics[0].Partitions != MaxPartitions {
		t.Errorf("the last partition allowed: err %v", err)
	}
}

// A session whose records lie more than 49 days apart (a trace keeps
// 32-bit milliseconds) is evidence, located, not a read error: refused,
// and --synthetic replays its records at even times of its own.
func TestReadSpanPast49Days(t *testing.T) {
	dir := t.TempDir()
	const day = 24 * 3600 * 1000
	writeBatches(t, dir, 0, []testBatch{{pid: 1, ts: []int64{1_700_000_000_000, 1_700_000_000_001}}, {pid: 1, ts: []int64{1_700_000_000_000 + 50*day}}})
	parts, _ := segment.Partitions([]string{dir})
	topics, err := Read(parts)
	if err != nil {
		t.Fatal(err)
	}
	if ev := topics[0].Evidence; !strings.Contains(ev, "more than 49 days") || !strings.Contains(ev, "byte ") {
		t.Errorf("evidence %q", ev)
	}
	if topics[0].Records() != 3 {
		t.Errorf("%d records kept", topics[0].Records())
	}
	o := Options{Runs: 5, Was: []producer.Property{{Key: "linger.ms", Value: "5"}}, Set: []producer.Property{{Key: "linger.ms", Value: "20"}}}
	if _, _, err := Run(parts, o); !errors.Is(err, ErrNotArrivals) {
		t.Errorf("without --synthetic: err %v", err)
	}
	o.Synthetic = true
	res, _, err := Run(parts, o)
	if err != nil || res[0].Synthetic == "" {
		t.Fatalf("--synthetic: err %v", err)
	}
}
