package audit

import (
	"bufio"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"runtime/metrics"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/kseg/kseg/batch"
)

// gapLog writes dir/00000000000000000000.log: n one-record batches whose
// producer (of two) changes every runLen batches, each batch skipping a
// sequence. Each stretch of one producer is one merged sequence-gap
// finding of runLen batches (the first stretch one fewer): about n/runLen
// findings.
func gapLog(t testing.TB, dir string, n, runLen int) string {
	t.Helper()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "00000000000000000000.log")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	w := bufio.NewWriterSize(f, 1<<20)
	b := batch.NewBuilder(batch.CodecNone)
	var buf []byte
	seq := map[int64]int32{}
	for i := 0; i < n; i++ {
		b.Reset(batch.CodecNone)
		b.Append(1794025632481+int64(i), nil, []byte("v"), nil)
		pid := int64(1000 + (i/runLen)%2)
		h := batch.Header{BaseOffset: int64(i), ProducerID: pid, BaseSequence: seq[pid]}
		seq[pid] += 2
		if buf, err = b.Build(buf[:0], h, nil); err != nil {
			t.Fatal(err)
		}
		w.Write(buf)
	}
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	return path
}

func collect(t testing.TB, r *Result) []Finding {
	t.Helper()
	var out []Finding
	if err := r.Each(func(f *Finding) error { out = append(out, *f); return nil }); err != nil {
		t.Fatal(err)
	}
	return out
}

// TestStreamMatchesRun: RunStream's findings, read back from memory and
// from the spill file, equal Run's, with merged runs and their per-batch
// detail, with the compacted downgrade settled at the end, and the counts
// of the summary are those of the findings.
func TestStreamMatchesRun(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "gaps-0")
	gapLog(t, dir, 3*(storeMem+8000), 3)
	for _, opts := range []Options{{}, {Detail: true}, {Compacted: true, Detail: true}} {
		p, err := Partitions([]string{dir})
		if err != nil {
			t.Fatal(err)
		}
		want, err := Run(p[0], opts)
		if err != nil {
			t.Fatal(err)
		}
		got, err := RunStream(p[0], opts)
		if err != nil {
			t.Fatal(err)
		}
		if got.held.buf == nil || !got.held.buf.Spilled() {
			t.Fatalf("%+v: %d findings did not reach the spill file", opts, got.held.n)
		}
		gf := collect(t, got)
		if len(gf) <= storeMem || !reflect.DeepEqual(gf, want.Findings) {
			t.Fatalf("%+v: streamed %d findings, Run %d; first difference at %d", opts, len(gf), len(want.Findings), firstDiff(gf, want.Findings))
		}
		if !reflect.DeepEqual(got.Summary, want.Summary) {
			t.Errorf("%+v: summary %+v, Run's %+v", opts, got.Summary, want.Summary)
		}
		counts := map[string]int{}
		for _, f := range gf {
			counts[f.Severity.String()]++
		}
		if !reflect.DeepEqual(counts, got.Summary.BySeverity) {
			t.Errorf("%+v: by severity %v, findings %v", opts, got.Summary.BySeverity, counts)
		}
		if m, _ := got.Max(); opts.Compacted != (m == Info) {
			t.Errorf("%+v: max severity %v", opts, m)
		}
		if opts.Detail && (len(gf[2].Batches) != 3 || gf[2].BatchCount != 3) {
			t.Errorf("%+v: merged finding %+v", opts, gf[2])
		}
		if err := got.Close(); err != nil {
			t.Fatal(err)
		}
	}
}

func firstDiff(a, b []Finding) int {
	for i := range min(len(a), len(b)) {
		if !reflect.DeepEqual(a[i], b[i]) {
			return i
		}
	}
	return min(len(a), len(b))
}

// TestStreamWindow: a run of one cause that the window cannot hold back
// (findings of other causes pile up behind it, more than the window and
// the store's memory hold) still comes out whole, at its place, with the
// others after it, and the counts are those of the findings. Two such
// runs, one batch apart: the second goes through the spill file.
func TestStreamWindow(t *testing.T) {
	a := newAuditor(&Partition{Name: "p-0"}, Options{}, true)
	n := 3 * window
	brk := n + 1 // the batch without an offset gap between the two runs
	for i := 1; i <= 2*n+1; i++ {
		a.enter(int64(i), int64(i+1))
		if i != brk {
			g := at(OffsetGap, Warning, "a.log", int64(i), nil)
			g.Count = 1
			a.add(g, false)
		}
		// A finding of another producer each batch: runs of one.
		s := at(EpochRegression, Error, "a.log", int64(i), nil)
		s.ProducerID = int64(i % 2)
		a.add(s, false)
		a.leave()
		if len(a.outq) > window+1 || len(a.raw) > window+1 {
			t.Fatalf("batch %d: %d raw, %d out held back", i, len(a.raw), len(a.outq))
		}
	}
	a.pump(true)
	a.settleCounts()
	if !a.store.buf.Spilled() || len(a.store.runs) != 1 {
		t.Fatalf("spilled %v, %d runs by reference in the file", a.store.buf.Spilled(), len(a.store.runs))
	}
	got := collect(t, a.res)
	if len(got) != 2*n+3 {
		t.Fatalf("%d findings, want %d", len(got), 2*n+3)
	}
	epoch := 1
	for i, f := range got {
		switch i {
		case 0, n + 2:
			from := int64(1 + i/(n+2)*(brk))
			if f.Code != OffsetGap || f.BatchCount != int64(n) || f.Count != int64(n) || f.Position != from || f.LastPosition != from+int64(n)-1 {
				t.Errorf("finding %d: %+v, want the offset gap over %d batches from %d", i, f, n, from)
			}
		default:
			if f.Code != EpochRegression || f.Position != int64(epoch) {
				t.Fatalf("finding %d: %+v, want the epoch regression of batch %d", i, f, epoch)
			}
			epoch++
		}
	}
	if a.sum.Findings[OffsetGap] != 2 || a.sum.Findings[EpochRegression] != 2*n+1 || a.sum.BySeverity["error"] != 2*n+1 || a.sum.BySeverity["warning"] != 2 {
		t.Errorf("summary %v %v", a.sum.Findings, a.sum.BySeverity)
	}
	if len(a.raw) != 0 || len(a.outq) != 0 {
		t.Errorf("left behind: %d raw, %d out", len(a.raw), len(a.outq))
	}
	a.res.Close()
}

// TestStreamMemoryBound audits a partition with 100,000 findings. Run
// holds them all (tens of MiB, which checks that the bound below can
// fail); RunStream keeps the heap under 32 MiB while auditing and
// reading them back, and retains under 8 MiB beside the result.
func TestStreamMemoryBound(t *testing.T) {
	if testing.Short() {
		t.Skip("audits 100,000 batches twice")
	}
	dir := filepath.Join(t.TempDir(), "many-0")
	gapLog(t, dir, 100_002, 1)
	p, err := Partitions([]string{dir})
	if err != nil {
		t.Fatal(err)
	}
	const retainBound, peakBound = 8 << 20, 32 << 20
	base := heapAfterGC()

	held, err := Run(p[0], Options{})
	if err != nil {
		t.Fatal(err)
	}
	if n := len(held.Findings); n != 100_000 {
		t.Fatalf("%d findings, want 100000", n)
	}
	h := heapAfterGC() - base
	if h < 2*retainBound {
		t.Fatalf("Run retains only %d bytes for %d findings: the bound says nothing", h, len(held.Findings))
	}
	t.Logf("Run: %.1f MiB retained for %d findings", float64(h)/(1<<20), len(held.Findings))
	held = nil
	base = heapAfterGC()

	peak := sampleHeap()
	r, err := RunStream(p[0], Options{})
	if err != nil {
		t.Fatal(err)
	}
	retained := heapAfterGC() - base
	var n int
	var last Finding
	if err := r.Each(func(f *Finding) error { n++; last = *f; return nil }); err != nil {
		t.Fatal(err)
	}
	max := peak() - base
	if n != 100_000 || last.Code != SequenceGap || r.Summary.Findings[SequenceGap] != n {
		t.Fatalf("read back %d findings (summary %v), last %+v", n, r.Summary.Findings, last)
	}
	if retained > retainBound || max > peakBound {
		t.Errorf("RunStream: %.1f MiB retained (bound %d), peak heap %.1f MiB (bound %d)",
			float64(retained)/(1<<20), retainBound>>20, float64(max)/(1<<20), peakBound>>20)
	}
	var spilled int64
	if r.held.buf != nil {
		spilled = r.held.buf.Size()
	}
	t.Logf("RunStream: %.1f MiB retained, peak heap %.1f MiB above the start; %d bytes spilled, %.0f per finding",
		float64(retained)/(1<<20), float64(max)/(1<<20), spilled, float64(spilled)/float64(n-storeMem))
	if err := r.Close(); err != nil {
		t.Fatal(err)
	}
}

func heapAfterGC() int64 {
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return int64(m.HeapAlloc)
}

// sampleHeap samples the bytes of live and not yet swept heap objects
// every millisecond until the returned function is called, which returns
// the highest sample.
func sampleHeap() func() int64 {
	var peak atomic.Int64
	stop := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		s := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
		tick := time.NewTicker(time.Millisecond)
		defer tick.Stop()
		for {
			metrics.Read(s)
			if v := int64(s[0].Value.Uint64()); v > peak.Load() {
				peak.Store(v)
			}
			select {
			case <-stop:
				return
			case <-tick.C:
			}
		}
	}()
	return func() int64 {
		close(stop)
		wg.Wait()
		return peak.Load()
	}
}
