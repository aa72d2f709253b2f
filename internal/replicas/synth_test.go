package replicas

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kseg/kseg/batch"
	"github.com/kseg/kseg/index"
	"github.com/kseg/kseg/segment"
)

// sb is one synthetic batch: n records from base in epoch, whose values
// carry tag (batches with the same base, n and tag are identical, whatever
// their epoch).
// ep is an epoch entry.
func ep(e int32, o int64) index.EpochEntry { return index.EpochEntry{Epoch: e, StartOffset: o} }

type sb struct {
	base  int64
	n     int
	epoch int32
	tag   string
	pid   int64
	seq   int32
}

// writeCopy writes a partition directory t-0 under dir holding the batches,
// with a leader-epoch-checkpoint when cp is not nil.
func writeCopy(t testing.TB, dir string, bs []sb, cp []index.EpochEntry) string {
	t.Helper()
	pdir := filepath.Join(dir, "t-0")
	if err := os.MkdirAll(pdir, 0o755); err != nil {
		t.Fatal(err)
	}
	var buf []byte
	b := batch.NewBuilder(batch.CodecNone)
	for _, x := range bs {
		b.Reset(batch.CodecNone)
		for i := 0; i < x.n; i++ {
			b.Append(1_700_000_000_000+x.base+int64(i), nil, []byte(fmt.Sprintf("%s-%d", x.tag, x.base+int64(i))), nil)
		}
		pid, seq := int64(-1), int32(-1)
		if x.pid > 0 {
			pid, seq = x.pid, x.seq
		}
		var err error
		buf, err = b.Build(buf, batch.Header{BaseOffset: x.base, PartitionLeaderEpoch: x.epoch, ProducerID: pid, ProducerEpoch: 0, BaseSequence: seq}, nil)
		if err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(pdir, "00000000000000000000.log"), buf, 0o644); err != nil {
		t.Fatal(err)
	}
	if cp != nil {
		if err := os.WriteFile(filepath.Join(pdir, EpochCheckpointFile), index.AppendLeaderEpochCheckpoint(nil, cp), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return pdir
}

func synthInputs(t testing.TB, copies ...string) []Input {
	var out []Input
	for _, d := range copies {
		parts, err := segment.Partitions([]string{d})
		if err != nil {
			t.Fatal(err)
		}
		in, err := FileInput(filepath.Base(filepath.Dir(d)), &parts[0])
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, in)
	}
	return out
}

func TestSynthetic(t *testing.T) {
	common := []sb{{0, 5, 0, "a", 0, 0}, {5, 5, 0, "a", 0, 0}}
	with := func(extra ...sb) []sb { return append(append([]sb(nil), common...), extra...) }
	for _, tc := range []struct {
		name       string
		a, b       []sb
		cpA, cpB   []index.EpochEntry
		status     string
		cause      string
		offset     int64
		epoch      int32
		truncateTo int64
		loses      string
		onlyA      [][2]int64 // first, last offsets of A's runs
		onlyB      [][2]int64
	}{
		{name: "identical", a: with(sb{10, 3, 1, "x", 0, 0}), b: with(sb{10, 3, 1, "x", 0, 0}), status: StatusAgree, offset: -1},
		{name: "epoch differs, bytes identical: CRC excludes the epoch", a: with(sb{10, 3, 1, "x", 0, 0}), b: with(sb{10, 3, 2, "x", 0, 0}), status: StatusAgree, offset: -1},
		{name: "unclean election", a: with(sb{10, 3, 0, "old", 0, 0}, sb{13, 2, 0, "old", 0, 0}), b: with(sb{10, 4, 3, "new", 0, 0}),
			cpA: []index.EpochEntry{ep(0, 0)}, cpB: []index.EpochEntry{ep(0, 0), ep(3, 10)},
			status: StatusDiverged, cause: CauseUnclean, offset: 10, epoch: 0, truncateTo: 10, loses: "a",
			onlyA: [][2]int64{{10, 14}}, onlyB: [][2]int64{{10, 13}}},
		{name: "same epoch, different batches", a: with(sb{10, 3, 1, "x", 0, 0}), b: with(sb{10, 3, 1, "y", 0, 0}),
			status: StatusDiverged, cause: CauseSameEpoch, offset: 10, epoch: 1, truncateTo: 13,
			onlyA: [][2]int64{{10, 12}}, onlyB: [][2]int64{{10, 12}}},
		{name: "batch boundaries differ", a: with(sb{10, 3, 1, "x", 0, 0}), b: with(sb{10, 2, 1, "x", 0, 0}, sb{12, 1, 1, "x", 0, 0}),
			status: StatusDiverged, cause: CauseSameEpoch, offset: 10, epoch: 1, truncateTo: 13,
			onlyA: [][2]int64{{10, 12}}, onlyB: [][2]int64{{10, 12}}},
		{name: "gap", a: with(sb{10, 3, 1, "x", 0, 0}, sb{13, 2, 1, "x", 0, 0}), b: with(sb{13, 2, 1, "x", 0, 0}),
			status: StatusDiverged, cause: CauseGap, offset: 10, epoch: 0, truncateTo: 10,
			onlyA: [][2]int64{{10, 14}}, onlyB: [][2]int64{{13, 14}}},
		{name: "behind", a: with(sb{10, 3, 1, "x", 0, 0}), b: common, status: StatusBehind, cause: BehindLagging, offset: -1},
		{name: "idempotent runs split by producer", a: with(sb{10, 3, 1, "x", 7, 0}, sb{13, 2, 1, "x", 7, 3}, sb{15, 1, 1, "x", 8, 0}),
			b: with(sb{10, 1, 2, "y", 9, 0}), status: StatusDiverged, cause: CauseUnclean, offset: 10, epoch: 0, truncateTo: 10, loses: "a",
			onlyA: [][2]int64{{10, 14}, {15, 15}}, onlyB: [][2]int64{{10, 10}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			a := writeCopy(t, filepath.Join(dir, "a"), tc.a, tc.cpA)
			b := writeCopy(t, filepath.Join(dir, "b"), tc.b, tc.cpB)
			r, err := Compare("t-0", synthInputs(t, a, b))
			if err != nil {
				t.Fatal(err)
			}
			p := r.Pairs[0]
			cause := p.Cause
			if p.Status == StatusBehind {
				cause = p.BehindCause
			}
			if p.Status != tc.status || cause != tc.cause || p.Offset != tc.offset {
				t.Fatalf("%s %s at %d, want %s %s at %d (%+v)", p.Status, cause, p.Offset, tc.status, tc.cause, tc.offset, p)
			}
			if p.Status != StatusDiverged {
				return
			}
			if p.Epoch != tc.epoch || p.TruncateTo != tc.truncateTo || p.Loses != tc.loses {
				t.Errorf("epoch %d truncate to %d loses %q, want %d %d %q", p.Epoch, p.TruncateTo, p.Loses, tc.epoch, tc.truncateTo, tc.loses)
			}
			check := func(side string, runs []Run, want [][2]int64) {
				var got [][2]int64
				for _, x := range runs {
					got = append(got, [2]int64{x.FirstOffset, x.LastOffset})
				}
				if fmt.Sprint(got) != fmt.Sprint(want) {
					t.Errorf("only on %s: %v, want %v", side, got, want)
				}
			}
			check("a", p.OnlyA, tc.onlyA)
			check("b", p.OnlyB, tc.onlyB)
		})
	}
}

func TestSequencesOfRuns(t *testing.T) {
	dir := t.TempDir()
	a := writeCopy(t, filepath.Join(dir, "a"), []sb{{0, 2, 0, "a", 0, 0}, {2, 3, 0, "x", 7, 10}, {5, 2, 0, "x", 7, 13}}, nil)
	b := writeCopy(t, filepath.Join(dir, "b"), []sb{{0, 2, 0, "a", 0, 0}, {2, 1, 1, "y", 0, 0}}, nil)
	r, err := Compare("t-0", synthInputs(t, a, b))
	if err != nil {
		t.Fatal(err)
	}
	run := r.Pairs[0].OnlyA[0]
	if run.ProducerID != 7 || run.FirstSequence != 10 || run.LastSequence != 14 || run.Records != 5 || run.Batches != 2 {
		t.Fatalf("%+v", run)
	}
}

// TestEpochNotes: where leader-epoch-checkpoint and the batches disagree,
// the copy says so; an epoch begun at the log end with no batch yet is not a
// disagreement.
func TestEpochNotes(t *testing.T) {
	dir := t.TempDir()
	bs := []sb{{0, 5, 0, "a", 0, 0}, {5, 5, 2, "a", 0, 0}}
	a := writeCopy(t, filepath.Join(dir, "a"), bs, []index.EpochEntry{ep(0, 0), ep(1, 5), ep(4, 10)})
	b := writeCopy(t, filepath.Join(dir, "b"), bs, []index.EpochEntry{ep(0, 0), ep(2, 5), ep(4, 10)})
	r, err := Compare("t-0", synthInputs(t, a, b))
	if err != nil {
		t.Fatal(err)
	}
	want := "[the batches have epoch 2 from offset 5, the checkpoint does not the checkpoint has epoch 1 from offset 5, the batches do not]"
	if got := fmt.Sprint(r.Copies[0].EpochNotes); got != want {
		t.Errorf("a: %s", got)
	}
	if len(r.Copies[1].EpochNotes) != 0 {
		t.Errorf("b: %v", r.Copies[1].EpochNotes)
	}
}

// TestTruncatedBehind: a copy whose own high-watermark checkpoint is above
// its log end lost offsets it once held.
func TestTruncatedBehind(t *testing.T) {
	dir := t.TempDir()
	a := writeCopy(t, filepath.Join(dir, "a"), []sb{{0, 5, 0, "a", 0, 0}, {5, 5, 0, "a", 0, 0}}, nil)
	b := writeCopy(t, filepath.Join(dir, "b"), []sb{{0, 5, 0, "a", 0, 0}}, nil)
	os.WriteFile(filepath.Join(dir, "b", HighWatermarkFile), []byte("0\n1\nt 0 10\n"), 0o644)
	r, err := Compare("t-0", synthInputs(t, a, b))
	if err != nil {
		t.Fatal(err)
	}
	if p := r.Pairs[0]; p.Status != StatusBehind || p.Behind != "b" || p.BehindCause != BehindTruncated || p.BehindFrom != 5 || p.BehindRecords != 5 {
		t.Fatalf("%+v", p)
	}
}

// TestUnreadable: a corrupt copy or checkpoint is an error naming the file.
func TestUnreadable(t *testing.T) {
	dir := t.TempDir()
	a := writeCopy(t, filepath.Join(dir, "a"), []sb{{0, 5, 0, "a", 0, 0}}, nil)
	b := writeCopy(t, filepath.Join(dir, "b"), []sb{{0, 5, 0, "a", 0, 0}, {5, 5, 0, "a", 0, 0}}, nil)
	log := filepath.Join(b, "00000000000000000000.log")
	raw, _ := os.ReadFile(log)
	raw[8], raw[9] = 0x10, 0 // the first batch's length runs past the end: a valid batch follows it
	os.WriteFile(log, raw, 0o644)
	r, err := Compare("t-0", synthInputs(t, a, b))
	if err == nil || !strings.Contains(err.Error(), log) {
		t.Logf("%+v", r)
		t.Fatalf("a corrupt copy: %v", err)
	}
	os.WriteFile(filepath.Join(a, EpochCheckpointFile), []byte("0\n2\n0 0\n"), 0o644)
	parts, _ := segment.Partitions([]string{a})
	if _, err := FileInput("a", &parts[0]); err == nil || !strings.Contains(err.Error(), EpochCheckpointFile) {
		t.Fatalf("checkpoint with a missing entry: %v", err)
	}
}

// kafkaEndOffsetFor answers OffsetForLeaderEpoch as Kafka's
// LeaderEpochFileCache.endOffsetFor does for cache h and log end leo.
func kafkaEndOffsetFor(h []index.EpochEntry, leo int64) func(int32) (int32, int64, error) {
	return func(req int32) (int32, int64, error) {
		if len(h) == 0 || req > h[len(h)-1].Epoch {
			return -1, -1, nil
		}
		if req == h[len(h)-1].Epoch {
			return req, leo, nil
		}
		var floor *index.EpochEntry
		var higher *index.EpochEntry
		for i := range h {
			if h[i].Epoch <= req {
				floor = &h[i]
			}
			if h[i].Epoch > req && higher == nil {
				higher = &h[i]
			}
		}
		if floor == nil {
			return req, higher.StartOffset, nil
		}
		return floor.Epoch, higher.StartOffset, nil
	}
}

func TestEpochHistory(t *testing.T) {
	for _, tc := range []struct {
		name     string
		cache    []index.EpochEntry
		leo      int64
		logStart int64
		current  int32
	}{
		{"one epoch", []index.EpochEntry{ep(0, 0)}, 100, 0, 0},
		{"unclean election", []index.EpochEntry{ep(0, 0), ep(2, 50)}, 70, 0, 2},
		{"current epoch above the cache's", []index.EpochEntry{ep(0, 0), ep(2, 50)}, 70, 0, 5},
		{"sparse epochs", []index.EpochEntry{ep(3, 0), ep(7, 10), ep(40, 25), ep(41, 30)}, 31, 0, 41},
		{"log start inside the first epoch", []index.EpochEntry{ep(3, 180), ep(4, 200)}, 210, 180, 4},
		{"first epoch above the log start", []index.EpochEntry{ep(5, 20), ep(6, 40)}, 50, 0, 6},
	} {
		t.Run(tc.name, func(t *testing.T) {
			asked := 0
			ask := kafkaEndOffsetFor(tc.cache, tc.leo)
			h, err := EpochHistory(func(e int32) (int32, int64, error) { asked++; return ask(e) }, tc.current, tc.logStart)
			if err != nil {
				t.Fatal(err)
			}
			want := clip(tc.cache, tc.logStart)
			if tc.name == "current epoch above the cache's" {
				want = nil // Kafka answers an epoch above its latest with -1: nothing to walk from
			}
			if tc.name == "first epoch above the log start" {
				want = tc.cache
			}
			if fmt.Sprint(h) != fmt.Sprint(want) {
				t.Errorf("history %v, want %v", h, want)
			}
			if asked > len(tc.cache)+2 {
				t.Errorf("%d questions for %d entries", asked, len(tc.cache))
			}
		})
	}
}

// FuzzCompare: any two copies built from the input compare without a
// panic, and the verdict does not depend on the order they are given in.
func FuzzCompare(f *testing.F) {
	f.Add([]byte{5, 0, 0, 5, 0, 0, 3, 1, 1}, []byte{5, 0, 0, 5, 0, 0, 4, 3, 2})
	f.Add([]byte{5, 0, 0}, []byte{5, 0, 0, 5, 0, 0})
	f.Add([]byte{}, []byte{2, 1, 0})
	build := func(b []byte) []sb {
		var out []sb
		next := int64(0)
		for i := 0; i+2 < len(b) && len(out) < 20; i += 3 {
			n := int(b[i]%7) + 1
			if b[i+1]&0x80 != 0 {
				next += int64(b[i+1] & 3) // a gap
			}
			out = append(out, sb{base: next, n: n, epoch: int32(b[i+1] & 7), tag: fmt.Sprint(b[i+2] % 3)})
			next += int64(n)
		}
		return out
	}
	f.Fuzz(func(t *testing.T, x, y []byte) {
		dir := t.TempDir()
		a := writeCopy(t, filepath.Join(dir, "a"), build(x), nil)
		b := writeCopy(t, filepath.Join(dir, "b"), build(y), nil)
		r1, err1 := Compare("t-0", synthInputs(t, a, b))
		r2, err2 := Compare("t-0", synthInputs(t, b, a))
		if (err1 == nil) != (err2 == nil) {
			t.Fatalf("errors %v / %v", err1, err2)
		}
		if err1 != nil {
			return
		}
		p, q := r1.Pairs[0], r2.Pairs[0]
		if p.Status != q.Status || p.Offset != q.Offset || p.Epoch != q.Epoch || p.TruncateTo != q.TruncateTo || p.Cause != q.Cause ||
			p.Loses != q.Loses || len(p.OnlyA) != len(q.OnlyB) || len(p.OnlyB) != len(q.OnlyA) {
			t.Fatalf("order matters:\n%+v\n%+v", p, q)
		}
	})
}
