package segment

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
)

// entryStarts lists where the entries of an intact log start.
func entryStarts(b []byte) []int64 {
	var starts []int64
	for p := int64(0); p+batch.LogOverhead <= int64(len(b)); p += int64(binary.BigEndian.Uint32(b[p+8:])) + batch.LogOverhead {
		starts = append(starts, p)
	}
	return starts
}

type streamRun struct {
	positions []int64
	regions   []Region
	tail      int64
	err       error
}

func runStream(data []byte, opts Options) streamRun {
	var r streamRun
	opts.OnRegion = func(g Region) { r.regions = append(r.regions, g) }
	st := NewStream(BytesSource("x.log", data), opts)
	for st.Next() {
		r.positions = append(r.positions, st.Batch().Pos)
	}
	r.tail, r.err = st.Tail(), st.Err()
	return r
}

// TestStreamKeepGoing: each corrupt region is reported once, with the
// bytes it covers, and the stream resumes at the next intact entry, for v2
// batches and legacy messages alike.
func TestStreamKeepGoing(t *testing.T) {
	v2 := testSegment(t, 5, batch.CodecNone, batch.CodecGzip)
	one, err := os.ReadFile(filepath.Join("..", "testdata", "legacy", "v1-0", "00000000000000000000.log"))
	if err != nil {
		t.Fatal(err) // a committed fixture: missing is a failure
	}
	// Five copies of the message at offsets 0..4 (its CRC covers magic to
	// end, not the offset).
	var legacy []byte
	for i := range 5 {
		e := bytes.Clone(one)
		binary.BigEndian.PutUint64(e, uint64(i))
		legacy = append(legacy, e...)
	}
	cases := []struct {
		name       string
		data       []byte
		opts       Options
		mutate     func(b []byte, s []int64)
		wantPos    func(s []int64) []int64
		wantRegion func(s []int64, end int64) [][2]int64
	}{
		{"v2 bad size field", v2, Options{KeepGoing: true},
			func(b []byte, s []int64) { binary.BigEndian.PutUint32(b[s[1]+8:], 5) },
			func(s []int64) []int64 { return []int64{s[0], s[2], s[3], s[4]} },
			func(s []int64, _ int64) [][2]int64 { return [][2]int64{{s[1], s[2]}} }},
		{"v2 bad checksum, verified", v2, Options{KeepGoing: true, VerifyCRC: true},
			func(b []byte, s []int64) { b[s[2]+70] ^= 0xff },
			func(s []int64) []int64 { return []int64{s[0], s[1], s[3], s[4]} },
			func(s []int64, _ int64) [][2]int64 { return [][2]int64{{s[2], s[3]}} }},
		{"v2 bad checksum, not verified", v2, Options{KeepGoing: true},
			func(b []byte, s []int64) { b[s[2]+70] ^= 0xff },
			func(s []int64) []int64 { return s },
			func([]int64, int64) [][2]int64 { return nil }},
		{"v2 two regions", v2, Options{KeepGoing: true, VerifyCRC: true},
			func(b []byte, s []int64) { b[s[1]+70] ^= 0xff; b[s[3]+70] ^= 0xff },
			func(s []int64) []int64 { return []int64{s[0], s[2], s[4]} },
			func(s []int64, _ int64) [][2]int64 { return [][2]int64{{s[1], s[2]}, {s[3], s[4]}} }},
		{"v2 entry past the end, intact ones after", v2, Options{KeepGoing: true},
			func(b []byte, s []int64) { binary.BigEndian.PutUint32(b[s[1]+8:], 0x7ffffff0) },
			func(s []int64) []int64 { return []int64{s[0], s[2], s[3], s[4]} },
			func(s []int64, _ int64) [][2]int64 { return [][2]int64{{s[1], s[2]}} }},
		{"v2 nothing valid after", v2, Options{KeepGoing: true},
			func(b []byte, s []int64) { binary.BigEndian.PutUint32(b[s[4]+8:], 3) },
			func(s []int64) []int64 { return s[:4] },
			func(s []int64, end int64) [][2]int64 { return [][2]int64{{s[4], end}} }},
		{"legacy bad size field", legacy, Options{KeepGoing: true},
			func(b []byte, s []int64) { binary.BigEndian.PutUint32(b[s[1]+8:], 7) },
			func(s []int64) []int64 { return append([]int64{s[0]}, s[2:]...) },
			func(s []int64, _ int64) [][2]int64 { return [][2]int64{{s[1], s[2]}} }},
		{"legacy bad checksum, verified", legacy, Options{KeepGoing: true, VerifyCRC: true},
			func(b []byte, s []int64) { b[s[2]-1] ^= 0xff },
			func(s []int64) []int64 { return append([]int64{s[0]}, s[2:]...) },
			func(s []int64, _ int64) [][2]int64 { return [][2]int64{{s[1], s[2]}} }},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			data := bytes.Clone(c.data)
			s := entryStarts(data)
			if len(s) < 3 {
				t.Fatalf("fixture has %d entries", len(s))
			}
			c.mutate(data, s)
			r := runStream(data, c.opts)
			if r.err != nil {
				t.Fatalf("keep-going stream stopped: %v", r.err)
			}
			if want := c.wantPos(s); !equalInt64s(r.positions, want) {
				t.Errorf("entries at %v, want %v", r.positions, want)
			}
			want := c.wantRegion(s, int64(len(data)))
			if len(r.regions) != len(want) {
				t.Fatalf("regions %+v, want %v", r.regions, want)
			}
			for i, g := range r.regions {
				if g.From != want[i][0] || g.To != want[i][1] || g.File != "x.log" {
					t.Errorf("region %d: %s [%d,%d), want [%d,%d)", i, g.File, g.From, g.To, want[i][0], want[i][1])
				}
				var se *Error
				if !errors.As(g.Cause, &se) || se.File != "x.log" {
					t.Errorf("region %d: cause %v is not located", i, g.Cause)
				}
				if g.Resumed != (g.To < int64(len(data))) {
					t.Errorf("region %d: Resumed %v with To %d of %d", i, g.Resumed, g.To, len(data))
				}
			}
			// Without keep-going the same input stops at the first region.
			if len(want) > 0 {
				opts := c.opts
				opts.KeepGoing = false
				if r := runStream(data, opts); r.err == nil && r.tail == int64(len(data)) {
					t.Errorf("without keep-going: no error and no tail")
				}
			}
		})
	}
}

// TestStreamRejectAndSkip: the consumer's two verdicts on a framed entry.
func TestStreamRejectAndSkip(t *testing.T) {
	data := testSegment(t, 4, batch.CodecNone)
	s := entryStarts(data)
	cause := errors.New("bad contents")
	for _, keep := range []bool{true, false} {
		var regions []Region
		st := NewStream(BytesSource("x.log", data), Options{KeepGoing: keep, OnRegion: func(r Region) { regions = append(regions, r) }})
		var seen []int64
		for st.Next() {
			b := st.Batch()
			seen = append(seen, b.Pos)
			if b.Pos == s[1] && !st.Skip(cause) {
				break
			}
		}
		if !keep {
			var se *Error
			if !errors.As(st.Err(), &se) || se.Offset != s[1] || !errors.Is(st.Err(), cause) {
				t.Fatalf("Skip without keep-going: err %v, want the cause located at %d", st.Err(), s[1])
			}
			continue
		}
		if !equalInt64s(seen, s) || len(regions) != 1 || regions[0].From != s[1] || regions[0].To != s[2] {
			t.Fatalf("Skip: entries %v regions %+v", seen, regions)
		}
	}
	// Reject distrusts the header: the search starts at the next byte and
	// finds the following entry.
	var regions []Region
	st := NewStream(BytesSource("x.log", data), Options{KeepGoing: true, OnRegion: func(r Region) { regions = append(regions, r) }})
	var seen []int64
	for st.Next() {
		seen = append(seen, st.Batch().Pos)
		if st.Batch().Pos == s[2] {
			st.Reject(cause)
		}
	}
	if !equalInt64s(seen, s) || len(regions) != 1 || regions[0].From != s[2] || regions[0].To != s[3] {
		t.Fatalf("Reject: entries %v regions %+v", seen, regions)
	}
}

// TestInfoLegacyCountsInnerMessages: a compressed legacy wrapper is one
// batch of its inner messages, with their first offset.
func TestInfoLegacyCountsInnerMessages(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("..", "testdata", "legacy", "v1gzip-ok-0", "00000000000000000009.log"))
	if err != nil {
		t.Fatal(err)
	}
	st := NewStream(BytesSource("x.log", data), Options{})
	n := 0
	for st.Next() {
		in, err := st.Batch().Info()
		if err != nil {
			t.Fatal(err)
		}
		inner, err := st.Batch().Inner()
		if err != nil {
			t.Fatal(err)
		}
		if in.Records != len(inner) || in.BaseOffset != inner[0].Offset || in.LastOffset != inner[len(inner)-1].Offset {
			t.Errorf("entry %d: info %+v, inner %d messages %d..%d", n, in, len(inner), inner[0].Offset, inner[len(inner)-1].Offset)
		}
		// InnerIter after Info (which opened it) and Inner (which reused
		// the decompressor) gives the same messages, twice over.
		for range 2 {
			it, err := st.Batch().InnerIter()
			if err != nil {
				t.Fatal(err)
			}
			k := 0
			for it.Next() {
				if m := it.Message(); k >= len(inner) || m.Offset != inner[k].Offset || string(m.Value) != string(inner[k].Value) {
					t.Fatalf("entry %d: InnerIter message %d differs from Inner's", n, k)
				}
				k++
			}
			if k != len(inner) {
				t.Fatalf("entry %d: InnerIter gave %d messages, Inner %d", n, k, len(inner))
			}
		}
		if in.Codec != batch.CodecNone {
			n++
		}
	}
	if st.Err() != nil || n == 0 {
		t.Fatalf("%d compressed wrappers, err %v", n, st.Err())
	}
}

func equalInt64s(a, b []int64) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// adversarial is n bytes in which every 20th byte starts a near-valid v2
// header (magic 2, a length reaching to the end of the data) whose
// checksum is wrong, followed by one intact batch.
func adversarial(tb testing.TB, n int) ([]byte, int64) {
	good := testSegment(tb, 1, batch.CodecNone)
	data := make([]byte, n, n+len(good))
	for p := 0; p+20 <= n; p += 20 {
		binary.BigEndian.PutUint32(data[p+8:], uint32(n-p-batch.LogOverhead))
		data[p+16] = batch.MagicV2
	}
	return append(data, good...), int64(n)
}

// TestResyncAdversarial: the search through near-valid headers lands on
// the intact batch after them.
func TestResyncAdversarial(t *testing.T) {
	data, want := adversarial(t, 1<<20)
	r := runStream(data, Options{KeepGoing: true, VerifyCRC: true})
	if r.err != nil || len(r.positions) != 1 || r.positions[0] != want {
		t.Fatalf("entries %v err %v, want one at %d", r.positions, r.err, want)
	}
}

// BenchmarkResyncAdversarial: time per MiB of adversarial input stays flat
// as the input grows (linear resync); b.SetBytes makes it MB/s.
func BenchmarkResyncAdversarial(b *testing.B) {
	for _, mib := range []int{1, 4, 16, 64} {
		b.Run("MiB="+itoa(mib), func(b *testing.B) {
			data, want := adversarial(b, mib<<20)
			b.SetBytes(int64(len(data)))
			for b.Loop() {
				r := runStream(data, Options{KeepGoing: true, VerifyCRC: true})
				if len(r.positions) != 1 || r.positions[0] != want {
					b.Fatalf("entries %v", r.positions)
				}
			}
		})
	}
}

func itoa(n int) string { return strconv.Itoa(n) }

// failingReader fails every read that reaches past limit, as a disk error.
type failingReader struct {
	data  []byte
	limit int64
}

func (f failingReader) ReadAt(p []byte, off int64) (int, error) {
	if off+int64(len(p)) > f.limit {
		return 0, &os.PathError{Op: "read", Path: "x.log", Err: errors.New("input/output error")}
	}
	return copy(p, f.data[off:]), nil
}

// TestStreamReadErrorStops: a failed read is not corruption: even under
// keep-going the stream stops with it instead of resynchronising past it.
func TestStreamReadErrorStops(t *testing.T) {
	data := testSegment(t, 4, batch.CodecNone)
	s := entryStarts(data)
	for _, verify := range []bool{false, true} {
		var regions []Region
		st := NewStream(Source{Name: "x.log", R: failingReader{data, s[2] + 30}, Size: int64(len(data))},
			Options{KeepGoing: true, VerifyCRC: verify, BlockSize: 64, OnRegion: func(r Region) { regions = append(regions, r) }})
		for st.Next() {
		}
		var pe *os.PathError
		if !errors.As(st.Err(), &pe) || len(regions) != 0 {
			t.Errorf("verify=%v: err %v, regions %+v; want the read error and no region", verify, st.Err(), regions)
		}
	}
}

// TestSchemeResolver: the partitions a resolver gives PartitionsVia flow
// through the same counting and iteration as files.
func TestSchemeResolver(t *testing.T) {
	data := testSegment(t, 5, batch.CodecNone, batch.CodecGzip)
	opened := 0
	resolve := func(arg string) ([]Partition, bool, error) {
		if !strings.HasPrefix(arg, "mem-test://") {
			return nil, false, nil
		}
		seg := Segment{Path: arg + "/00000000000000000000.log", Size: int64(len(data)),
			Open: func() (Source, io.Closer, error) { opened++; return BytesSource(arg, data), nil, nil }}
		return []Partition{NewRemotePartition("t", 0, arg, []Segment{seg})}, true, nil
	}
	if _, err := Partitions([]string{"mem-test://x/t/0"}); err == nil {
		t.Fatal("Partitions resolved a URL: it walks local paths only")
	}
	ps, err := PartitionsVia([]string{"mem-test://x/t/0"}, resolve)
	if err != nil || len(ps) != 1 || ps[0].Name() != "t-0" {
		t.Fatalf("partitions %+v, err %v", ps, err)
	}
	want := 0
	st := NewStream(BytesSource("x", data), Options{})
	for st.Next() {
		want++
	}
	stats, err := CountPartitions(ps, 1, CountOptions{})
	if err != nil || stats[0].Stats.Batches != int64(want) {
		t.Fatalf("count %+v, err %v, want %d batches", stats, err, want)
	}
	it := NewIter(&ps[0])
	n := 0
	for it.NextBatch() {
		n++
	}
	if it.Err() != nil || n != want || opened != 2 {
		t.Fatalf("iter %d batches (err %v), opened %d times", n, it.Err(), opened)
	}
}
