package producer

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/kseg/kseg/batch"
)

// TestTimeCuts covers the regimes where linger, not batch.size, cuts.
func TestTimeCuts(t *testing.T) {
	tests := []struct {
		name string
		mod  func(*Config)
		want string
	}{
		// A slow sender with a long linger: the batch created at t0
		// expires at t0+1000 ms; sends at 10 ms spacing put records
		// 0..100 (t <= 1000 ms, tie rule: the one at exactly 1000 is in)
		// in the first batch.
		{"slow sender", func(c *Config) { c.LingerMs = 1000; c.SendInterval = 10 * time.Millisecond }, "101x1 99x1"},
		// docs/producer-model.md, Worked examples (linger.ms=5): the producer id arrives while batch 2
		// is open and already past its linger, so it is cut at the pid.
		{"late pid default linger", func(c *Config) {
			c.SendInterval = 277500 * time.Nanosecond
			c.PIDDelay = 53 * time.Millisecond
		}, "148x1 43x1 9x1"},
		// Linger 0 async with a paced sender and an instant pid: the
		// sender drains each record as soon as it is appended, except
		// while max.in.flight requests are outstanding.
		{"linger 0 paced", func(c *Config) {
			c.LingerMs = 0
			c.SendInterval = 1 * time.Millisecond
			c.RTT = 500 * time.Microsecond
		}, "1x200"},
		// Same, with five in flight over a 10 ms round trip: each 10 ms
		// cycle sends one 1-record batch per ms until five requests are
		// out, then records 5..10 pile up and go when the first response
		// comes back at t=10 (the record sent at t=10 is in: tie rule).
		{"linger 0 in-flight bound", func(c *Config) {
			c.LingerMs = 0
			c.SendInterval = 1 * time.Millisecond
			c.RTT = 10 * time.Millisecond
		}, "6x19 5x1 1x81"},
		// Bursts (Config.Burst): 40 records at once every 100 ms, each
		// burst one batch cut by linger long before the next; every 2 ms,
		// the bursts due at 0, 2 and 4 ms share the batch created at 0
		// (expired at 5), those at 6 and 8 ms the next.
		{"bursts apart", func(c *Config) { c.Burst = 40; c.SendInterval = 100 * time.Millisecond }, "40x5"},
		{"bursts within linger", func(c *Config) { c.Burst = 40; c.SendInterval = 2 * time.Millisecond }, "120x1 80x1"},
		// max.in.flight 1 makes the pile-up bigger.
		{"linger 0 one in flight", func(c *Config) {
			c.LingerMs = 0
			c.SendInterval = 1 * time.Millisecond
			c.RTT = 10 * time.Millisecond
			c.MaxInFlight = 1
		}, "10x19 9x1 1x1"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg := seedConfig(tt.mod)
			dir, _ := runTo(t, cfg)
			bs := readLog(t, filepath.Join(dir, "kseg-ref-0"))
			if got := histogramOf(bs); got != tt.want {
				t.Errorf("%s, want %s", got, tt.want)
			}
			checkSequences(t, bs, cfg)
		})
	}
}

// TestCompressionEstimator: with compression the first batch is sized at
// ratio 1.0 (141 records of 109 B fit under 16384 with the 1.05 factor),
// and batches created after a close see the improved estimate, 0.005 at a
// time.
func TestCompressionEstimator(t *testing.T) {
	for _, codec := range []batch.Codec{batch.CodecGzip, batch.CodecSnappy, batch.CodecLZ4, batch.CodecZstd} {
		t.Run(codec.String(), func(t *testing.T) {
			cfg := seedConfig(func(c *Config) {
				c.Records = 2000
				c.LingerMs = 1000
				c.Compression = codec
				c.SendInterval = 500 * time.Microsecond
			})
			var drained []DrainedBatch
			dir := t.TempDir()
			if _, err := writeObserved(cfg, dir, func(d DrainedBatch) { drained = append(drained, d) }); err != nil {
				t.Fatal(err)
			}
			bs := readLog(t, filepath.Join(dir, "kseg-ref-0"))
			if len(bs) != len(drained) {
				t.Fatalf("%d on disk, %d drained", len(bs), len(drained))
			}
			if drained[0].Records != 141 || drained[0].EstimateAt != 1.0 {
				t.Errorf("first batch: %d records at estimate %v, want 141 at 1.0", drained[0].Records, drained[0].EstimateAt)
			}
			// Batch k+1 is created by the append that finds batch k full,
			// before the sender drains (closes) batch k, so it carries the
			// estimate after batch k-1's close: 1.0, 1.0, 0.995, 0.99, ...
			// (the real ratio of 'v' values is far below, so each close
			// improves the estimate by the 0.005 step).
			e := float32(1.0)
			start := 0
			for k, d := range drained {
				if d.EstimateAt != e {
					t.Fatalf("batch %d created with estimate %v, want %v", k, d.EstimateAt, e)
				}
				if k < len(drained)-1 {
					if want := fitCount(e, start); d.Records != want {
						t.Errorf("batch %d: %d records, want %d at estimate %v", k, d.Records, want, e)
					}
				}
				start += d.Records
				if k > 0 {
					e = float32(e - 0.005)
				}
				if bs[k].h.Codec() != codec {
					t.Fatalf("batch %d codec %v", k, bs[k].h.Codec())
				}
			}
		})
	}
}

// fitCount is how many 100-byte-value records fit under batch.size 16384 at
// estimate e, for a batch whose first record is record start of a run
// sending one record per 0.5 ms (record i's timestamp is start-time + i/2
// ms), so timestamp deltas reach the 2-byte varint at 64 ms.
func fitCount(e float32, start int) int {
	unc := 0
	for n := 0; ; n++ {
		tsDelta := int64((start+n)/2 - start/2)
		size := batch.RecordSizeInBytes(int32(n), tsDelta, nil, make([]byte, 100), nil)
		if n > 0 {
			est := batch.HeaderSize + int(float32(float32(float32(unc)*e)*compressionFactor))
			if 16384 < est+size {
				return n
			}
		}
		unc += size
	}
}

// TestRollingAndSnapshots: segments roll at segment.bytes, each roll
// writes a producer snapshot at the new base offset, every segment's
// indexes follow the LogSegment.append rule, and the time index ends with
// the segment's max timestamp.
func TestRollingAndSnapshots(t *testing.T) {
	cfg := seedConfig(func(c *Config) {
		c.Records = 5000
		c.BatchSize = 1024
		c.LingerMs = 1000
		c.SegmentBytes = 20000
		c.IndexIntervalBytes = 2000
		c.SendInterval = 3 * time.Millisecond
		c.ProducerID = 17
		c.ProducerEpoch = 3
		c.LeaderEpoch = 5
	})
	dir, res := runTo(t, cfg)
	pd := filepath.Join(dir, "kseg-ref-0")
	bs := readLog(t, pd)
	checkSequences(t, bs, cfg)
	segs := map[int64][]onDisk{}
	var bases []int64
	for _, b := range bs {
		if len(segs[b.segment]) == 0 {
			bases = append(bases, b.segment)
		}
		segs[b.segment] = append(segs[b.segment], b)
	}
	if len(bases) < 3 || res.Partitions[0].Segments != len(bases) {
		t.Fatalf("%d segments (stats %d)", len(bases), res.Partitions[0].Segments)
	}
	for i, base := range bases {
		sb := segs[base]
		if sb[0].h.BaseOffset != base {
			t.Errorf("segment %d starts at offset %d", base, sb[0].h.BaseOffset)
		}
		var size int64
		for _, b := range sb {
			size += b.h.Size()
		}
		if size > cfg.SegmentBytes {
			t.Errorf("segment %d is %d bytes", base, size)
		}
		if i < len(bases)-1 && size+segs[bases[i+1]][0].h.Size() <= cfg.SegmentBytes {
			t.Errorf("segment %d rolled early", base)
		}
		// Expected index entries from the rule.
		var want [][2]int64
		var since, pos int64
		for _, b := range sb {
			if since > int64(cfg.IndexIntervalBytes) {
				want = append(want, [2]int64{b.h.LastOffset() - base, pos})
				since = 0
			}
			pos += b.h.Size()
			since += b.h.Size()
		}
		got := readIndex(t, segmentName(pd, base, ".index"))
		if fmt.Sprint(got) != fmt.Sprint(want) {
			t.Errorf("segment %d index %v, want %v", base, got, want)
		}
		tidx := readTimeIndex(t, segmentName(pd, base, ".timeindex"))
		last := sb[len(sb)-1].h
		if len(tidx) == 0 || tidx[len(tidx)-1][0] != last.MaxTimestamp || tidx[len(tidx)-1][1] != last.LastOffset()-base {
			t.Errorf("segment %d time index %v does not end with (%d, %d)", base, tidx, last.MaxTimestamp, last.LastOffset()-base)
		}
		for j := 1; j < len(tidx); j++ {
			if tidx[j][0] <= tidx[j-1][0] {
				t.Errorf("segment %d time index not increasing: %v", base, tidx)
			}
		}
		// Snapshot at every roll (bases after the first) and at the end.
		if i > 0 {
			snap, err := os.ReadFile(segmentName(pd, base, ".snapshot"))
			if err != nil {
				t.Fatal(err)
			}
			prev := segs[bases[i-1]]
			lb := prev[len(prev)-1].h
			checkSnapshot(t, snap, 17, 3, lb.LastSequence(), lb.LastOffset(), lb.LastOffsetDelta)
		}
	}
	snap, err := os.ReadFile(segmentName(pd, 5000, ".snapshot"))
	if err != nil {
		t.Fatal(err)
	}
	lb := bs[len(bs)-1].h
	checkSnapshot(t, snap, 17, 3, 4999, 4999, lb.LastOffsetDelta)
	lec, _ := os.ReadFile(filepath.Join(pd, "leader-epoch-checkpoint"))
	if string(lec) != "0\n1\n5 0\n" {
		t.Errorf("leader-epoch-checkpoint %q", lec)
	}
}

func TestLogAppendTimeAndNoIdempotence(t *testing.T) {
	cfg := seedConfig(func(c *Config) {
		c.TimestampType = batch.LogAppendTime
		c.Idempotence = false
		c.Acks = 1
		c.RTT = 10 * time.Millisecond
		c.LingerMs = 1000
		c.BatchSize = 1024
	})
	dir, _ := runTo(t, cfg)
	pd := filepath.Join(dir, "kseg-ref-0")
	bs := readLog(t, pd)
	for i, b := range bs {
		h := b.h
		if h.TimestampType() != batch.LogAppendTime || h.MaxTimestamp < cfg.StartTime+5 {
			t.Errorf("batch %d: %v max ts %d", i, h.TimestampType(), h.MaxTimestamp)
		}
		if h.ProducerID != -1 || h.ProducerEpoch != -1 || h.BaseSequence != -1 {
			t.Errorf("batch %d has producer state %d/%d/%d", i, h.ProducerID, h.ProducerEpoch, h.BaseSequence)
		}
	}
	snap, _ := os.ReadFile(filepath.Join(pd, "00000000000000000200.snapshot"))
	if len(snap) != 10 || snap[9] != 0 {
		t.Errorf("snapshot without producers: % x", snap)
	}
}

func TestEmptyPartitions(t *testing.T) {
	cfg := seedConfig(func(c *Config) { c.Partitions = 4; c.Records = 3; c.KeyPrefix = "k"; c.KeyCount = 1 })
	dir, res := runTo(t, cfg)
	nonEmpty := 0
	for p := 0; p < 4; p++ {
		pd := filepath.Join(dir, fmt.Sprintf("kseg-ref-%d", p))
		for _, f := range []string{"00000000000000000000.log", "00000000000000000000.index", "00000000000000000000.timeindex", "leader-epoch-checkpoint", "partition.metadata"} {
			if _, err := os.Stat(filepath.Join(pd, f)); err != nil {
				t.Errorf("partition %d: %v", p, err)
			}
		}
		if res.Partitions[p].Records > 0 {
			nonEmpty++
		}
	}
	if nonEmpty != 1 {
		t.Errorf("one key went to %d partitions", nonEmpty)
	}
}

func TestInject(t *testing.T) {
	cfg := seedConfig(func(c *Config) {
		c.BatchSize = 1024
		c.LingerMs = 1000
		c.Inject = []Fault{{FaultGap, 2}, {FaultDuplicate, 5}, {FaultReorder, 8}, {FaultEpochBump, 15}}
	})
	dir, res := runTo(t, cfg)
	bs := readLog(t, filepath.Join(dir, "kseg-ref-0"))
	// 25 batches - 1 lost + 1 copy.
	if len(bs) != 25 {
		t.Fatalf("%d batches", len(bs))
	}
	var seqs []int32
	var epochs []int16
	for i, b := range bs {
		seqs = append(seqs, b.h.BaseSequence)
		epochs = append(epochs, b.h.ProducerEpoch)
		if i > 0 && b.h.BaseOffset != bs[i-1].h.LastOffset()+1 {
			t.Errorf("offsets not contiguous at batch %d", i)
		}
	}
	wantSeq := "[0 8 24 32 40 40 48 56 72 64 80 88 96 104 112 0 8 16 24 32 40 48 56 64 72]"
	if fmt.Sprint(seqs) != wantSeq {
		t.Errorf("sequences %v\nwant      %s", seqs, wantSeq)
	}
	for i, e := range epochs {
		if i >= 15 && e != 1 || i < 15 && e != 0 {
			t.Errorf("batch %d epoch %d", i, e)
		}
	}
	side, err := os.ReadFile(filepath.Join(dir, SidecarName))
	if err != nil {
		t.Fatal(err)
	}
	var sc sidecar
	if err := json.Unmarshal(side, &sc); err != nil {
		t.Fatal(err)
	}
	if len(sc.Faults) != 4 || len(res.Faults) != 4 {
		t.Fatalf("sidecar %s", side)
	}
	kinds := map[FaultKind]InjectedFault{}
	for _, f := range sc.Faults {
		kinds[f.Kind] = f
	}
	if g := kinds[FaultGap]; g.BaseSequence != 16 || g.BaseOffset != 16 {
		t.Errorf("gap %+v", g)
	}
	if d := kinds[FaultDuplicate]; d.BaseSequence != 40 || d.BaseOffset != 32 || d.CopyOffset != 40 {
		t.Errorf("duplicate %+v", d)
	}
	if r := kinds[FaultReorder]; r.BaseSequence != 64 || r.BaseOffset != 72 || r.CopyOffset != 64 {
		t.Errorf("reorder %+v", r)
	}
	if e := kinds[FaultEpochBump]; e.ProducerEpoch != 1 || e.BaseSequence != 0 || e.BaseOffset != 120 {
		t.Errorf("epoch bump %+v", e)
	}
	// An injection past the end is an error.
	bad := seedConfig(func(c *Config) { c.Inject = []Fault{{FaultGap, 1000}} })
	if _, err := Write(bad, t.TempDir()); err == nil {
		t.Error("gap@1000 on a 2-batch run did not fail")
	}
	for _, s := range []string{"gap", "gap@x", "boom@1", "gap@-1"} {
		if _, err := ParseFault(s); err == nil {
			t.Errorf("ParseFault(%q) accepted", s)
		}
	}
}

func TestConfigValidate(t *testing.T) {
	for name, mod := range map[string]func(*Config){
		"partitions 0":         func(c *Config) { c.Partitions = 0 },
		"idempotence acks 1":   func(c *Config) { c.Acks = 1 },
		"idempotence inflight": func(c *Config) { c.MaxInFlight = 6 },
		"negative linger":      func(c *Config) { c.LingerMs = -1 },
		"bad topic":            func(c *Config) { c.Topic = ".." },
		"negative interval":    func(c *Config) { c.SendInterval = -1 },
	} {
		c := DefaultConfig()
		mod(&c)
		if err := c.Validate(); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
	d := DefaultConfig()
	if err := d.Validate(); err != nil {
		t.Errorf("defaults: %v", err)
	}
}

// TestExplicitTimestamps: with TimestampStepMs >= 0 record i carries
// StartTime + i*step whatever the virtual clock says, as a ProducerRecord
// with an explicit timestamp does; -1 keeps the clock's time.
func TestExplicitTimestamps(t *testing.T) {
	tests := []struct {
		name     string
		step     int64
		interval time.Duration
		// wantBase/wantMax: a batch's timestamps relative to StartTime, from its first and last offsets.
		wantBase, wantMax func(first, last int64) int64
	}{
		{"step 3, instant sends", 3, 0,
			func(first, last int64) int64 { return 3 * first },
			func(first, last int64) int64 { return 3 * last }},
		{"step 0 ignores the send interval", 0, time.Millisecond,
			func(first, last int64) int64 { return 0 },
			func(first, last int64) int64 { return 0 }},
		{"step 1 ignores a 5 ms send interval", 1, 5 * time.Millisecond,
			func(first, last int64) int64 { return first },
			func(first, last int64) int64 { return last }},
		{"clock: 2 ms send interval", -1, 2 * time.Millisecond,
			func(first, last int64) int64 { return 2 * first },
			func(first, last int64) int64 { return 2 * last }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg := seedConfig(func(c *Config) {
				c.BatchSize, c.LingerMs = 1024, 100000
				c.TimestampStepMs, c.SendInterval = tt.step, tt.interval
			})
			dir, _ := runTo(t, cfg)
			bs := readLog(t, filepath.Join(dir, "kseg-ref-0"))
			if len(bs) == 0 {
				t.Fatal("no batches")
			}
			for k, b := range bs {
				first, last := b.h.BaseOffset, b.h.LastOffset()
				if got, want := b.h.BaseTimestamp-cfg.StartTime, tt.wantBase(first, last); got != want {
					t.Errorf("batch %d: base timestamp start%+d, want start%+d", k, got, want)
				}
				if got, want := b.h.MaxTimestamp-cfg.StartTime, tt.wantMax(first, last); got != want {
					t.Errorf("batch %d: max timestamp start%+d, want start%+d", k, got, want)
				}
			}
		})
	}
	bad := DefaultConfig()
	bad.TimestampStepMs = -2
	if err := bad.Validate(); !errors.Is(err, ErrConfig) {
		t.Errorf("TimestampStepMs -2: %v, want ErrConfig", err)
	}
}

// TestStickySwitchOnDrainedBatch follows Kafka 4.4.0's
// RecordAccumulator.append and BuiltInPartitioner.updatePartitionInfo
// record by record: producedBytes grows by each append's
// estimatedSizeInBytes delta (a new batch's whole size, header included),
// counted after the append; enableSwitch is allBatchesFull(deque) after
// it; a record that does not fit closes the batch (closeForRecordAppends,
// so isFull) and partitionChanged switches with enableSwitch true before
// the new batch is made. A batch the sender drains leaves an empty deque,
// which counts as all full.
func TestStickySwitchOnDrainedBatch(t *testing.T) {
	cfg := seedConfig(func(c *Config) {
		c.Partitions = 3
		c.BatchSize = 1024
		c.LingerMs = 1000
	})
	s := newSim(&cfg, func(int, []byte, int64) error { return nil })
	value := make([]byte, 100)
	ub := batch.EstimateSizeUpperBound(nil, value, nil)
	add := func() *pbatch {
		pb, _, _, ok := s.append(-1, 0, nil, value, nil, ub)
		if !ok {
			t.Fatal("append failed")
		}
		return pb
	}
	drain := func(p int) {
		d := &s.deqs[p]
		for d.len() > 0 {
			d.pop().closed = true
		}
	}
	// 8 records fill a batch to 933 bytes, below batch.size: no switch.
	first := add()
	p := first.part
	for range 7 {
		if pb := add(); pb != first {
			t.Fatalf("record went to a new batch before the first was full")
		}
	}
	if got := s.sticky.produced; got != first.estimatedBytes() || got >= cfg.BatchSize {
		t.Fatalf("produced %d bytes, batch %d", got, first.estimatedBytes())
	}
	// The sender drains it: the deque is empty (all full), but 933 < 1024
	// bytes were produced, so the next record starts a new batch on p.
	drain(p)
	second := add()
	if second.part != p || s.sticky.switches != 0 {
		t.Fatalf("switched after %d bytes (partition %d -> %d)", first.estimatedBytes(), p, second.part)
	}
	// Now past batch.size, but the last batch is not full: no switch
	// while records keep fitting.
	for range 6 {
		if pb := add(); pb != second || s.sticky.switches != 0 {
			t.Fatalf("switched while the last batch had room")
		}
	}
	// Drained again: the next record switches first (partitionChanged),
	// so it is the first of the new period, 0 bytes produced before it.
	drain(p)
	third := add()
	if s.sticky.switches != 1 || third.stick != 1 {
		t.Fatalf("no switch after a drain past batch.size (switches %d)", s.sticky.switches)
	}
	if s.sticky.produced != third.estimatedBytes() {
		t.Fatalf("new period starts at %d bytes, want the new batch's %d", s.sticky.produced, third.estimatedBytes())
	}
}
