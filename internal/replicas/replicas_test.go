package replicas

import (
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"testing"

	"github.com/kseg/kseg/segment"
)

// The fixtures under testdata/replicas were written by a real Kafka 4.4.0
// cluster (oracle/regen/replicas.sh; testdata/replicas/PROVENANCE).
const fixtures = "../../testdata/replicas"

func inputs(t testing.TB, dirs ...string) []Input {
	t.Helper()
	var out []Input
	for _, d := range dirs {
		parts, err := segment.Partitions([]string{filepath.Join(fixtures, d)})
		if err != nil || len(parts) != 1 {
			t.Fatalf("%s: %d partitions, %v", d, len(parts), err)
		}
		in, err := FileInput(d, &parts[0])
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, in)
	}
	return out
}

func pair(t *testing.T, r *Result, a, b string) Pair {
	t.Helper()
	for _, p := range r.Pairs {
		if p.A == a && p.B == b {
			return p
		}
	}
	t.Fatalf("no pair %s/%s", a, b)
	return Pair{}
}

func TestFixtures(t *testing.T) {
	type want struct {
		a, b   string
		status string
		cause  string // divergence cause, or behind cause
	}
	for _, tc := range []struct {
		name  string
		dirs  []string
		pairs []want
	}{
		{"clean", []string{"clean/n1", "clean/n2", "clean/n3"}, []want{
			{"clean/n1", "clean/n2", StatusAgree, ""}, {"clean/n1", "clean/n3", StatusAgree, ""}, {"clean/n2", "clean/n3", StatusAgree, ""}}},
		{"unclean before", []string{"unclean/before/n1/rep-0", "unclean/before/n2/rep-0", "unclean/before/n3/rep-0"}, []want{
			{"unclean/before/n1/rep-0", "unclean/before/n2/rep-0", StatusBehind, BehindLagging},
			{"unclean/before/n1/rep-0", "unclean/before/n3/rep-0", StatusDiverged, CauseUnclean},
			{"unclean/before/n2/rep-0", "unclean/before/n3/rep-0", StatusDiverged, CauseUnclean}}},
		{"unclean after", []string{"unclean/after/n1/rep-0", "unclean/after/n2/rep-0", "unclean/after/n3/rep-0"}, []want{
			{"unclean/after/n1/rep-0", "unclean/after/n2/rep-0", StatusAgree, ""},
			{"unclean/after/n1/rep-0", "unclean/after/n3/rep-0", StatusAgree, ""},
			{"unclean/after/n2/rep-0", "unclean/after/n3/rep-0", StatusAgree, ""}}},
		{"old leader before and after its truncation", []string{"unclean/before/n1/rep-0", "unclean/after/n1/rep-0"}, []want{
			{"unclean/before/n1/rep-0", "unclean/after/n1/rep-0", StatusDiverged, CauseUnclean}}},
		{"restored follower", []string{"restore/n1", "restore/n2", "restore/n3"}, []want{
			{"restore/n1", "restore/n2", StatusBehind, BehindLagging}, {"restore/n1", "restore/n3", StatusAgree, ""},
			{"restore/n2", "restore/n3", StatusBehind, BehindLagging}}},
		{"retention", []string{"retention/n1", "retention/n2", "retention/n3"}, []want{
			{"retention/n1", "retention/n2", StatusAgree, ""}, {"retention/n1", "retention/n3", StatusAgree, ""},
			{"retention/n2", "retention/n3", StatusAgree, ""}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r, err := Compare("p", inputs(t, tc.dirs...))
			if err != nil {
				t.Fatal(err)
			}
			diverged := false
			for _, w := range tc.pairs {
				p := pair(t, r, w.a, w.b)
				cause := p.Cause
				if p.Status == StatusBehind {
					cause = p.BehindCause
				}
				if p.Status != w.status || cause != w.cause {
					t.Errorf("%s vs %s: %s (%s), want %s (%s)", w.a, w.b, p.Status, cause, w.status, w.cause)
				}
				diverged = diverged || w.status == StatusDiverged
			}
			if r.Diverged() != diverged {
				t.Errorf("Diverged() = %v", r.Diverged())
			}
		})
	}
}

// TestRetentionIsNotCompared: n3 was down while retention deleted n1's and
// n2's old segments: its batches below their log start are counted, not
// compared.
func TestRetentionIsNotCompared(t *testing.T) {
	r, err := Compare("ret-0", inputs(t, "retention/n1", "retention/n3"))
	if err != nil {
		t.Fatal(err)
	}
	p := r.Pairs[0]
	n1, n3 := r.Copies[0], r.Copies[1]
	if n3.LogStart != 0 || n1.LogStart <= 0 || p.CommonStart != n1.LogStart {
		t.Fatalf("log starts %d, %d, common %d", n1.LogStart, n3.LogStart, p.CommonStart)
	}
	if p.Below == nil || p.Below.Copy != "retention/n3" || p.Below.FirstOffset != 0 || p.Below.LastOffset != n1.LogStart-1 ||
		p.Below.Records != n1.LogStart {
		t.Fatalf("below start: %+v", p.Below)
	}
}

// batchKey is a batch as kafka-dump-log would list it: offsets and CRC.
type batchKey struct {
	base, last int64
	crc        uint32
}

func readBatches(t *testing.T, dir string) []batchKey {
	t.Helper()
	parts, err := segment.Partitions([]string{filepath.Join(fixtures, dir)})
	if err != nil {
		t.Fatal(err)
	}
	var out []batchKey
	st := &segment.Stream{}
	for _, seg := range parts[0].Segments {
		if err := st.OpenSegment(seg, 0); err != nil {
			t.Fatal(err)
		}
		for st.Next() {
			h := st.Batch().Header
			out = append(out, batchKey{h.BaseOffset, h.LastOffset(), h.CRC})
		}
		if st.Err() != nil {
			t.Fatal(st.Err())
		}
		st.Close()
	}
	return out
}

// TestUncleanMatchesKafka: the divergence of each old replica with the
// unclean leader is at the offset and epoch the broker logged when it
// truncated (truncation.txt), and the batches listed only on it are exactly
// those that vanished from its copy (before minus after).
func TestUncleanMatchesKafka(t *testing.T) {
	log, err := os.ReadFile(filepath.Join(fixtures, "unclean/truncation.txt"))
	if err != nil {
		t.Fatal(err)
	}
	re := regexp.MustCompile(`(?m)^(n\d): .*TruncationState\(offset=(\d+).*leaderEpoch=(\d+), endOffset=(\d+)`)
	ms := re.FindAllSubmatch(log, -1)
	if len(ms) != 2 {
		t.Fatalf("truncation.txt: %d truncations, want 2", len(ms))
	}
	dir := func(n string) string { return "unclean/before/" + n + "/rep-0" }
	r, err := Compare("rep-0", inputs(t, dir("n1"), dir("n2"), dir("n3")))
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range ms {
		node := string(m[1])
		off, _ := strconv.ParseInt(string(m[2]), 10, 64)
		ep, _ := strconv.ParseInt(string(m[3]), 10, 32)
		p := pair(t, r, dir(node), dir("n3"))
		if p.Offset != off || int64(p.Epoch) != ep || p.TruncateTo != off || p.Loses != dir(node) {
			t.Errorf("%s vs n3: offset %d epoch %d truncate to %d loses %q; the broker truncated to %d (epoch %d)",
				node, p.Offset, p.Epoch, p.TruncateTo, p.Loses, off, ep)
		}
		after := map[batchKey]bool{}
		for _, b := range readBatches(t, "unclean/after/"+node+"/rep-0") {
			after[b] = true
		}
		var vanished []batchKey
		var records int64
		for _, b := range readBatches(t, dir(node)) {
			if !after[b] {
				vanished = append(vanished, b)
				records += b.last - b.base + 1
			}
		}
		if len(vanished) == 0 {
			t.Fatalf("%s: nothing vanished", node)
		}
		var got Run
		for i, run := range p.OnlyA {
			if i == 0 {
				got = run
				continue
			}
			got.LastOffset, got.Batches, got.Records = run.LastOffset, got.Batches+run.Batches, got.Records+run.Records
		}
		if got.FirstOffset != vanished[0].base || got.LastOffset != vanished[len(vanished)-1].last ||
			got.Batches != int64(len(vanished)) || got.Records != records {
			t.Errorf("%s: only on it %d-%d (%d batches, %d records); vanished %d-%d (%d batches, %d records)", node,
				got.FirstOffset, got.LastOffset, got.Batches, got.Records, vanished[0].base, vanished[len(vanished)-1].last, len(vanished), records)
		}
		// The new leader's own batches after the divergence are all still
		// on it after the rejoin: only_on for n3 lists what n3 wrote.
		for _, run := range p.OnlyB {
			if run.Copy != dir("n3") || run.Epoch <= int32(ep) {
				t.Errorf("only on n3: %+v", run)
			}
		}
	}
}

func TestCheckpointAndBatchesAgreeOnFixtures(t *testing.T) {
	r, err := Compare("rep-0", inputs(t, "unclean/before/n1/rep-0", "unclean/before/n3/rep-0"))
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range r.Copies {
		if len(c.EpochNotes) > 0 || c.EpochsFrom != "leader-epoch-checkpoint" {
			t.Errorf("%s: from %s, notes %v", c.Name, c.EpochsFrom, c.EpochNotes)
		}
	}
}
