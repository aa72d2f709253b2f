package producer

import (
	"math"
	"path/filepath"
	"testing"
	"time"

	"github.com/kseg/kseg/batch"
	"github.com/kseg/kseg/segment"
)

// traceFromDir reads every partition of the log directory dir into one
// trace (one session: the model's logs have one producer); keyed records
// keep their partition.
func traceFromDir(t testing.TB, dir string, partitions int) *Trace {
	t.Helper()
	parts, err := segment.Partitions([]string{dir})
	if err != nil {
		t.Fatal(err)
	}
	tb := NewTraceBuilder("t", partitions, 0, 0)
	var rec batch.Record
	for i := range parts {
		p := &parts[i]
		st := &segment.Stream{}
		for _, seg := range p.Segments {
			if err := st.OpenSegment(seg, 0); err != nil {
				t.Fatal(err)
			}
			for st.Next() {
				b := st.Batch()
				info, err := b.Info()
				if err != nil {
					t.Fatal(err)
				}
				if info.Control {
					continue
				}
				tb.Batch(int(p.Partition), info.Size)
				br, err := b.Records()
				if err != nil {
					t.Fatal(err)
				}
				for {
					ok, err := br.Next(&rec)
					if err != nil {
						t.Fatal(err)
					}
					if !ok {
						break
					}
					part := -1
					if rec.Key != nil {
						part = int(p.Partition)
					}
					if err := tb.Add(b.Header.BaseTimestamp+rec.TimestampDelta, part, rec.Key, rec.Value, rec.Headers); err != nil {
						t.Fatal(err)
					}
				}
			}
			if err := st.Err(); err != nil {
				t.Fatal(err)
			}
		}
		st.Close()
	}
	tr, err := tb.Build()
	if err != nil {
		t.Fatal(err)
	}
	return tr
}

// TestReplayReproducesModelLog: a log the ideal model wrote, replayed
// under the same settings with the ideal sender (and the same round trip),
// comes out batch for batch as it was written: the trace's arrivals (a
// millisecond's records spread evenly over it) are the model's own send
// times when the sender's rate divides a millisecond.
func TestReplayReproducesModelLog(t *testing.T) {
	tests := []struct {
		name string
		mod  func(*Config)
	}{
		{"unkeyed 3 partitions linger 5", func(c *Config) { c.Partitions = 3; c.Records = 3000; c.SendInterval = 250 * time.Microsecond }},
		{"keyed 4 partitions linger 20", func(c *Config) {
			c.Partitions = 4
			c.Records = 2000
			c.KeyPrefix, c.KeyCount = "k", 50
			c.LingerMs = 20
			c.SendInterval = 500 * time.Microsecond
		}},
		{"gzip batch.size 4096", func(c *Config) {
			c.Records = 3000
			c.BatchSize = 4096
			c.Compression = batch.CodecGzip
			c.ValueEntropy = 0.3
			c.SendInterval = 100 * time.Microsecond
		}},
		{"slow sender linger 0", func(c *Config) { c.Records = 400; c.LingerMs = 0; c.SendInterval = 2 * time.Millisecond }},
		{"headers", func(c *Config) { c.Records = 1000; c.Headers = 2; c.SendInterval = 200 * time.Microsecond }},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			cfg := DefaultConfig()
			cfg.Timing = Timing{}
			tc.mod(&cfg)
			dir, res := runTo(t, cfg)
			tr := traceFromDir(t, dir, cfg.Partitions)
			if tr.Len() != int(cfg.Records) {
				t.Fatalf("trace holds %d records, want %d", tr.Len(), cfg.Records)
			}
			was := cfg
			was.KeyPrefix, was.KeyCount, was.Headers, was.ValueEntropy, was.ValueSize = "", 0, 0, -1, 0
			rr, err := Replay([]*Trace{tr}, was, Sender{RTT: cfg.RTT}, ReplayOptions{Runs: 1, Seed: cfg.Seed})
			if err != nil {
				t.Fatal(err)
			}
			run := rr.Runs[0]
			for p, ps := range res.Partitions {
				if run.Batches[p] != ps.Batches || run.Records[p] != ps.Records || run.Bytes[p] != ps.Bytes {
					t.Errorf("partition %d: replay %d batches, %d records, %d bytes; the log %d, %d, %d",
						p, run.Batches[p], run.Records[p], run.Bytes[p], ps.Batches, ps.Records, ps.Bytes)
				}
			}
			lb, lr, lbytes := tr.LogLayout()
			for p := range lb {
				if lb[p] != res.Partitions[p].Batches || lr[p] != res.Partitions[p].Records || lbytes[p] != res.Partitions[p].Bytes {
					t.Errorf("partition %d: trace's log layout %d/%d/%d, written %d/%d/%d", p, lb[p], lr[p], lbytes[p],
						res.Partitions[p].Batches, res.Partitions[p].Records, res.Partitions[p].Bytes)
				}
			}
		})
	}
}

// TestReplaySpreadIsNoise: placing a millisecond's records at random
// points of it instead of evenly moves the predicted median batch count
// by no more than the runs' own spread; SpreadBursts places them as
// evenly but for the cold start's catch-up (31 records in one
// millisecond, the model's synthetic sender's), which moves none of the
// runs' p5, p50 and p95.
func TestReplaySpreadIsNoise(t *testing.T) {
	cfg := DefaultConfig()
	cfg.Partitions, cfg.Records, cfg.SendInterval = 4, 20000, 120*time.Microsecond
	dir, _ := runTo(t, cfg)
	tr := traceFromDir(t, dir, cfg.Partitions)
	was := DefaultConfig()
	was.LingerMs = 20
	s := Sender{Lag: 200 * time.Microsecond, Close: 50 * time.Microsecond, RTT: 3 * time.Millisecond, Jitter: senderJitter, RunJitter: senderRunJitter, RTTJitter: senderRTTJitter}
	even, err := Replay([]*Trace{tr}, was, s, ReplayOptions{Runs: 40, Seed: 1, Spread: SpreadEven})
	if err != nil {
		t.Fatal(err)
	}
	random, err := Replay([]*Trace{tr}, was, s, ReplayOptions{Runs: 40, Seed: 1, Spread: SpreadRandom})
	if err != nil {
		t.Fatal(err)
	}
	bursts, err := Replay([]*Trace{tr}, was, s, ReplayOptions{Runs: 40, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	if b, e := bursts.TotalBatches(), even.TotalBatches(); b.P5 != e.P5 || b.P50 != e.P50 || b.P95 != e.P95 {
		t.Errorf("a fixed-rate log: the burst placement %+v differs from the even %+v", b, e)
	}
	e, r := even.TotalBatches(), random.TotalBatches()
	spread := max(e.P95-e.P5, r.P95-r.P5, 1)
	if d := e.P50 - r.P50; d > spread || -d > spread {
		t.Errorf("even spread p50 %d (p5-p95 %d-%d), random %d (%d-%d): differ by more than the runs' spread", e.P50, e.P5, e.P95, r.P50, r.P5, r.P95)
	}
	t.Logf("even %+v random %+v", e, r)
}

// TestReplaySessions: two sessions of one topic replay with their own
// accumulators and their layouts add up; the same records as one
// session are cut otherwise (their batches are shared).
func TestReplaySessions(t *testing.T) {
	mk := func(pid int64, startMs int64) *Trace {
		tb := NewTraceBuilder("t", 2, pid, 0)
		tb.Batch(0, 0)
		for i := range 200 {
			if err := tb.Add(startMs+int64(i), 0, []byte("k"), make([]byte, 100), nil); err != nil {
				t.Fatal(err)
			}
		}
		tr, err := tb.Build()
		if err != nil {
			t.Fatal(err)
		}
		return tr
	}
	a, b := mk(1, 1000), mk(2, 1000)
	cfg := DefaultConfig()
	cfg.LingerMs = 10
	ideal := Sender{RTT: time.Millisecond}
	one := func(tr *Trace) int64 {
		rr, err := Replay([]*Trace{tr}, cfg, ideal, ReplayOptions{Runs: 1})
		if err != nil {
			t.Fatal(err)
		}
		return rr.Runs[0].Batches[0]
	}
	both, err := Replay([]*Trace{a, b}, cfg, ideal, ReplayOptions{Runs: 1})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := both.Runs[0].Batches[0], one(a)+one(b); got != want {
		t.Errorf("two sessions: %d batches, want the sum of each alone, %d", got, want)
	}
	// As one producer (what producer id -1 forces): the records of both
	// share batches, so fewer batches.
	tb := NewTraceBuilder("t", 2, -1, -1)
	tb.Batch(0, 0)
	for i := range 200 {
		for range 2 {
			if err := tb.Add(1000+int64(i), 0, []byte("k"), make([]byte, 100), nil); err != nil {
				t.Fatal(err)
			}
		}
	}
	merged, err := tb.Build()
	if err != nil {
		t.Fatal(err)
	}
	if m := one(merged); m >= both.Runs[0].Batches[0] {
		t.Errorf("one merged session: %d batches, want fewer than two sessions' %d", m, both.Runs[0].Batches[0])
	}
}

// TestTraceSample: past MaxSampleBytes the trace keeps every s-th
// record's bytes, and a record's stand-in has its own lengths.
func TestTraceSample(t *testing.T) {
	old := MaxSampleBytes
	MaxSampleBytes = 10000
	defer func() { MaxSampleBytes = old }()
	tb := NewTraceBuilder("t", 1, 0, 0)
	tb.Batch(0, 0)
	for i := range 1000 {
		v := make([]byte, 10+i%50)
		for j := range v {
			v[j] = byte(i)
		}
		if err := tb.Add(int64(i), -1, nil, v, []batch.RecordHeader{{Key: []byte("h"), Value: v[:3]}}); err != nil {
			t.Fatal(err)
		}
	}
	tr, err := tb.Build()
	if err != nil {
		t.Fatal(err)
	}
	if !tr.Sampled() || len(tr.ring) > MaxSampleBytes {
		t.Fatalf("sampled %v, ring %d bytes", tr.Sampled(), len(tr.ring))
	}
	var buf traceBuf
	for i := range int64(1000) {
		k, v, h := tr.record(i, &buf)
		if k != nil || len(v) != 10+int(i)%50 || len(h) != 1 || len(h[0].Key) != 1 || len(h[0].Value) != 3 {
			t.Fatalf("record %d: key %v, value %d bytes, headers %v", i, k, len(v), h)
		}
		if i%int64(tr.stride) == 0 && v[0] != byte(i) {
			t.Fatalf("record %d is kept but has stand-in bytes", i)
		}
	}
}

// TestTraceMerge: partitions read one after another come out in time
// order, ties in read order, and the batch starts move with them.
func TestTraceMerge(t *testing.T) {
	tb := NewTraceBuilder("t", 2, 0, 0)
	tb.Batch(0, 0)
	for _, ms := range []int64{1, 3, 3, 7} {
		tb.Add(ms, 0, []byte{0}, nil, nil)
	}
	tb.Batch(1, 0)
	for _, ms := range []int64{2, 3, 5} {
		tb.Add(ms, 1, []byte{1}, nil, nil)
	}
	tr, err := tb.Build()
	if err != nil {
		t.Fatal(err)
	}
	var got []int64
	var parts []int16
	var firsts []bool
	for i := range tr.Len() {
		r := tr.rec(i)
		got = append(got, int64(r.ms)+tr.StartMs)
		parts = append(parts, r.part)
		firsts = append(firsts, tr.isFirst(i))
	}
	want := []int64{1, 2, 3, 3, 3, 5, 7}
	wantParts := []int16{0, 1, 0, 0, 1, 1, 0}
	wantFirst := []bool{true, true, false, false, false, false, false}
	for i := range want {
		if got[i] != want[i] || parts[i] != wantParts[i] || firsts[i] != wantFirst[i] {
			t.Fatalf("merged %v %v %v, want %v %v %v", got, parts, firsts, want, wantParts, wantFirst)
		}
	}
}

// TestArrivalsEven: k records of a millisecond at j/k of it.
func TestArrivalsEven(t *testing.T) {
	tb := NewTraceBuilder("t", 1, 0, 0)
	tb.Batch(0, 0)
	for _, ms := range []int64{10, 10, 10, 10, 11, 13, 13} {
		tb.Add(ms, -1, nil, nil, nil)
	}
	tr, _ := tb.Build()
	a := newArrivals(tr, SpreadEven, 1, 0)
	want := []int64{10e6, 10.25e6, 10.5e6, 10.75e6, 11e6, 13e6, 13.5e6}
	for i, w := range want {
		if got := a.at(int64(i)); got != w {
			t.Errorf("record %d arrives at %d, want %d", i, got, w)
		}
	}
	r := newArrivals(tr, SpreadRandom, 1, 0)
	prev := int64(math.MinInt64)
	for i := range want {
		got := r.at(int64(i))
		if got < prev || got/1e6 != int64(tr.rec(i).ms)+tr.StartMs {
			t.Errorf("random spread: record %d at %d (after %d), outside its millisecond or out of order", i, got, prev)
		}
		prev = got
	}
}

// TestArrivalsBursts: the milliseconds of a burst hold it at the
// session's peak rate, packed against each other; sparse milliseconds
// keep the even spread.
func TestArrivalsBursts(t *testing.T) {
	tb := NewTraceBuilder("t", 1, 0, 0)
	tb.Batch(0, 0)
	add := func(ms int64, n int) {
		for range n {
			tb.Add(ms, -1, nil, nil, nil)
		}
	}
	// one record every 10 ms over 2 s (the session's mean rate is 0.1 a
	// millisecond, so 3 records in one are a burst), a burst of 100 in
	// one millisecond (the peak), and bursts across millisecond
	// boundaries: 209 burst records over 2 boundaries crossed, a pace of
	// 104.5 a millisecond (9,569 ns apart)
	for ms := int64(0); ms < 2000; ms += 10 {
		add(ms, 1)
	}
	add(105, 100)
	add(201, 2)
	add(202, 60) // 201-203: a burst over three milliseconds
	add(203, 40)
	add(305, 1) // a sparse millisecond next to another: not a burst
	add(306, 1)
	add(401, 2) // a millisecond of two: not dense (at least 3)
	add(505, 7) // a burst alone in a millisecond: centred
	tr, err := tb.Build()
	if err != nil {
		t.Fatal(err)
	}
	if tr.peakPerMs != 100 || tr.densePerMs != 3 || tr.burstPace != 104.5 {
		t.Fatalf("peak %d a millisecond, dense from %d, burst pace %v; want 100, 3 and 104.5", tr.peakPerMs, tr.densePerMs, tr.burstPace)
	}
	a := newArrivals(tr, SpreadBursts, 1, 0)
	at := map[int64][]int64{}
	for i := range tr.Len() {
		ms := int64(tr.rec(i).ms)
		at[ms] = append(at[ms], a.at(int64(i))-ms*1e6)
	}
	const step int64 = 9569 // ns: 104.5 a millisecond
	tests := []struct {
		name  string
		ms    int64
		first int64 // the first record's offset in the millisecond
		gap   int64 // between its records (-1: at j/k of the millisecond)
	}{
		{"a burst alone in its millisecond is centred (the peak nearly fills it)", 105, (1e6 - 99*step) / 2, step},
		{"a burst's first millisecond packs against its end", 201, 1e6 - 2*step, step},
		{"a burst's middle millisecond spreads evenly", 202, 0, -1},
		{"a burst's last millisecond packs against its start", 203, 0, step},
		{"sparse neighbours keep the even spread", 305, 0, 0},
		{"two records are no burst", 401, 0, -1},
		{"a small burst alone is centred", 505, (1e6 - 6*step) / 2, step},
		{"a record between bursts", 110, 0, 0},
	}
	for _, tc := range tests {
		got := at[tc.ms]
		if len(got) == 0 {
			t.Fatalf("%s: no records at %d", tc.name, tc.ms)
		}
		if got[0] != tc.first {
			t.Errorf("%s: first record at %d ns, want %d", tc.name, got[0], tc.first)
		}
		for j := 1; j < len(got); j++ {
			if tc.gap < 0 {
				if want := int64(j) * 1e6 / int64(len(got)); got[j] != want {
					t.Errorf("%s: record %d at %d ns, want %d (evenly)", tc.name, j, got[j], want)
					break
				}
				continue
			}
			if d := got[j] - got[j-1]; d != tc.gap {
				t.Errorf("%s: records %d and %d %d ns apart, want %d", tc.name, j-1, j, d, tc.gap)
				break
			}
		}
	}
	// a window that starts mid-burst does not know the millisecond
	// before it: its first millisecond packs against the next one
	lo := 0
	for tr.rec(lo).ms != 202 {
		lo++
	}
	w := newArrivals(tr.view(lo, tr.Len()), SpreadBursts, 1, 0)
	if got, want := w.at(0)-202e6, int64(1e6-60*step); got != want {
		t.Errorf("a window's first millisecond of a burst: first record at %d ns, want %d", got, want)
	}
}

// TestBurstPace: a session's burst pace is its bursts' records over the
// millisecond boundaries they cross, never below the most records of one
// millisecond.
func TestBurstPace(t *testing.T) {
	build := func(bursts [][]int) *Trace {
		tb := NewTraceBuilder("t", 1, 0, 0)
		tb.Batch(0, 0)
		for ms := int64(0); ms < 4000; ms += 10 { // the background: 0.1 a millisecond
			tb.Add(ms, -1, nil, nil, nil)
		}
		for b, ks := range bursts {
			for j, k := range ks {
				for range k {
					tb.Add(int64(5+40*b+j), -1, nil, nil, nil)
				}
			}
		}
		tr, err := tb.Build()
		if err != nil {
			t.Fatal(err)
		}
		return tr
	}
	var tenBursts [][]int // 10 bursts of 100: 3 cross one boundary (60 + 40), 7 do not
	for b := range 10 {
		if b < 3 {
			tenBursts = append(tenBursts, []int{60, 40})
		} else {
			tenBursts = append(tenBursts, []int{100})
		}
	}
	tests := []struct {
		name   string
		bursts [][]int
		want   float64
	}{
		{"a third of a millisecond a burst", tenBursts, 1000.0 / 3},
		{"no boundary crossed: half of one", [][]int{{100}, {100}}, 400},
		{"slower than the peak: the peak", [][]int{{100, 5, 5, 5}}, 100},
		{"no burst: the peak", nil, 1},
	}
	for _, tc := range tests {
		tr := build(tc.bursts)
		if math.Abs(tr.burstPace-tc.want) > 1e-9 {
			t.Errorf("%s: pace %v, want %v (peak %d)", tc.name, tr.burstPace, tc.want, tr.peakPerMs)
		}
	}
}

// TestPlanWindows: windows cover the trace's records once, cut at idle
// gaps when there are some.
func TestPlanWindows(t *testing.T) {
	tb := NewTraceBuilder("t", 1, 0, 0)
	tb.Batch(0, 0)
	ms := int64(0)
	for i := range 10000 {
		if i%3000 == 2999 {
			ms += 5000 // an idle gap
		}
		tb.Add(ms, -1, nil, nil, nil)
		if i%4 == 0 {
			ms++
		}
	}
	tr, _ := tb.Build()
	wins := planWindows(tr, 1000, 2000)
	next := 0
	idle := 0
	for _, w := range wins {
		if w.countLo != next || w.lo > w.countLo || w.hi < w.countHi {
			t.Fatalf("windows %+v do not tile the trace", wins)
		}
		if w.lo == w.countLo && w.countLo > 0 {
			idle++
		}
		next = w.countHi
	}
	if next != tr.Len() || idle < 3 {
		t.Errorf("windows end at %d of %d, %d cut at idle gaps", next, tr.Len(), idle)
	}
	_ = filepath.Join
}

// TestReplayWindowsAgree: a trace cut into windows replays close to the
// same trace in one piece.
func TestReplayWindowsAgree(t *testing.T) {
	cfg := DefaultConfig()
	cfg.Partitions, cfg.Records, cfg.SendInterval = 3, 30000, 100*time.Microsecond
	cfg.Timing = Timing{}
	dir, _ := runTo(t, cfg)
	tr := traceFromDir(t, dir, cfg.Partitions)
	s := Sender{Lag: 300 * time.Microsecond, Close: 50 * time.Microsecond, RTT: 3 * time.Millisecond, Jitter: senderJitter, RunJitter: senderRunJitter, RTTJitter: senderRTTJitter}
	whole, err := Replay([]*Trace{tr}, cfg, s, ReplayOptions{Runs: 30, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	cut, err := Replay([]*Trace{tr}, cfg, s, ReplayOptions{Runs: 30, Seed: 1, WindowRecords: 3000, Budget: 1})
	if err != nil {
		t.Fatal(err)
	}
	if cut.Windows < 5 || cut.SimRuns != minSimRuns {
		t.Fatalf("%d windows, %d simulations each", cut.Windows, cut.SimRuns)
	}
	w, c := whole.TotalBatches(), cut.TotalBatches()
	tol := max(w.P95-w.P5, w.P50/50, 2)
	if d := w.P50 - c.P50; d > tol || -d > tol {
		t.Errorf("whole p50 %d (%+v), windowed %d (%+v)", w.P50, w, c.P50, c)
	}
	t.Logf("whole %+v windowed %+v", w, c)
}

// TestFitSender: a log the model wrote with a sender that lags and a
// slow broker is fitted back: the replay under the log's settings with
// the fitted sender reproduces its batch count within max(1, 5%), where
// the ideal sender does not.
func TestFitSender(t *testing.T) {
	tests := []struct {
		name string
		mod  func(*Config)
		s    Sender
	}{
		{"busy broker linger 0", func(c *Config) {
			c.Records, c.LingerMs, c.SendInterval = 4000, 0, 300*time.Microsecond
		}, Sender{Lag: time.Millisecond, Close: 100 * time.Microsecond, RTT: 8 * time.Millisecond}},
		{"lagging sender linger 0 3 partitions", func(c *Config) {
			c.Partitions, c.Records, c.LingerMs, c.SendInterval = 3, 6000, 0, 100*time.Microsecond
		}, Sender{Lag: 2 * time.Millisecond, Close: 200 * time.Microsecond, RTT: 4 * time.Millisecond}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			cfg := DefaultConfig()
			tc.mod(&cfg)
			tc.s.Apply(&cfg)
			dir, res := runTo(t, cfg)
			tr := traceFromDir(t, dir, cfg.Partitions)
			var logB int64
			for _, ps := range res.Partitions {
				logB += ps.Batches
			}
			was := DefaultConfig()
			was.LingerMs = cfg.LingerMs
			fit, err := FitSender([]*Trace{tr}, was, FitOptions{Seed: 1})
			if err != nil {
				t.Fatal(err)
			}
			check := func(s Sender) int {
				rr, err := Replay([]*Trace{tr}, was, s, ReplayOptions{Runs: 21, Seed: 2})
				if err != nil {
					t.Fatal(err)
				}
				return rr.TotalBatches().P50
			}
			got, ideal := check(fit.Sender), check(Sender{RTT: time.Millisecond})
			tol := max(1, logB/20)
			if d := int64(got) - logB; d > tol || -d > tol {
				t.Errorf("fitted %+v (batch error %.3f, hist %.3f, %d tries): replay p50 %d batches, the log %d", fit.Sender, fit.BatchError, fit.HistError, fit.Evaluations, got, logB)
			}
			if d := int64(ideal) - logB; d <= tol && -d <= tol {
				t.Errorf("the ideal sender reproduces the log too (%d vs %d): the case does not test the fit", ideal, logB)
			}
			t.Logf("log %d, fitted %d (%+v, %d tries), ideal %d", logB, got, fit.Sender, fit.Evaluations, ideal)
		})
	}
}

// TestReplayPredictsModel: the model writes the same arrivals at two
// settings (A and B) with one sender; the senders fitted to A's log and
// the replay of A's records under B put B's median batch count inside
// the runs' p5-p95, or (band false) within pct percent of the predicted
// median. Measured: linger.ms 5 -> 20 predicts 98 for 105 (the fitted lag,
// 0.7 ms for a true 1 ms, cuts the linger windows short); 20 -> 0 cannot
// be told from a log cut by linger.ms (the round trip decides at 0, and
// the plausible senders spread the band over 262-4147 around the true
// 1500); batch.size 16384 -> 4096 predicts 324 for 327.
func TestReplayPredictsModel(t *testing.T) {
	s := Sender{Lag: time.Millisecond, Close: 100 * time.Microsecond, RTT: 4 * time.Millisecond, Jitter: senderJitter, RunJitter: senderRunJitter, RTTJitter: senderRTTJitter}
	tests := []struct {
		name string
		a, b func(*Config)
		band bool
		pct  int
	}{
		{"linger 5 to 20", func(c *Config) { c.LingerMs = 5 }, func(c *Config) { c.LingerMs = 20 }, false, 10},
		{"linger 20 to 0", func(c *Config) { c.LingerMs = 20 }, func(c *Config) { c.LingerMs = 0 }, true, 0},
		{"batch.size 16384 to 4096", func(c *Config) { c.LingerMs = 50 }, func(c *Config) { c.LingerMs = 50; c.BatchSize = 4096 }, true, 5},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			base := DefaultConfig()
			base.Partitions, base.Records, base.SendInterval = 3, 8000, 250*time.Microsecond
			s.Apply(&base)
			a, b := base, base
			tc.a(&a)
			tc.b(&b)
			dirA, _ := runTo(t, a)
			envB, err := Simulate(b, 41)
			if err != nil {
				t.Fatal(err)
			}
			var totals []int
			for _, l := range envB.Runs {
				n := 0
				for p := range l.Partitions {
					n += l.Batches(p)
				}
				totals = append(totals, n)
			}
			truth := quantiles(totals).P50
			tr := traceFromDir(t, dirA, base.Partitions)
			wasA, nowB := DefaultConfig(), DefaultConfig()
			tc.a(&wasA)
			tc.b(&nowB)
			fit, err := FitSender([]*Trace{tr}, wasA, FitOptions{Seed: 1})
			if err != nil {
				t.Fatal(err)
			}
			rr, err := ReplayMix([]*Trace{tr}, nowB, fit.Plausible, ReplayOptions{Runs: 41, Seed: 3})
			if err != nil {
				t.Fatal(err)
			}
			q := rr.TotalBatches()
			if tc.band && (truth < q.P5 || truth > q.P95) {
				t.Errorf("predicted %+v, the model at B %d outside p5-p95 (fit %+v, %d plausible)", q, truth, fit.Sender, len(fit.Plausible))
			}
			if tol := max(1, q.P50*tc.pct/100); tc.pct > 0 && (q.P50-truth > tol || truth-q.P50 > tol) {
				t.Errorf("predicted median %d, the model at B %d: more than %d%% apart", q.P50, truth, tc.pct)
			}
			tq, err := Replay([]*Trace{tr}, nowB, s, ReplayOptions{Runs: 41, Seed: 3})
			if err != nil {
				t.Fatal(err)
			}
			t.Logf("predicted p50 %d [%d-%d], B's median %d; fit %+v (%d plausible); with the true sender %+v", q.P50, q.P5, q.P95, truth, fit.Sender, len(fit.Plausible), tq.TotalBatches())
		})
	}
}

// firstUseTrace is one partition's log of a sender whose records are due
// every interval from 0: first is record 0's timestamp alone, then the
// records piled up until 0+gap (perMs a millisecond, sent back to back),
// then the schedule. gap 0 is a log without a stall.
func firstUseTrace(t *testing.T, n int, interval time.Duration, gap int64, perMs int) *Trace {
	t.Helper()
	tb := NewTraceBuilder("t", 1, 0, 0)
	tb.Batch(0, 0)
	tb.Add(1000, -1, nil, []byte("v"), nil)
	for i := 1; i < n; i++ {
		due := int64(time.Duration(i) * interval / time.Millisecond)
		ms := max(due, gap+int64(i/perMs))
		if gap == 0 {
			ms = due
		}
		if err := tb.Add(1000+ms, -1, nil, []byte("v"), nil); err != nil {
			t.Fatal(err)
		}
	}
	tr, err := tb.Build()
	if err != nil {
		t.Fatal(err)
	}
	return tr
}

// TestWithoutFirstUse: the records that waited for a codec's load go back
// to the log's own pace, and no further: a fixed-rate sender returns to
// its schedule, a burst moves back whole, and a log without the stall (or
// a load of none) is left as it is.
func TestWithoutFirstUse(t *testing.T) {
	t.Run("fixed rate", func(t *testing.T) {
		tr := firstUseTrace(t, 2000, 500*time.Microsecond, 40, 30)
		early := tr.withoutFirstUse(43 * time.Millisecond)
		if len(early) < 70 || len(early) > 90 {
			t.Fatalf("%d records re-timed, want the ~80 that waited", len(early))
		}
		for i, ns := range early {
			want := 1000e6 + int64(i)*500e3
			if d := ns - want; d < -1e6 || d > 2e6 {
				t.Errorf("record %d at %.2f ms, its schedule %.2f ms", i, float64(ns)/1e6, float64(want)/1e6)
			}
			if i > 0 && ns < early[i-1] {
				t.Errorf("record %d at %d before record %d at %d", i, ns, i-1, early[i-1])
			}
			if log := (tr.StartMs + int64(tr.rec(i).ms)) * 1e6; ns > log {
				t.Errorf("record %d moved later: %d, log %d", i, ns, log)
			}
		}
	})
	t.Run("burst", func(t *testing.T) {
		tb := NewTraceBuilder("t", 1, 0, 0)
		tb.Batch(0, 0)
		for i := range 500 {
			ms := int64(i / 40) // bursts of 250 back to back, the second 120 ms later
			switch {
			case i == 0:
			case i < 250:
				ms += 50 // the load: the burst's other records waited
			default:
				ms = 120 + int64((i-250)/40)
			}
			tb.Add(2000+ms, -1, nil, []byte("v"), nil)
		}
		tr, _ := tb.Build()
		early := tr.withoutFirstUse(50 * time.Millisecond)
		if len(early) != 250 {
			t.Fatalf("%d records re-timed, want the first burst's 250", len(early))
		}
		for i, ns := range early {
			if want := (2000 + int64(i/40)) * 1e6; ns != want {
				t.Errorf("record %d at %d, want %d (moved back by the load)", i, ns, want)
			}
		}
	})
	t.Run("no stall", func(t *testing.T) {
		if e := firstUseTrace(t, 500, 500*time.Microsecond, 0, 1).withoutFirstUse(43 * time.Millisecond); e != nil {
			t.Errorf("a log without the gap: %d records re-timed", len(e))
		}
		if e := firstUseTrace(t, 500, 500*time.Microsecond, 40, 30).withoutFirstUse(0); e != nil {
			t.Errorf("no load: %d records re-timed", len(e))
		}
	})
}

// TestReplayCodecFirstUse: a replay under a codec the log was not written
// with sends its first record with the codec's load, the records due
// meanwhile waiting (fewer, fuller batches at the start); one from a log
// that has the load, under no codec, takes it out (more batches); the
// same codec as the log's changes nothing.
func TestReplayCodecFirstUse(t *testing.T) {
	s := Sender{Lag: 200 * time.Microsecond, Close: 50 * time.Microsecond, RTT: 3 * time.Millisecond}
	lz4, none := batch.CodecLZ4, batch.CodecNone
	total := func(tr *Trace, codec batch.Codec, logCodec *batch.Codec) int {
		cfg := DefaultConfig()
		cfg.LingerMs, cfg.Compression = 5, codec
		rr, err := Replay([]*Trace{tr}, cfg, s, ReplayOptions{Runs: 5, Seed: 1, LogCodec: logCodec})
		if err != nil {
			t.Fatal(err)
		}
		return rr.TotalBatches().P50
	}
	plain := firstUseTrace(t, 400, time.Millisecond, 0, 1)
	same, loaded := total(plain, lz4, nil), total(plain, lz4, &none)
	if loaded >= same-2 {
		t.Errorf("a log without lz4 replayed under lz4: %d batches with its load, %d without; want fewer", loaded, same)
	}
	if got := total(plain, lz4, &lz4); got != same {
		t.Errorf("the log's own codec: %d batches, %d without LogCodec", got, same)
	}
	stalled := firstUseTrace(t, 400, time.Millisecond, 43, 30)
	kept, unloaded := total(stalled, none, nil), total(stalled, none, &lz4)
	if unloaded <= kept+2 {
		t.Errorf("an lz4 log replayed under none: %d batches without its load, %d with; want more", unloaded, kept)
	}
	t.Logf("plain log under lz4: %d batches, with the load %d; lz4 log under none: %d, without its load %d", same, loaded, kept, unloaded)
}

// TestReplayPollGranularity: with Java's whole-millisecond poll timeout a
// replay's linger expiries are met up to a millisecond late, so at
// linger.ms 5 on a record every 2 ms the batches hold more records and
// are fewer; at linger.ms 0 nothing waits for a poll and nothing changes.
func TestReplayPollGranularity(t *testing.T) {
	tr := firstUseTrace(t, 600, 2*time.Millisecond, 0, 1)
	total := func(linger int64, pg time.Duration) int {
		s := Sender{Lag: 100 * time.Microsecond, Close: 20 * time.Microsecond, RTT: time.Millisecond, PollGranularity: pg}
		cfg := DefaultConfig()
		cfg.LingerMs = linger
		rr, err := Replay([]*Trace{tr}, cfg, s, ReplayOptions{Runs: 5, Seed: 1})
		if err != nil {
			t.Fatal(err)
		}
		return rr.TotalBatches().P50
	}
	exact, polled := total(5, 0), total(5, time.Millisecond)
	if polled >= exact {
		t.Errorf("linger.ms 5: %d batches with the poll timeout, %d without; want fewer", polled, exact)
	}
	if a, b := total(0, 0), total(0, time.Millisecond); a != b {
		t.Errorf("linger.ms 0: %d batches with the poll timeout, %d without; want the same", b, a)
	}
	t.Logf("linger.ms 5: %d batches met exactly, %d with the poll timeout", exact, polled)
}

// Many short sessions (a producer per request) are simulated a job of
// windows at a time (planJobs); each job's run is the sum of its
// windows', so with a sender without randomness the replay of all of
// them is the sum of each alone, requests included.
func TestReplayManyShortSessions(t *testing.T) {
	cfg := DefaultConfig()
	cfg.LingerMs = 5
	ideal := Sender{RTT: time.Millisecond}
	var traces []*Trace
	for s := range 3000 {
		tb := NewTraceBuilder("t", 3, int64(s+1), 0)
		tb.Batch(s%3, 0)
		for i := range 1 + s%7 {
			if err := tb.Add(1000+int64(s)*10+int64(i*s%4), s%3, []byte("k"), make([]byte, 50+s%300), nil); err != nil {
				t.Fatal(err)
			}
		}
		tr, err := tb.Build()
		if err != nil {
			t.Fatal(err)
		}
		traces = append(traces, tr)
	}
	if jobs := planJobs(func() []window {
		var ws []window
		for _, tr := range traces {
			ws = append(ws, planWindows(tr, DefaultWindowRecords, 1000)...)
		}
		return ws
	}()); len(jobs) >= len(traces)/10 {
		t.Fatalf("%d jobs for %d one-window sessions: small windows are not grouped", len(jobs), len(traces))
	}
	all, err := Replay(traces, cfg, ideal, ReplayOptions{Runs: 2})
	if err != nil {
		t.Fatal(err)
	}
	want := newRunLayout(3)
	for _, tr := range traces {
		one, err := Replay([]*Trace{tr}, cfg, ideal, ReplayOptions{Runs: 1})
		if err != nil {
			t.Fatal(err)
		}
		want.add(&one.Runs[0])
	}
	for r, got := range all.Runs {
		for p := range 3 {
			if got.Batches[p] != want.Batches[p] || got.Records[p] != want.Records[p] || got.Bytes[p] != want.Bytes[p] {
				t.Errorf("run %d partition %d: %d batches, %d records, %d B; each session alone: %d, %d, %d", r, p,
					got.Batches[p], got.Records[p], got.Bytes[p], want.Batches[p], want.Records[p], want.Bytes[p])
			}
		}
		if got.Requests != want.Requests {
			t.Errorf("run %d: %d requests, each session alone %d", r, got.Requests, want.Requests)
		}
	}
}

// The record store's first chunk grows as a slice does (a one-record
// session must not cost a 64 Ki chunk); records past it go to full
// chunks, and every index still finds its record.
func TestRecStoreGrows(t *testing.T) {
	var s recStore
	n := 3<<chunkBits + 17
	for i := range n {
		s.append(traceRec{num: uint32(i)})
		if i == 0 && cap(s.chunks[0]) > 64 {
			t.Fatalf("one record: a first chunk of %d", cap(s.chunks[0]))
		}
	}
	if s.len() != n || len(s.chunks) != 4 {
		t.Fatalf("%d records in %d chunks", s.len(), len(s.chunks))
	}
	for i := range n {
		if got := s.at(i).num; got != uint32(i) {
			t.Fatalf("at(%d) = record %d", i, got)
		}
	}
	v := s.view(1<<chunkBits-3, 1<<chunkBits+3)
	if v.len() != 6 || v.at(0).num != 1<<chunkBits-3 || v.at(5).num != 1<<chunkBits+2 {
		t.Errorf("view across chunks: %d records from %d to %d", v.len(), v.at(0).num, v.at(5).num)
	}
}

// FitOptions.SerialBroker: a what-if fit's senders answer one request at
// a time at the measured share and reproduce a log written by such a
// sender at linger.ms=0, where the share sets the pace; explain's fits
// (without it) keep a broker that overlaps requests.
func TestFitSerialBroker(t *testing.T) {
	cfg := DefaultConfig()
	cfg.Records, cfg.LingerMs, cfg.SendInterval = 4000, 0, 300*time.Microsecond
	Sender{Lag: 500 * time.Microsecond, Close: 100 * time.Microsecond, RTT: 2 * time.Millisecond, BrokerSerialShare: brokerSerialShare}.Apply(&cfg)
	dir, res := runTo(t, cfg)
	tr := traceFromDir(t, dir, cfg.Partitions)
	logB := res.Partitions[0].Batches
	was := DefaultConfig()
	was.LingerMs = 0
	for _, serial := range []bool{true, false} {
		fit, err := FitSender([]*Trace{tr}, was, FitOptions{Seed: 1, SerialBroker: serial})
		if err != nil {
			t.Fatal(err)
		}
		want := 0.0
		if serial {
			want = brokerSerialShare
		}
		for _, s := range fit.Plausible {
			if s.BrokerSerialShare != want {
				t.Errorf("SerialBroker %v: plausible sender %+v, want share %v", serial, s, want)
			}
		}
		if !serial {
			continue
		}
		rr, err := Replay([]*Trace{tr}, was, fit.Sender, ReplayOptions{Runs: 21, Seed: 2})
		if err != nil {
			t.Fatal(err)
		}
		if got := int64(rr.TotalBatches().P50); got-logB > max(1, logB/20) || logB-got > max(1, logB/20) {
			t.Errorf("fitted %+v: replay p50 %d batches, the log %d", fit.Sender, got, logB)
		}
	}
}

// lingerTrace is the trace of a model-written log of records sent every
// 200 µs at linger.ms=5 by a sender of known speed, and its settings.
func lingerTrace(t *testing.T, records int64) (*Trace, Config) {
	t.Helper()
	cfg := DefaultConfig()
	cfg.Records, cfg.LingerMs, cfg.SendInterval = records, 5, 200*time.Microsecond
	Sender{Lag: 500 * time.Microsecond, Close: 100 * time.Microsecond, RTT: 2 * time.Millisecond}.Apply(&cfg)
	dir, _ := runTo(t, cfg)
	was := DefaultConfig()
	was.LingerMs = 5
	return traceFromDir(t, dir, cfg.Partitions), was
}

// FitOptions.RunJitter sets the fitted senders' run-to-run spread (what-if
// replays take WhatifRunJitter, explain keeps senderRunJitter), and a
// wider spread widens the replay's range.
func TestFitRunJitter(t *testing.T) {
	tr, was := lingerTrace(t, 1000)
	width := map[float64]int{}
	for _, tc := range []struct{ opt, want float64 }{{0, senderRunJitter}, {WhatifRunJitter, WhatifRunJitter}} {
		fit, err := FitSender([]*Trace{tr}, was, FitOptions{Seed: 1, RunJitter: tc.opt})
		if err != nil {
			t.Fatal(err)
		}
		for _, s := range fit.Plausible {
			if s.RunJitter != tc.want {
				t.Errorf("RunJitter %v: plausible sender %+v, want run jitter %v", tc.opt, s, tc.want)
			}
		}
		s := Sender{Lag: 500 * time.Microsecond, Close: 100 * time.Microsecond, RTT: 2 * time.Millisecond,
			Jitter: senderJitter, RunJitter: tc.want, RTTJitter: senderRTTJitter, PollGranularity: time.Millisecond, SplitClose: true}
		rr, err := Replay([]*Trace{tr}, was, s, ReplayOptions{Runs: 200, Seed: 2})
		if err != nil {
			t.Fatal(err)
		}
		q := rr.TotalBatches()
		width[tc.want] = q.P95 - q.P5
	}
	if width[WhatifRunJitter] <= width[senderRunJitter] {
		t.Errorf("p5-p95 width %d at run jitter %v, narrower than %d at %v", width[WhatifRunJitter], WhatifRunJitter, width[senderRunJitter], senderRunJitter)
	}
}

// TestFitDraws: a fit's median batch count rests on at least Draws
// sender speeds, a run drawing one per window: a log replayed in one
// window takes Draws runs a try, one sampled in windows (past
// MaxRecords) the runs its size allows, which already draw as many.
func TestFitDraws(t *testing.T) {
	tr, was := lingerTrace(t, 3000)
	for _, tc := range []struct {
		name                 string
		maxRecords, window   int
		draws                int
		wantRuns, wantWindow int
	}{
		{"one window, no draws", 0, DefaultWindowRecords, 0, 25, 1},
		{"one window", 0, DefaultWindowRecords, 40, 40, 1},
		// 1,000-record windows, two of three kept: 400000/2000 runs
		{"sampled", 2000, 0, 40, 25, 2},
		{"sampled, more draws than the size allows", 2000, 0, 60, 30, 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			fit, err := FitSender([]*Trace{tr}, was, FitOptions{Seed: 1, MaxRecords: tc.maxRecords, WindowRecords: tc.window, Draws: tc.draws, Rounds: 1, BestOnly: true})
			if err != nil {
				t.Fatal(err)
			}
			if fit.Runs != tc.wantRuns || fit.Windows != tc.wantWindow {
				t.Errorf("runs %d over %d windows, want %d over %d", fit.Runs, fit.Windows, tc.wantRuns, tc.wantWindow)
			}
		})
	}
}
