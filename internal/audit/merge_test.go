package audit

import (
	"path/filepath"
	"testing"
)

func lastOf(b []byte) int64 { h := header(b); return h.LastOffset() }

// positions returns where each batch starts when written one after another.
func positions(bs [][]byte) []int64 {
	out := make([]int64, len(bs))
	var p int64
	for i, b := range bs {
		out[i] = p
		p += int64(len(b))
	}
	return out
}

// TestMergedRuns edits a reference log so that one cause hits a run of
// adjacent batches: each run is one finding with its extent and size.
func TestMergedRuns(t *testing.T) {
	dir, _ := produce(t, 3000)
	bs := readBatches(t, filepath.Join(dir, "00000000000000000000.log"))
	if len(bs) < 40 {
		t.Fatalf("%d batches", len(bs))
	}
	out := filepath.Join(t.TempDir(), "audit-0")

	t.Run("repeated-run", func(t *testing.T) {
		// Batches 5..9 written again after batch 19: offsets go backwards
		// and sequences repeat, five batches in a row.
		log := append(append(append([][]byte{}, bs[:20]...), bs[5:10]...), bs[20:]...)
		writeLog(t, out, 0, log, false)
		pos := positions(log)
		r := auditOne(t, Options{Detail: true}, out)
		if len(r.Findings) != 2 {
			t.Fatalf("want one offset-gap and one duplicate-sequence:\n%s", dumpFindings(r))
		}
		for _, code := range []Code{OffsetGap, DuplicateSequence} {
			f := findings(r, code)[0]
			if f.Severity != Error || f.BatchCount != 5 || f.Position != pos[20] || f.LastPosition != pos[24] ||
				f.FirstOffset != header(bs[5]).BaseOffset || f.LastOffset != lastOf(bs[9]) || len(f.Batches) != 5 {
				t.Errorf("%s: %+v", code, f)
			}
			for i, d := range f.Batches {
				if d.Position != pos[20+i] || d.Message == "" {
					t.Errorf("%s detail %d: %+v", code, i, d)
				}
			}
		}
		var repeated int64
		for _, b := range bs[5:10] {
			h := header(b)
			repeated += h.LastOffset() - h.BaseOffset + 1
		}
		if f := findings(r, OffsetGap)[0]; f.Count != repeated || f.RelatedOffset != lastOf(bs[19]) {
			t.Errorf("offset-gap count %d related %d, want %d and %d", f.Count, f.RelatedOffset, repeated, lastOf(bs[19]))
		}
		if f := findings(r, DuplicateSequence)[0]; f.RelatedOffset != header(bs[5]).BaseOffset || f.BaseSequence != header(bs[5]).BaseSequence {
			t.Errorf("duplicate run %+v", f)
		}
		if r.Summary.Findings[OffsetGap] != 1 || r.Summary.BySeverity["error"] != 2 {
			t.Errorf("summary %+v", r.Summary)
		}
		// Without Detail the per-batch findings are not kept.
		for _, f := range auditOne(t, Options{}, out).Findings {
			if f.Batches != nil {
				t.Errorf("%s keeps %d batches without Detail", f.Code, len(f.Batches))
			}
		}
	})
	t.Run("gaps-in-a-row", func(t *testing.T) {
		// Every other batch of 10..16 dropped: batches 12, 14 and 16 each
		// follow a gap, and are adjacent in the log.
		log := append(append([][]byte{}, bs[:11]...), bs[12], bs[14])
		log = append(log, bs[16:]...)
		writeLog(t, out, 0, log, false)
		pos := positions(log)
		r := auditOne(t, Options{}, out)
		var seqs, offs int64
		for _, i := range []int{11, 13, 15} {
			h := header(bs[i])
			seqs += int64(h.LastSequence()) - int64(h.BaseSequence) + 1
			offs += h.LastOffset() - h.BaseOffset + 1
		}
		if len(r.Findings) != 2 {
			t.Fatalf("want one sequence-gap and one offset-gap:\n%s", dumpFindings(r))
		}
		sg, og := findings(r, SequenceGap)[0], findings(r, OffsetGap)[0]
		if sg.BatchCount != 3 || sg.Count != seqs || sg.Position != pos[11] || sg.LastPosition != pos[13] || sg.Severity != Error {
			t.Errorf("sequence-gap %+v, want 3 batches, %d sequences", sg, seqs)
		}
		if og.BatchCount != 3 || og.Count != offs || og.Severity != Warning {
			t.Errorf("offset-gap %+v, want 3 batches, %d offsets", og, offs)
		}
	})
	t.Run("apart", func(t *testing.T) {
		// Two gaps with a good batch between them stay two findings.
		log := append(append([][]byte{}, bs[:11]...), bs[12], bs[13])
		log = append(log, bs[15:]...)
		writeLog(t, out, 0, log, false)
		r := auditOne(t, Options{}, out)
		if len(findings(r, SequenceGap)) != 2 || len(findings(r, OffsetGap)) != 2 {
			t.Fatalf("want two of each:\n%s", dumpFindings(r))
		}
		for _, f := range r.Findings {
			if f.BatchCount != 1 || f.LastPosition != f.Position || f.LastFile != f.File {
				t.Errorf("single-batch finding %+v", f)
			}
		}
	})
}

// TestMergeRules drives merge directly: what merges, what does not.
func TestMergeRules(t *testing.T) {
	region := func(file string, from, to int64) (Finding, findMeta) {
		f := at(CorruptBatch, Error, file, from, nil)
		f.Count, f.Message = to-from, "bad"
		return f, findMeta{start: from, end: to}
	}
	gap := func(pid int64, pos int64) (Finding, findMeta) {
		f := at(SequenceGap, Error, "a.log", pos, nil)
		f.ProducerID, f.ProducerEpoch, f.FirstOffset, f.LastOffset, f.Count = pid, 0, pos, pos, 1
		return f, findMeta{start: pos, end: pos + 1}
	}
	type in struct {
		f Finding
		m findMeta
	}
	mk := func(f Finding, m findMeta) in { return in{f, m} }
	tests := []struct {
		name string
		ins  []in
		want []int64 // BatchCount of each finding out
	}{
		{"regions-that-touch", []in{mk(region("a.log", 0, 10)), mk(region("a.log", 10, 25))}, []int64{2}},
		{"regions-apart", []in{mk(region("a.log", 0, 10)), mk(region("a.log", 11, 25))}, []int64{1, 1}},
		{"regions-in-two-files", []in{mk(region("a.log", 0, 10)), mk(region("b.log", 10, 25))}, []int64{1, 1}},
		{"one-producer", []in{mk(gap(7, 1)), mk(gap(7, 2)), mk(gap(7, 3))}, []int64{3}},
		{"two-producers", []in{mk(gap(7, 1)), mk(gap(8, 2))}, []int64{1, 1}},
		// Interleaved codes about the same batches still merge per code.
		{"interleaved", []in{mk(gap(7, 1)), mk(region("a.log", 1, 2)), mk(gap(7, 2)), mk(region("a.log", 2, 3))}, []int64{2, 2}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			a := newAuditor(&Partition{Name: "p-0"}, Options{}, false)
			prev := int64(-1)
			for _, x := range tc.ins {
				// Consecutive entries are consecutive batches, except two
				// findings about the same byte (the interleaved case).
				if x.m.start != prev {
					a.ord++
				}
				prev = x.m.start
				a.cur = findMeta{ord: a.ord, start: x.m.start, end: x.m.end}
				a.add(x.f, false)
			}
			a.cur = findMeta{}
			a.pump(true)
			var got []int64
			var out []Finding
			for _, h := range a.store.mem {
				out = append(out, h.f)
			}
			for _, f := range out {
				got = append(got, f.BatchCount)
			}
			if len(got) != len(tc.want) {
				t.Fatalf("batch counts %v, want %v", got, tc.want)
			}
			for i := range got {
				if got[i] != tc.want[i] {
					t.Errorf("batch counts %v, want %v", got, tc.want)
				}
			}
			if tc.name == "regions-that-touch" {
				f := out[0]
				if f.Count != 25 || f.Position != 0 || f.LastPosition != 10 {
					t.Errorf("merged region %+v", f)
				}
			}
		})
	}
}
