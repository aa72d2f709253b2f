package audit

import (
	"fmt"
)

// window is how many findings the audit holds back at most between
// finding them and handing them on (per queue below): enough for every
// merge and withdrawal a real log shows, and a bound on memory for logs
// with millions of findings.
const window = 4096

// How a finding travels from add to the partition's store:
//
//  1. raw: as added, in order. The head waits while it is a sequence gap
//     a later out-of-order batch may still withdraw (pinned: referenced by
//     its producer's gaps).
//  2. merge: a raw finding about a batch joins the open run of its cause
//     (runKey) when it is about the next batch, or starts one; the output
//     queue keeps runs at the place of their first finding.
//  3. out: the head leaves when it is final: a finding that does not
//     merge, or a run no later finding can extend (the audit has moved
//     past the batch after its last).
//
// A queue longer than window lets its head go anyway. A run that leaves
// while it can still grow goes to the store as a reference (store.runs),
// read when the partition is done, so it stays exact and whole. A pinned
// gap that leaves stays even if a later batch fills it: the one case where
// the findings differ from a merge of the whole list (a gap filled more
// than window findings after it was found).
//
// What only the end of the partition settles — whether it is compacted
// (which downgrades what compaction explains) and what caused a segment
// overlap — is applied when the findings are read back (settle), and the
// summary's counts by severity are kept as counts until then.

type rawEntry struct {
	f      Finding
	m      findMeta
	pinned bool
}

type outEntry struct {
	f Finding
	m findMeta
	r *run // the run this entry is, nil for a finding that does not merge
}

// rawAt is the raw finding id while it is still held back, else nil.
func (a *auditor) rawAt(id int64) *rawEntry {
	if id < a.rawBase || id >= a.rawBase+int64(len(a.raw)) {
		return nil
	}
	return &a.raw[id-a.rawBase]
}

// unpin lets a sequence gap go: no later batch can withdraw it.
func (a *auditor) unpin(gs []gapRef) {
	for _, g := range gs {
		if e := a.rawAt(g.finding); e != nil {
			e.pinned = false
		}
	}
}

// lowOrd is the lowest ordinal a finding not yet merged can have (0: a
// finding about no batch).
func (a *auditor) lowOrd() int64 {
	if len(a.raw) > 0 {
		return max(a.mergedOrd, a.raw[0].m.ord)
	}
	if a.cur.ord > 0 {
		return a.cur.ord
	}
	return a.ord + 1
}

// pump moves findings on as far as they are final; force moves them all
// (at the end of the partition).
func (a *auditor) pump(force bool) {
	n := 0
	for n < len(a.raw) {
		e := &a.raw[n]
		if e.pinned && !force && len(a.raw)-n <= window {
			break
		}
		a.mergeIn(e.f, e.m)
		n++
	}
	if n > 0 {
		a.raw = dropFront(a.raw, n)
		a.rawBase += int64(n)
	}
	low := a.lowOrd()
	n = 0
	for n < len(a.outq) {
		o := &a.outq[n]
		growing := o.r != nil && o.r.lastOrd+1 >= low && !force
		if growing && len(a.outq)-n <= window {
			break
		}
		a.emit(o, growing)
		n++
	}
	if n > 0 {
		a.outq = dropFront(a.outq, n)
	}
}

// dropFront removes q's first n elements, reusing its array.
func dropFront[T any](q []T, n int) []T {
	m := copy(q, q[n:])
	clear(q[m:])
	return q[:m]
}

// mergeIn merges a raw finding into the output queue (see merge.go's run).
func (a *auditor) mergeIn(f Finding, m findMeta) {
	if m.removed {
		return
	}
	if m.ord == 0 {
		a.outq = append(a.outq, outEntry{f: f, m: m})
		return
	}
	a.mergedOrd = m.ord
	k := runKey{f.Code, f.Severity, f.ProducerID, f.ProducerEpoch, m.explained}
	if r, ok := a.open[k]; ok && r.adjacent(&f, m) {
		r.add(f, m, a.opts.Detail)
		return
	}
	r := newRun(f, m, a.opts.Detail)
	r.key = k
	a.open[k] = r
	a.outq = append(a.outq, outEntry{m: m, r: r})
}

// emit hands a finding to the store and counts it: final, or a run that
// may still grow (its code, severity and cause, which the counts need, no
// longer change).
func (a *auditor) emit(o *outEntry, growing bool) {
	f := o.f
	if r := o.r; r != nil {
		f = r.first
		if growing {
			a.sum.Findings[f.Code]++
			a.count(f.Severity, o.m)
			a.store.putRun(r, o.m.explained, o.m.overlap)
			return
		}
		f = r.final()
		if a.open[r.key] == r {
			delete(a.open, r.key)
		}
	}
	a.sum.Findings[f.Code]++
	a.count(f.Severity, o.m)
	a.store.put(&f, o.m.explained, o.m.overlap)
}

func (a *auditor) count(sev Severity, m findMeta) {
	switch {
	case m.overlap:
		a.nOverlap++
	case m.explained && sev > Info:
		a.explained[sev]++
	default:
		a.sum.BySeverity[sev.String()]++
	}
}

// settle is what the end of a partition decides about findings handed on
// before it: applied as they are read back.
type settle struct {
	compacted bool
	cleaner   string // "" when nothing explains a segment overlap
}

func (s *settle) apply(f *Finding, explained, overlap bool) {
	if overlap {
		if s.cleaner != "" {
			f.Severity = Warning
			f.Message += fmt.Sprintf("; likely a log-cleaner swap in progress (%s): the cleaned segment is in place, the segments it replaces are not deleted yet", s.cleaner)
		} else {
			f.Severity = Error
			f.Message += "; likely a copied or restored directory, with segments from different copies of the log side by side (no .cleaned or .swap file, and the topic is not known to be compacted: --compacted says it is)"
		}
		f.Message += "; these batches are not checked again"
	}
	if explained && s.compacted && f.Severity > Info {
		f.Severity = Info
		f.Message += " (compacted partition: the log cleaner explains this)"
	}
}

// settleCounts completes the summary's counts by severity.
func (a *auditor) settleCounts() {
	bump := func(s Severity, n int) {
		if n > 0 {
			a.sum.BySeverity[s.String()] += n
		}
	}
	for s, n := range a.explained {
		sv := Severity(s)
		if a.sum.Compacted {
			sv = Info
		}
		bump(sv, n)
	}
	sev := Error
	if a.cleaner != "" {
		sev = Warning
	}
	bump(sev, a.nOverlap)
}
