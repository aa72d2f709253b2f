package producer

import (
	"bytes"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/kseg/kseg/batch"
	"github.com/kseg/kseg/segment"
)

// timedConfig is the default (timing) model with the given workload.
func timedConfig(mod func(*Config)) Config {
	c := DefaultConfig()
	c.LingerMs = 5000
	mod(&c)
	return c
}

func TestSimulateDeterministic(t *testing.T) {
	cfg := timedConfig(func(c *Config) {
		c.Records, c.Partitions, c.KeyPrefix, c.KeyCount, c.BatchSize = 1500, 4, "k", 9, 2048
		c.Compression = batch.CodecLZ4
	})
	a, err := Simulate(cfg, 30)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := Simulate(cfg, 30)
	if !reflect.DeepEqual(a.Runs, b.Runs) || a.Median != b.Median {
		t.Fatal("the same configuration simulated twice differs")
	}
	distinct := map[string]bool{}
	for _, l := range a.Runs {
		distinct[fmt.Sprint(l.Partitions)] = true
	}
	if len(distinct) < 5 {
		t.Errorf("30 jittered runs gave only %d distinct layouts", len(distinct))
	}
	cfg.Seed = 2
	c, _ := Simulate(cfg, 30)
	if reflect.DeepEqual(a.Runs, c.Runs) {
		t.Error("another seed gave the same runs")
	}
	// Run r of a simulation is the single run with Run = r.
	one := cfg
	one.Run = 7
	single, _ := Simulate(one, 1)
	if !reflect.DeepEqual(single.Runs[0], c.Runs[7]) {
		t.Error("run 7 alone differs from run 7 of the simulation")
	}
}

// TestIdealIsOneAnswer: without timing every run of a keyed burst is the
// same, and it is the layout Write produces.
func TestIdealIsOneAnswer(t *testing.T) {
	cfg := seedConfig(func(c *Config) {
		c.Records, c.Partitions, c.KeyPrefix, c.KeyCount, c.BatchSize, c.LingerMs = 600, 3, "key-", 10, 1024, 1000
	})
	env, err := Simulate(cfg, 20)
	if err != nil {
		t.Fatal(err)
	}
	for _, pe := range env.Partitions {
		if pe.Batches.Min != pe.Batches.Max {
			t.Errorf("partition %d: %+v over ideal runs", pe.Partition, pe.Batches)
		}
	}
	_, res := runTo(t, cfg)
	for p, ps := range res.Partitions {
		if got := histogram(env.Runs[0].Histogram(p)); got != histogram(ps.RecordsPerBatch) {
			t.Errorf("partition %d: simulated %s, written %s", p, got, histogram(ps.RecordsPerBatch))
		}
	}
}

// TestPartlyFilledHeads: with a non-instantaneous application thread the
// sender, woken by the first full batch, drains the head batches of every
// partition on the node, partly filled; the ideal model fills them all.
func TestPartlyFilledHeads(t *testing.T) {
	mod := func(c *Config) {
		c.Records, c.Partitions, c.KeyPrefix, c.KeyCount, c.ValueSize, c.BatchSize = 3000, 5, "user-", 12, 10, 4096
	}
	ideal := seedConfig(mod)
	ideal.LingerMs = 5000
	ie, err := Simulate(ideal, 1)
	if err != nil {
		t.Fatal(err)
	}
	te, err := Simulate(timedConfig(mod), 100)
	if err != nil {
		t.Fatal(err)
	}
	full := ie.Partitions[0].Band[0].P50
	partly, spread := 0, 0
	for p, pe := range te.Partitions {
		if ie.Partitions[p].Band[0].Min < full-2 {
			continue // the ideal first batch is the partition's whole share
		}
		q := quantiles(slices.Clone(pe.FirstBatch))
		if q.Min < full*9/10 {
			partly++
		}
		if q.Max-q.Min > full/10 {
			spread++
		}
		if pe.Batches.P50 < ie.Partitions[p].Batches.P50 {
			t.Errorf("partition %d: timing gives fewer batches (%d) than ideal (%d)", p, pe.Batches.P50, ie.Partitions[p].Batches.P50)
		}
	}
	if partly == 0 || spread == 0 {
		t.Errorf("no partly filled first batches (%d partitions below 90%% of %d, %d spread over runs)", partly, full, spread)
	}
}

// TestEstimateImprovesInBurst: compressed burst, timing model: batches are
// closed while the burst goes on, each close improves the estimate, and
// later batches hold more records; the ideal model creates every batch at
// the first estimate.
func TestEstimateImprovesInBurst(t *testing.T) {
	mod := func(c *Config) {
		c.Records, c.ValueSize, c.BatchSize, c.Compression = 4000, 100, 4096, batch.CodecGzip
	}
	ideal := seedConfig(mod)
	ideal.LingerMs = 5000
	ie, _ := Simulate(ideal, 1)
	rec := ie.Runs[0].Partitions[0]
	if rec[0] != rec[len(rec)-2] {
		t.Errorf("ideal: first batch %d records, last full one %d: the estimate moved", rec[0], rec[len(rec)-2])
	}
	te, err := Simulate(timedConfig(mod), 50)
	if err != nil {
		t.Fatal(err)
	}
	// A cold sender may close too few batches during the burst for the
	// estimate to move (the real producer does that too), but most runs
	// grow.
	grow := 0
	for _, l := range te.Runs {
		if b := l.Partitions[0]; len(b) > 3 && b[len(b)-2] > b[0] {
			grow++
		}
	}
	if grow < len(te.Runs)/2 {
		t.Errorf("records per batch grow in %d of %d runs", grow, len(te.Runs))
	}
	if q := te.Partitions[0].Batches; q.P50 >= len(rec) || q.Min == q.Max {
		t.Errorf("timing: batches %+v, ideal %d: want fewer in most runs, varying", q, len(rec))
	}
}

// TestExactFit: 61 + 8 x 109 = 933, so batch.size 933 takes exactly 8
// records of 100-byte values: hasRoomFor admits a record that fits to the
// byte (writeLimit >= estimate + size).
func TestExactFit(t *testing.T) {
	for _, timing := range []bool{false, true} {
		cfg := seedConfig(func(c *Config) { c.BatchSize, c.LingerMs = 933, 5000 })
		if timing {
			cfg.Timing = DefaultTiming()
			cfg.TimestampStepMs = 0
		}
		dir, _ := runTo(t, cfg)
		bs := readLog(t, filepath.Join(dir, "kseg-ref-0"))
		if got := histogramOf(bs); got != "8x25" {
			t.Errorf("timing %v: %s, want 8x25", timing, got)
		}
		if err := allEqual(sizesOf(bs), 933); err != nil {
			t.Errorf("timing %v: %v", timing, err)
		}
	}
}

// TestEstimatorSteps is CompressionRatioEstimator.updateEstimation on
// numbers: +0.05 towards a worse ratio (or straight to it), -0.005 towards
// a better one.
func TestEstimatorSteps(t *testing.T) {
	for _, tc := range []struct{ e, obs, want float32 }{
		{1.0, 0.3, 0.995},
		{0.5, 0.52, 0.55},
		{0.5, 0.7, 0.7},
		{0.5, 0.5, 0.5},
		{0.2, 0.199, 0.199},
		{0.30000001, 0.31, 0.35000002},
	} {
		e := estimator{tc.e}
		e.update(tc.obs)
		if e.e != tc.want {
			t.Errorf("estimate %v, observed %v: %v, want %v", tc.e, tc.obs, e.e, tc.want)
		}
	}
}

// TestWorseThanEstimate: values that turn incompressible in the middle of
// a gzip burst. Batches created on the low estimate hold far too many
// random bytes and overshoot batch.size; each close above the estimate
// raises it by 0.05 (or to the observed ratio). The batch-by-batch
// estimates are recomputed here from the drained batches' sizes.
func TestWorseThanEstimate(t *testing.T) {
	dir := t.TempDir()
	vf := filepath.Join(dir, "values.txt")
	var buf bytes.Buffer
	rng := rand.New(rand.NewPCG(5, 5))
	for i := range 1200 {
		v := strings.Repeat("v", 100)
		if i >= 600 {
			b := make([]byte, 100)
			for j := range b {
				b[j] = byte(rng.IntN(256))
				if b[j] == '\n' || b[j] == '\r' {
					b[j] = 'x'
				}
			}
			v = string(b)
		}
		buf.WriteString(v + "\n")
	}
	os.WriteFile(vf, buf.Bytes(), 0o644)
	cfg := seedConfig(func(c *Config) {
		c.Records, c.ValueFile, c.BatchSize, c.LingerMs = 1200, vf, 4096, 5000
		c.Compression = batch.CodecGzip
		c.SendInterval = 500 * time.Microsecond // batches close while the burst goes on
	})
	var drained []DrainedBatch
	if _, err := writeObserved(cfg, t.TempDir(), func(d DrainedBatch) { drained = append(drained, d) }); err != nil {
		t.Fatal(err)
	}
	// Replay the estimator by hand over the closes in their order (the
	// hook sees them in that order): the estimate a batch is created with
	// is the one after the closes that came before its creation.
	after := []float32{1} // after[i]: the estimate after i closes
	overshoot, raised := 0, 0
	for _, d := range drained {
		e := after[len(after)-1]
		obs := float32(d.Bytes-batch.HeaderSize) / float32(d.Unc)
		switch {
		case obs > e:
			e = float32(math.Max(float64(float32(e+0.05)), float64(obs)))
			raised++
		case obs < e:
			e = float32(math.Max(float64(float32(e-0.005)), float64(obs)))
		}
		after = append(after, e)
		if d.Bytes > cfg.BatchSize {
			overshoot++
		}
	}
	for k, d := range drained {
		if want := after[d.ClosedBefore]; d.EstimateAt != want {
			t.Fatalf("batch %d (created after %d closes) has estimate %v, want %v", k, d.ClosedBefore, d.EstimateAt, want)
		}
	}
	if raised < 3 || overshoot == 0 {
		t.Errorf("%d raises of the estimate, %d batches over batch.size: the switch to random values did not show", raised, overshoot)
	}
}

func TestValueSources(t *testing.T) {
	dir := t.TempDir()
	t.Run("value file cycles", func(t *testing.T) {
		vf := filepath.Join(dir, "v.txt")
		os.WriteFile(vf, []byte("alpha\r\nbe\n\ngamma\n"), 0o644)
		cfg := seedConfig(func(c *Config) { c.Records, c.ValueFile = 10, vf })
		out, _ := runTo(t, cfg)
		var got []string
		forRecords(t, out, func(r *segment.Record) { got = append(got, string(r.Value)) })
		want := "alpha be  gamma alpha be  gamma alpha be"
		if strings.Join(got, " ") != want {
			t.Errorf("values %q", got)
		}
	})
	t.Run("values from a log", func(t *testing.T) {
		src := seedConfig(func(c *Config) { c.Records, c.KeyPrefix, c.KeyCount, c.Headers, c.Partitions = 50, "id-", 7, 2, 2 })
		srcDir, _ := runTo(t, src)
		type rec struct{ k, v, h string }
		var want []rec
		for p := range 2 {
			forRecords(t, filepath.Join(srcDir, fmt.Sprintf("kseg-ref-%d", p)), func(r *segment.Record) {
				want = append(want, rec{string(r.Key), string(r.Value), fmt.Sprint(r.Headers)})
			})
		}
		cfg := seedConfig(func(c *Config) { c.Records, c.ValuesFrom, c.Partitions = -1, srcDir, 2 })
		out, res := runTo(t, cfg)
		if res.Partitions[0].Records+res.Partitions[1].Records != 50 {
			t.Fatalf("replayed %d+%d records of 50", res.Partitions[0].Records, res.Partitions[1].Records)
		}
		// Keys hash to the same partitions as in the source, so each
		// partition replays the source partition's records in order.
		var got []rec
		for p := range 2 {
			forRecords(t, filepath.Join(out, fmt.Sprintf("kseg-ref-%d", p)), func(r *segment.Record) {
				got = append(got, rec{string(r.Key), string(r.Value), fmt.Sprint(r.Headers)})
			})
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("replayed records differ:\n%v\nwant\n%v", got, want)
		}
		bad := cfg
		bad.KeyCount = 3
		if err := bad.Validate(); err == nil {
			t.Error("values-from with key-count accepted")
		}
		empty := seedConfig(func(c *Config) { c.ValuesFrom = filepath.Join(dir, "nothing") })
		if _, err := Write(empty, t.TempDir()); err == nil {
			t.Error("values-from a missing path accepted")
		}
	})
	t.Run("entropy orders compressibility", func(t *testing.T) {
		var ratios []float64
		for _, f := range []float64{0, 0.3, 0.7, 1} {
			cfg := seedConfig(func(c *Config) {
				c.Records, c.ValueSize, c.ValueEntropy, c.Compression, c.LingerMs = 2000, 200, f, batch.CodecZstd, 5000
			})
			out, res := runTo(t, cfg)
			st, err := (&segment.Counter{}).CountPartition(&segment.Partition{Segments: []segment.Segment{{Path: filepath.Join(out, "kseg-ref-0", "00000000000000000000.log")}}})
			if err != nil {
				t.Fatal(err)
			}
			ratios = append(ratios, float64(st.Bytes)/float64(res.Partitions[0].Records))
			again, _ := runTo(t, cfg)
			a, _ := os.ReadFile(filepath.Join(out, "kseg-ref-0", "00000000000000000000.log"))
			b, _ := os.ReadFile(filepath.Join(again, "kseg-ref-0", "00000000000000000000.log"))
			if !bytes.Equal(a, b) {
				t.Errorf("entropy %v: values differ between two runs", f)
			}
		}
		if !slices.IsSorted(ratios) || ratios[3] < 4*ratios[0] {
			t.Errorf("bytes per record by entropy 0, .3, .7, 1: %v", ratios)
		}
	})
}

func forRecords(t *testing.T, dir string, f func(*segment.Record)) {
	t.Helper()
	parts, err := segment.Partitions([]string{dir})
	if err != nil {
		t.Fatal(err)
	}
	for i := range parts {
		it := segment.NewIter(&parts[i])
		for it.NextRecord() {
			f(it.Record())
		}
		if err := it.Err(); err != nil {
			t.Fatal(err)
		}
		it.Close()
	}
}

func TestCompareAndNDJSON(t *testing.T) {
	cfg := timedConfig(func(c *Config) {
		c.Records, c.Partitions, c.KeyPrefix, c.KeyCount, c.ValueSize, c.BatchSize = 2000, 3, "user-", 12, 10, 4096
	})
	env, err := Simulate(cfg, 60)
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := env.WriteNDJSON(&buf); err != nil {
		t.Fatal(err)
	}
	f := filepath.Join(t.TempDir(), EnvelopeName)
	os.WriteFile(f, buf.Bytes(), 0o644)
	back, err := ReadEnvelope(f)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(back.Partitions, env.Partitions) || back.Median != env.Median {
		t.Error("the envelope read back from NDJSON differs")
	}
	// The median run's log lies inside; one written at half the
	// batch.size does not.
	out := filepath.Join(t.TempDir(), "out")
	if _, _, err := Produce(cfg, 60, out, false, false); err != nil {
		t.Fatal(err)
	}
	obs, err := ReadLayout(out)
	if err != nil {
		t.Fatal(err)
	}
	pls, err := env.Compare(obs, Tolerance{100})
	if err != nil {
		t.Fatal(err)
	}
	for _, pl := range pls {
		if !pl.Inside || len(pl.Outside) != 0 {
			t.Errorf("%s: the median run is not inside: %+v", pl.Name, pl)
		}
	}
	ideal := cfg
	ideal.Timing = Timing{}
	ideal.BatchSize /= 2
	idir := filepath.Join(t.TempDir(), "ideal")
	if _, err := Run(ideal, idir, false); err != nil {
		t.Fatal(err)
	}
	obs, _ = ReadLayout(idir)
	pls, _ = env.Compare(obs, Tolerance{90})
	outside := 0
	for _, pl := range pls {
		if !pl.Inside {
			outside++
		}
	}
	if outside == 0 {
		t.Error("a layout cut at half the batch.size lies inside the prediction's p5-p95")
	}
	for _, s := range []string{"", "minmax", "90", "50%"} {
		if _, err := ParseTolerance(s); err != nil {
			t.Errorf("tolerance %q: %v", s, err)
		}
	}
	for _, s := range []string{"0", "101", "x"} {
		if _, err := ParseTolerance(s); err == nil {
			t.Errorf("tolerance %q accepted", s)
		}
	}
}

func TestPercentiles(t *testing.T) {
	xs := []int{5, 1, 4, 2, 3, 3, 9, 8, 7, 6}
	q := quantiles(slices.Clone(xs))
	if q != (Quantiles{Min: 1, P5: 1, P50: 4, P95: 9, Max: 9}) {
		t.Errorf("quantiles %+v", q)
	}
	if p := Percentile(xs, 3); p != 30 {
		t.Errorf("percentile of 3: %v", p)
	}
	lo, hi := Tolerance{80}.bounds(xs)
	if lo != 1 || hi != 8 {
		t.Errorf("p10-p90 bounds %d-%d", lo, hi)
	}
}

// BenchmarkEnvelope200x10k is kseg produce --records 10000 --runs 200
// --dry-run with the default settings.
func BenchmarkEnvelope200x10k(b *testing.B) {
	cfg := DefaultConfig()
	cfg.Records = 10000
	b.ReportAllocs()
	for b.Loop() {
		env, err := Simulate(cfg, 200)
		if err != nil {
			b.Fatal(err)
		}
		if len(env.Runs) != 200 {
			b.Fatal(len(env.Runs))
		}
	}
}

// The cold start's two shapes: FirstRTT delays exactly the first request's
// ack, and a short ColdCloseDecay puts the cold close cost in the first
// close, so the first request (several partitions' batches) leaves sooner.
func TestColdStartKnobs(t *testing.T) {
	calm := func(mod func(*Timing)) Layout {
		t.Helper()
		c := timedConfig(func(c *Config) {
			c.Records, c.Partitions, c.KeyPrefix, c.KeyCount, c.ValueSize, c.BatchSize = 3000, 3, "user-", 12, 10, 4096
		})
		tm := &c.Timing
		tm.Jitter, tm.SenderJitter, tm.RunJitter, tm.SenderRunJitter, tm.RTTJitter, tm.ColdJitter, tm.FirstSendJitter, tm.PauseEvery = 0, 0, 0, 0, 0, 0, 0, 0
		tm.IdleSenderJitter, tm.IdleSenderRunJitter, tm.IdlePauseEvery = 0, 0, 0 // the busy values, 0
		mod(tm)
		env, err := Simulate(c, 1)
		if err != nil {
			t.Fatal(err)
		}
		return env.Runs[0]
	}
	base := calm(func(tm *Timing) { tm.FirstRTT, tm.ColdCloseDecay = 0, 2 })
	if base.FirstRequest <= 0 || base.FirstAck <= base.FirstRequest {
		t.Fatalf("first request at %v, acked at %v", base.FirstRequest, base.FirstAck)
	}
	late := calm(func(tm *Timing) { tm.FirstRTT, tm.ColdCloseDecay = 40*time.Millisecond, 2 })
	if late.FirstRequest != base.FirstRequest || late.FirstAck-base.FirstAck != 40*time.Millisecond {
		t.Errorf("FirstRTT 40ms: request %v -> %v, ack %v -> %v: want the ack alone 40ms later", base.FirstRequest, late.FirstRequest, base.FirstAck, late.FirstAck)
	}
	early := calm(func(tm *Timing) { tm.FirstRTT, tm.ColdCloseDecay = 0, 0.2 })
	if early.FirstRequest >= base.FirstRequest {
		t.Errorf("ColdCloseDecay 0.2: first request at %v, not before %v (decay 2)", early.FirstRequest, base.FirstRequest)
	}
}

// The idle sender jitters apply while the application thread is idle and
// the busy ones while it is busy; left at 0 they are the busy ones, so a
// Timing without them draws exactly what it drew before they existed.
func TestIdleSenderJitter(t *testing.T) {
	logSD := func(tm Timing, duty float64) (speed, sd float64) {
		t.Helper()
		c := newClock(tm, batch.CodecNone, 3, 0)
		speed = c.senderSpeed(duty)
		var s, s2 float64
		const n = 4000
		for range n {
			x := math.Log(float64(c.wakeLatency(duty)) / (float64(tm.WakeLatency) * speed))
			s, s2 = s+x, s2+x*x
		}
		return speed, math.Sqrt(s2/n - (s/n)*(s/n))
	}
	tm := DefaultTiming()
	tm.IdleWakeLatency = tm.WakeLatency // the same base either way: only the jitter differs
	tm.SenderJitter, tm.SenderRunJitter = 1.2, 0.8
	tm.IdleSenderJitter, tm.IdleSenderRunJitter = 0, 0
	sameBusy, sdBusy := logSD(tm, 1)
	sameIdle, sdIdle := logSD(tm, 0)
	if sameBusy != sameIdle || math.Abs(sdBusy-1.2) > 0.06 || math.Abs(sdIdle-1.2) > 0.06 {
		t.Errorf("idle jitters unset: speed %v busy, %v idle; log-sd %.3f busy, %.3f idle: want one speed and 1.2 both", sameBusy, sameIdle, sdBusy, sdIdle)
	}
	tm.IdleSenderJitter, tm.IdleSenderRunJitter = 0.3, 1e-12
	busy, sdBusy := logSD(tm, 1)
	idle, sdIdle := logSD(tm, 0)
	half, sdHalf := logSD(tm, 0.5)
	if busy != sameBusy || math.Abs(idle-1) > 1e-9 || math.Abs(math.Log(half)-math.Log(busy)/2) > 1e-6 {
		t.Errorf("run speed %v busy (want %v), %v idle (want 1), %v at duty 0.5 (want %v)", busy, sameBusy, idle, half, math.Sqrt(busy))
	}
	if math.Abs(sdBusy-1.2) > 0.06 || math.Abs(sdIdle-0.3) > 0.02 || math.Abs(sdHalf-0.75) > 0.04 {
		t.Errorf("log-sd of the wake-up %.3f busy (want 1.2), %.3f idle (want 0.3), %.3f at duty 0.5 (want 0.75)", sdBusy, sdIdle, sdHalf)
	}
}

// The application thread's warm-up: the fixed part of a send() is
// (1 + WarmupFactor*exp(-i/WarmupSends)) times the warm one, the per-KiB
// part is not; BatchWarmup gives a batch's cost its share of the same
// factor; Layout.Progress follows the sends through the burst.
func TestApplicationWarmup(t *testing.T) {
	tm := Timing{SendCost: 10 * time.Microsecond, SendCostPerKB: 1024 * time.Microsecond, WarmupSends: 100, WarmupFactor: 3, BatchCost: 50 * time.Microsecond}
	c := newClock(tm, batch.CodecNone, 1, 0)
	for _, tc := range []struct {
		i    int64
		size int
		want float64 // ns
	}{
		{0, 0, 10e3 * 4},
		{100, 0, 10e3 * (1 + 3/math.E)},
		{0, 5, 10e3*4 + 5e3},
		{100000, 5, 10e3 + 5e3},
	} {
		if got := float64(c.sendCost(tc.i, tc.size, false, 0, 1)); math.Abs(got-tc.want) > 1 {
			t.Errorf("send %d of %d bytes: %v ns, want %v", tc.i, tc.size, got, tc.want)
		}
	}
	if got := c.batchCost(0); got != 50e3 {
		t.Errorf("batch in send 0 without BatchWarmup: %v ns, want 50000", got)
	}
	tm.BatchWarmup = 0.5
	c = newClock(tm, batch.CodecNone, 1, 0)
	if got, want := float64(c.batchCost(100)), 50e3*(1+0.5*3/math.E); math.Abs(got-want) > 1 {
		t.Errorf("batch in send 100 with BatchWarmup 0.5: %v ns, want %v", got, want)
	}

	cfg := timedConfig(func(c *Config) { c.Records, c.ValueSize = 2000, 10 })
	cfg.Timing = Timing{SendCost: 10 * time.Microsecond, WarmupSends: 400, WarmupFactor: 9}
	env, err := Simulate(cfg, 1)
	if err != nil {
		t.Fatal(err)
	}
	p := env.Runs[0].Progress
	if p[ProgressSteps-1] != env.Runs[0].Burst {
		t.Errorf("progress at 100%% %v, burst %v", p[ProgressSteps-1], env.Runs[0].Burst)
	}
	first, last := p[1]-p[0], p[ProgressSteps-1]-p[ProgressSteps-2] // 100 sends each
	if !slices.IsSorted(p[:]) || first < 5*last {
		t.Errorf("progress %v: the first 5%% of sends after the first took %v, the last %v: want a warming thread", p, first, last)
	}
}

// IdlePauseEvery is the stall rate of a thread that sleeps between sends;
// PauseEvery that of a busy one, with the two mixed by the duty cycle.
func TestIdlePauseEvery(t *testing.T) {
	stalls := func(tm Timing, duty float64) int {
		c := newClock(tm, batch.CodecNone, 5, 0)
		n := 0
		for i := range int64(20000) {
			if c.sendCost(i+1, 0, false, 0, duty) > int64(tm.SendCost) {
				n++
			}
		}
		return n
	}
	tm := Timing{SendCost: time.Microsecond, PauseMean: time.Millisecond, PauseEvery: 100}
	if busy, idle := stalls(tm, 1), stalls(tm, 0); busy < 160 || busy > 240 || idle < 160 || idle > 240 {
		t.Errorf("IdlePauseEvery unset: %d stalls busy, %d idle in 20000 sends, want about 200 both", busy, idle)
	}
	tm.PauseEvery, tm.IdlePauseEvery = 0, 50
	busy, idle, half := stalls(tm, 1), stalls(tm, 0), stalls(tm, 0.5)
	if busy != 0 || idle < 340 || idle > 460 || half < 150 || half > 250 {
		t.Errorf("PauseEvery 0, IdlePauseEvery 50: %d stalls busy (want 0), %d idle (want about 400), %d at duty 0.5 (about 200)", busy, idle, half)
	}
}

// SenderStepMax bounds each sender step, jitter included; 0 leaves the
// log-normal's tail as it is.
func TestSenderStepMax(t *testing.T) {
	longest := func(bound time.Duration) (wake, close int64) {
		tm := DefaultTiming()
		tm.SenderStepMax = bound
		c := newClock(tm, batch.CodecNone, 9, 0)
		for range 5000 {
			wake = max(wake, c.wakeLatency(1))
			in, _ := c.closeCosts(4096, 1)
			close = max(close, in)
		}
		return wake, close
	}
	if w, _ := longest(0); w < int64(200*time.Millisecond) {
		t.Fatalf("unbounded: the longest of 5000 wake-ups is %v; the test wants the tail past 200ms to bound", time.Duration(w))
	}
	if w, c := longest(30 * time.Millisecond); w != int64(30*time.Millisecond) || c > int64(30*time.Millisecond) {
		t.Errorf("bounded at 30ms: longest wake-up %v, close %v", time.Duration(w), time.Duration(c))
	}
}
