package producer

import (
	"path/filepath"
	"testing"
	"time"

	"github.com/kseg/kseg/batch"
)

// quietTiming is DefaultTiming without any jitter or stall, so that a
// test sees the mechanism alone.
func quietTiming() Timing {
	tm := DefaultTiming()
	tm.Jitter, tm.SenderJitter, tm.RunJitter, tm.SenderRunJitter, tm.RTTJitter, tm.ColdJitter, tm.FirstSendJitter = 0, 0, 0, 0, 0, 0, 0
	tm.IdleSenderJitter, tm.IdleSenderRunJitter, tm.PauseEvery, tm.IdlePauseEvery = 0, 0, 0, 0
	return tm
}

// Java stamps a new batch before its compression stream is built, so the
// first batch is older by the codec's first load when it reaches its
// deque: with a load longer than linger.ms it is expired at once.
func TestCodecLoadAfterBatchStamp(t *testing.T) {
	for _, tc := range []struct {
		name  string
		codec batch.Codec
		load  time.Duration
		// the first batch's age when the first send returns: the codec's
		// load (it was stamped before), or nothing
		wantAge time.Duration
	}{
		{"lz4 50ms", batch.CodecLZ4, 50 * time.Millisecond, 50 * time.Millisecond},
		{"snappy 8ms", batch.CodecSnappy, 8 * time.Millisecond, 8 * time.Millisecond},
		{"none", batch.CodecNone, 50 * time.Millisecond, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := DefaultConfig()
			c.Records, c.ValueSize, c.LingerMs, c.Compression = 50, 100, 5, tc.codec
			c.SendInterval = time.Millisecond
			c.Timing = quietTiming()
			c.Timing.FirstSend, c.Timing.CodecLoad = 10*time.Millisecond, tc.load
			var first *DrainedBatch
			hook := func(d DrainedBatch) {
				if first == nil {
					first = &d
				}
			}
			testDrainHook = hook
			defer func() { testDrainHook = nil }()
			s := newSim(&c, func(int, []byte, int64) error { return nil })
			if err := s.run(); err != nil {
				t.Fatal(err)
			}
			if first == nil {
				t.Fatal("no batch drained")
			}
			// The first send returns after FirstSend + CodecLoad (+ its
			// warm-up cost, well under a millisecond) from StartTime.
			firstSendEnd := c.StartTime + (10*time.Millisecond + tc.load).Milliseconds()
			if tc.codec == batch.CodecNone {
				firstSendEnd = c.StartTime + (10 * time.Millisecond).Milliseconds()
			}
			age := firstSendEnd - first.CreatedMs
			if age < tc.wantAge.Milliseconds()-1 || age > tc.wantAge.Milliseconds()+1 {
				t.Errorf("first batch created at %d ms, the first send ends at %d ms: age %d ms, want %v", first.CreatedMs, firstSendEnd, age, tc.wantAge)
			}
		})
	}
}

// rtt-speed-floor keeps a fast run's sender from making the broker
// faster; a slow run's round trip is still slower.
func TestRTTSpeedFloor(t *testing.T) {
	for _, tc := range []struct {
		name          string
		floor, z      float64
		wantAtLeast1  bool // the round trip is at least its base
		wantSlowerTwo bool // the round trip is more than twice its base
	}{
		{"fast run, no floor", 0, -2, false, false},
		{"fast run, floor 1", 1, -2, true, false},
		{"slow run, floor 1", 1, 2, true, true},
		{"slow run, no floor", 0, 2, true, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tm := quietTiming()
			tm.SenderRunJitter, tm.IdleSenderRunJitter, tm.RTTSpeedFloor = 0.8, 0.8, tc.floor
			c := newClock(tm, batch.CodecNone, 1, 0)
			c.senderZ = tc.z
			base := 10 * time.Millisecond
			got := c.rtt(base, 0, false, 1)
			if (got >= int64(base)) != tc.wantAtLeast1 || (got > 2*int64(base)) != tc.wantSlowerTwo {
				t.Errorf("round trip %v for a base of %v (sender speed %.2f)", time.Duration(got), base, c.senderSpeed(1))
			}
		})
	}
	var tm Timing
	tm.RTTSpeedFloor = 1.5
	if tm.valid() {
		t.Error("rtt-speed-floor 1.5 is valid")
	}
}

// broker-serial-share: a broker answers one request of a connection at a
// time, so five requests in flight at linger.ms=0 gain less over one the
// more of each round trip the broker spends alone; at 0 the model is the
// ideal one's (TestSeedFigures' "linger 0 in-flight bound").
func TestBrokerSerialShare(t *testing.T) {
	batches := func(share float64, inFlight int) int {
		cfg := seedConfig(func(c *Config) {
			c.LingerMs = 0
			c.SendInterval = time.Millisecond
			c.RTT = 10 * time.Millisecond
			c.MaxInFlight = inFlight
			c.Timing = Timing{BrokerSerialShare: share}
		})
		dir, _ := runTo(t, cfg)
		return len(readLog(t, filepath.Join(dir, "kseg-ref-0")))
	}
	if got, want := batches(0, 5), 101; got != want { // 19 + 1 + 81, as the ideal model
		t.Errorf("share 0: %d batches, want %d", got, want)
	}
	prev := batches(0, 5)
	for _, share := range []float64{0.3, 0.6, 1} {
		got := batches(share, 5)
		if got >= prev {
			t.Errorf("share %v: %d batches, not fewer than %d at a smaller share", share, got, prev)
		}
		prev = got
	}
	if one := batches(1, 1); prev < one {
		t.Errorf("share 1, 5 in flight: %d batches, fewer than one in flight's %d", prev, one)
	}
	if tm := (Timing{BrokerSerialShare: 1.5}); tm.valid() {
		t.Error("broker-serial-share 1.5 is valid")
	}
}

// A fixed-rate sender's lateness against its schedule: none in the ideal
// model, the first send's cost at the cold start with a timing.
func TestLateness(t *testing.T) {
	for _, tc := range []struct {
		name     string
		timing   Timing
		interval time.Duration
		minLate  time.Duration
		over1ms  bool
	}{
		{"ideal", Timing{}, time.Millisecond, 0, false},
		{"cold first send", quietTiming(), 500 * time.Microsecond, 18 * time.Millisecond, true}, // first-send-cost 19ms, send 1 due at 0.5 ms
		{"no schedule", quietTiming(), 0, 0, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := DefaultConfig()
			c.Records, c.ValueSize, c.Timing, c.SendInterval = 400, 100, tc.timing, tc.interval
			env, err := Simulate(c, 1)
			if err != nil {
				t.Fatal(err)
			}
			l := env.Runs[0]
			if l.LateMax < tc.minLate || (tc.minLate == 0) != (l.LateMax == 0) || (l.LateOver1ms > 0) != tc.over1ms {
				t.Errorf("late max %v, %d sends over 1 ms; want at least %v (over 1 ms: %v)", l.LateMax, l.LateOver1ms, tc.minLate, tc.over1ms)
			}
		})
	}
}

// A sender woken while the application thread is busy waits for a CPU;
// when the thread goes to sleep until its next send is due, the sender
// gets one as on a quiet machine, and a linger timeout that expires
// while the thread sleeps is met at the quiet machine's latency. Here a
// busy sender needs 1 s to wake and an idle one 10 µs, and the sends cost
// nothing: bursts of 250 records 120 ms apart are cut apart as the ideal
// model cuts them (each burst's last batch drained at its linger.ms);
// before, the wake-up drawn at the first send held the sender for a
// second, and the bursts' batches ran into each other ("148x9 147x1 21x1").
// Back to back the thread never sleeps and the stall stands.
func TestSenderGetsCPUWhileAppSleeps(t *testing.T) {
	for _, tc := range []struct {
		name     string
		burst    int64
		interval time.Duration
		want     string
	}{
		{"bursts 120ms apart", 250, 120 * time.Millisecond, "148x6 102x6"},
		{"back to back", 0, 0, "148x10 20x1"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := DefaultConfig()
			c.Records, c.ValueSize, c.LingerMs = 1500, 100, 5
			c.Burst, c.SendInterval = tc.burst, tc.interval
			c.Timing = Timing{WakeLatency: time.Second, IdleWakeLatency: 10 * time.Microsecond}
			dir, _ := runTo(t, c)
			if got := histogramOf(readLog(t, filepath.Join(dir, "kseg-ref-0"))); got != tc.want {
				t.Errorf("%s, want %s", got, tc.want)
			}
		})
	}
}

// Each produce request takes the application thread off its CPU for a
// while (Timing.RequestPause): a fixed-rate sender falls behind its
// schedule after each request, and its linger-cut batches come further
// apart. With the costs otherwise zero, the model without the pause is
// the ideal one (never late).
func TestRequestPause(t *testing.T) {
	run := func(pause time.Duration) Layout {
		c := DefaultConfig()
		c.Records, c.ValueSize, c.LingerMs, c.SendInterval = 2000, 100, 10, 500*time.Microsecond
		c.Timing = Timing{RequestPause: pause}
		env, err := Simulate(c, 1)
		if err != nil {
			t.Fatal(err)
		}
		return env.Runs[0]
	}
	without, with := run(0), run(2*time.Millisecond)
	if without.LateOver1ms != 0 {
		t.Errorf("no pause: %d sends over 1 ms late", without.LateOver1ms)
	}
	if with.LateOver1ms < 20 {
		t.Errorf("a 2 ms pause a request: %d sends over 1 ms late, want many", with.LateOver1ms)
	}
	if b0, b1 := without.Batches(0), with.Batches(0); b1 >= b0 {
		t.Errorf("%d batches with the pause, %d without: want fewer", b1, b0)
	}
	t.Logf("batches %d -> %d, sends over 1 ms late %d -> %d", without.Batches(0), with.Batches(0), without.LateOver1ms, with.LateOver1ms)
}
