package segment

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// seekFixture is a real partition with four segments and real .index and
// .timeindex entries (index.interval.bytes=1500).
const seekFixture = "../testdata/segments/segments/segments-0"

// fullScanWindow is the reference: every batch of the partition, read
// from the start of every segment, kept when it overlaps [from, to).
func fullScanWindow(t testing.TB, segs []Segment, from, to int64) []string {
	var out []string
	if from >= to {
		return nil // [from, to) holds nothing
	}
	for _, seg := range segs {
		st, err := OpenFile(seg.Path, 0, Options{})
		if err != nil {
			t.Fatal(err)
		}
		for st.Next() {
			in, err := st.Batch().Info()
			if err != nil {
				t.Fatal(err)
			}
			if in.LastOffset >= from && in.BaseOffset < to {
				out = append(out, fmt.Sprintf("%s@%d", filepath.Base(seg.Path), in.Pos))
			}
		}
		st.Close()
	}
	return out
}

// windowed reads p as a command does after Query.Apply.
func windowed(t testing.TB, p Partition) []string {
	var out []string
	var st Stream
	for _, seg := range p.Segments {
		if err := st.OpenSegment(seg, 0); err != nil {
			t.Fatal(err)
		}
		for st.Next() {
			out = append(out, fmt.Sprintf("%s@%d", filepath.Base(seg.Path), st.Batch().Pos))
		}
		if err := st.Err(); err != nil {
			t.Fatal(err)
		}
		st.Close()
	}
	return out
}

// timeRef is the first record at or after ms by a full scan (Kafka's
// ListOffsets by timestamp), or Unbounded.
func timeRef(t testing.TB, segs []Segment, ms int64) int64 {
	for _, seg := range segs {
		off, ok, err := firstAtOrAfter(seg, 0, ms)
		if err != nil {
			t.Fatal(err)
		}
		if ok {
			return off
		}
	}
	return Unbounded
}

// FuzzSeekIndex replaces one segment's .index or .timeindex with fuzzed
// bytes (stale, corrupt, truncated, zeroed) and checks --from/--to, by
// offset and by time, against a full scan: an index that does not check
// out may cost a scan, never a batch.
func FuzzSeekIndex(f *testing.F) {
	parts, err := Partitions([]string{seekFixture})
	if err != nil {
		f.Fatal(err)
	}
	segs := parts[0].Segments
	for i, seg := range segs {
		idx, _ := os.ReadFile(strings.TrimSuffix(seg.Path, ".log") + ".index")
		tidx, _ := os.ReadFile(strings.TrimSuffix(seg.Path, ".log") + ".timeindex")
		f.Add(uint8(i), false, idx, int64(300), int64(-1), int64(1795976786297))
		f.Add(uint8(i), true, tidx, int64(-1), int64(320), int64(1795976786297))
		if len(idx) > 8 {
			f.Add(uint8(i), false, append(idx[8:], idx[:8]...), int64(150), int64(160), int64(0))
		}
		if len(tidx) > 12 {
			b := append([]byte(nil), tidx...)
			b[3] ^= 0x40 // a timestamp too small: the segment looks older than it is
			f.Add(uint8(i), true, b, int64(-1), int64(-1), int64(1795976786297))
		}
		f.Add(uint8(i), false, make([]byte, 64), int64(420), int64(-1), int64(-1))
	}
	f.Fuzz(func(t *testing.T, which uint8, timeIndex bool, data []byte, from, to, ms int64) {
		if len(data) > 1<<16 {
			return
		}
		dir := t.TempDir()
		pd := filepath.Join(dir, "segments-0")
		if err := os.Mkdir(pd, 0o755); err != nil {
			t.Fatal(err)
		}
		for _, seg := range segs {
			stem := strings.TrimSuffix(filepath.Base(seg.Path), ".log")
			for _, ext := range []string{".log", ".index", ".timeindex"} {
				b, err := os.ReadFile(filepath.Join(seekFixture, stem+ext))
				if err != nil {
					t.Fatal(err)
				}
				if int(which)%len(segs) == indexOf(segs, seg) && ((ext == ".index" && !timeIndex) || (ext == ".timeindex" && timeIndex)) {
					b = data
				}
				if err := os.WriteFile(filepath.Join(pd, stem+ext), b, 0o644); err != nil {
					t.Fatal(err)
				}
			}
		}
		ps, err := Partitions([]string{pd})
		if err != nil {
			t.Fatal(err)
		}
		q := Query{From: Bound{Kind: BoundOffset, Offset: from}, To: Bound{Kind: BoundOffset, Offset: to}}
		wantFrom, wantTo := from, to
		if from < 0 {
			q.From, wantFrom = Bound{}, math.MinInt64
		}
		if to < 0 {
			q.To, wantTo = Bound{}, Unbounded
		}
		if ms >= 0 {
			q.From = Bound{Kind: BoundTime, Millis: ms}
			wantFrom = timeRef(t, ps[0].Segments, ms)
		}
		got, err := q.Apply(ps)
		if err != nil {
			t.Fatal(err)
		}
		if w := got[0].Window(); w.From != wantFrom && !(wantFrom == math.MinInt64 && w.From == math.MinInt64) {
			t.Fatalf("from resolves to %d, want %d (a full scan)", w.From, wantFrom)
		}
		g, want := windowed(t, got[0]), fullScanWindow(t, ps[0].Segments, wantFrom, wantTo)
		if strings.Join(g, " ") != strings.Join(want, " ") {
			t.Fatalf("[%d, %d): read %v, want %v (a full scan)", wantFrom, wantTo, g, want)
		}
	})
}

func indexOf(segs []Segment, s Segment) int {
	for i := range segs {
		if segs[i].Path == s.Path {
			return i
		}
	}
	return -1
}
