package audit

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kseg/kseg/internal/realworld"
)

// between returns the batches whose base offset lies in [lo, hi] and the
// file positions they will have when written one after another.
func between(bs [][]byte, lo, hi int64) (out [][]byte, pos []int64) {
	var p int64
	for _, b := range bs {
		if h := header(b); h.BaseOffset >= lo && h.BaseOffset <= hi {
			out, pos = append(out, b), append(pos, p)
			p += int64(len(b))
		}
	}
	return out, pos
}

// TestSegmentOverlapRealBytes rebuilds, from a real broker-written log, the
// partition captured while the log cleaner swapped segments: the cleaned
// segment 0 already holds offsets 343..506 while the old segment 36 still
// starts at 36. That is one segment-overlap finding — not one offset-gap
// error per batch of segment 36 — and its severity says whether the
// cleaner explains it.
func TestSegmentOverlapRealBytes(t *testing.T) {
	src := filepath.Join(realworld.Dir(t), "segments", "rjmfernandes__flink-on-prem", "data")
	orders := readBatches(t, filepath.Join(src, "orders-0", "00000000000000000000.log"))
	build := func(t *testing.T, lo0 int64) (string, []int64) {
		dir := filepath.Join(t.TempDir(), "orders-0")
		seg0, _ := between(orders, lo0, 506)
		seg36, pos := between(orders, 36, 1000)
		writeLog(t, dir, 0, seg0, false)
		writeLog(t, dir, 36, seg36, false)
		var in []int64 // positions of segment 36's batches at or below 506
		for i, b := range seg36 {
			if header(b).BaseOffset <= 506 {
				in = append(in, pos[i])
			}
		}
		return dir, in
	}
	check := func(t *testing.T, r *Result, dir string, in []int64, first int64, sev Severity, cause string) Finding {
		t.Helper()
		fs := findings(r, SegmentOverlap)
		if len(fs) != 1 {
			t.Fatalf("want one segment-overlap, got:\n%s", dumpFindings(r))
		}
		f := fs[0]
		seg36 := filepath.Join(dir, "00000000000000000036.log")
		if f.Severity != sev || f.FirstOffset != first || f.LastOffset != 506 || f.RelatedOffset != 0 ||
			f.File != seg36 || f.LastFile != seg36 || f.Position != in[0] || f.LastPosition != in[len(in)-1] ||
			f.BatchCount != int64(len(in)) || f.Count != 506-first+1 {
			t.Errorf("overlap %+v; want %s offsets %d..506, positions %d..%d, %d batches", f, sev, first, in[0], in[len(in)-1], len(in))
		}
		if !strings.Contains(f.Message, cause) || !strings.Contains(f.Message, "00000000000000000000.log") {
			t.Errorf("message does not name the earlier segment and %q: %s", cause, f.Message)
		}
		// No per-batch flood: the overlap's batches raise nothing else.
		for _, g := range r.Findings {
			if g.Code != SegmentOverlap && g.File == seg36 {
				t.Errorf("segment 36 also has %s: %s", g.Code, g.Message)
			}
		}
		if len(r.Findings) > 3 || r.Summary.Findings[OffsetGap] > 1 {
			t.Errorf("%d findings:\n%s", len(r.Findings), dumpFindings(r))
		}
		return f
	}
	t.Run("cleaner-swap", func(t *testing.T) {
		dir, in := build(t, 343)
		if len(in) < 400 {
			t.Fatalf("only %d batches of segment 36 at or below 506", len(in))
		}
		if err := os.WriteFile(filepath.Join(dir, "00000000000000000000.log.swap"), nil, 0o644); err != nil {
			t.Fatal(err)
		}
		r := auditOne(t, Options{}, dir)
		f := check(t, r, dir, in, 343, Warning, "log-cleaner swap")
		if len(f.Batches) != 0 {
			t.Errorf("per-batch detail without Options.Detail")
		}
		// The cleaned segment starts past its base offset: one offset gap, info.
		if gs := findings(r, OffsetGap); len(gs) != 1 || gs[0].Severity != Info || gs[0].FirstOffset != 343 {
			t.Errorf("offset gaps:\n%s", dumpFindings(r))
		}
		// With Options.Detail the overlap lists each batch.
		d := check(t, auditOne(t, Options{Detail: true}, dir), dir, in, 343, Warning, "log-cleaner swap")
		if len(d.Batches) != len(in) {
			t.Fatalf("%d batch details, want %d", len(d.Batches), len(in))
		}
		for i, b := range d.Batches {
			if b.Position != in[i] || b.File != d.File || b.FirstOffset > 506 {
				t.Errorf("detail %d: %+v, want position %d", i, b, in[i])
			}
		}
	})
	t.Run("compacted-topic", func(t *testing.T) {
		dir, in := build(t, 343)
		check(t, auditOne(t, Options{Compacted: true}, dir), dir, in, 343, Warning, "log-cleaner swap")
	})
	t.Run("copied-directory", func(t *testing.T) {
		// Segment 0 whole up to 506 beside an older copy of segment 36.
		dir, in := build(t, 0)
		r := auditOne(t, Options{}, dir)
		check(t, r, dir, in, 36, Error, "copied or restored directory")
		if r.Summary.Compacted {
			t.Errorf("an overlap is no sign of compaction: %s", r.Summary.CompactedReason)
		}
	})
	// An idempotent producer's batches repeated by the overlap are not
	// duplicates on top of it.
	t.Run("idempotent-copy", func(t *testing.T) {
		bs := readBatches(t, filepath.Join(src, "loyalty_levels-0", "00000000000000000000.log"))
		hm := header(bs[len(bs)/2])
		last, lastEnd := hm.BaseOffset, hm.LastOffset()
		dir := filepath.Join(t.TempDir(), "loyalty_levels-0")
		seg0, _ := between(bs, 0, last)
		mid := header(bs[len(bs)/4]).BaseOffset
		seg1, _ := between(bs, mid, 1<<62)
		writeLog(t, dir, 0, seg0, false)
		writeLog(t, dir, mid, seg1, false)
		r := auditOne(t, Options{}, dir)
		fs := findings(r, SegmentOverlap)
		if len(fs) != 1 || len(r.Findings) != 1 || fs[0].Severity != Error || fs[0].FirstOffset != mid || fs[0].LastOffset != lastEnd {
			t.Fatalf("want one segment-overlap over %d..%d:\n%s", mid, lastEnd, dumpFindings(r))
		}
		if r.Producers[0].LastSequence != 17203 {
			t.Errorf("producer state %+v", r.Producers)
		}
	})
}
