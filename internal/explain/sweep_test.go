package explain

import (
	"fmt"
	"math"
	"os"
	"sort"
	"testing"
	"time"

	"github.com/kseg/kseg/batch"
	"github.com/kseg/kseg/producer"
	"github.com/kseg/kseg/segment"
)

// sweepConfigs is the grid of model settings explain is checked against:
// batch.size, linger.ms, send interval, sync, keys and partitions, every
// codec. -short keeps a slice of it.
func sweepConfigs(short bool) []producer.Config {
	var out []producer.Config
	codecs := []batch.Codec{batch.CodecNone, batch.CodecGzip, batch.CodecSnappy, batch.CodecLZ4, batch.CodecZstd}
	i := 0
	for _, bs := range []int{100, 1024, 4096, 16384} {
		for _, linger := range []int64{0, 5, 20, 1000} {
			for _, iv := range []time.Duration{0, 100 * time.Microsecond, time.Millisecond, 3 * time.Millisecond} {
				for _, shape := range []struct{ parts, keys int }{{1, 0}, {3, 0}, {3, 10}} {
					i++
					c := producer.DefaultConfig()
					if os.Getenv("EXPLAIN_SWEEP_TIMING") != "default" {
						c.Timing = producer.Timing{} // see idealSweep
					}
					c.Records = 300
					c.BatchSize, c.LingerMs, c.SendInterval = bs, linger, iv
					c.Partitions, c.KeyCount, c.KeyPrefix = shape.parts, shape.keys, "key-"
					c.Compression = codecs[i%len(codecs)]
					c.Seed = uint64(i)
					out = append(out, c)
				}
			}
		}
	}
	for _, linger := range []int64{0, 5, 100} {
		for _, shape := range []struct{ parts, keys int }{{1, 0}, {3, 10}} {
			for _, codec := range codecs {
				c := producer.DefaultConfig()
				c.Records = 40
				c.Sync, c.LingerMs = true, linger
				c.Partitions, c.KeyCount, c.KeyPrefix = shape.parts, shape.keys, "key-"
				c.Compression = codec
				out = append(out, c)
			}
		}
	}
	if short {
		var s []producer.Config
		for i := 0; i < len(out); i += 5 {
			s = append(s, out[i])
		}
		return s
	}
	return out
}

func describe(c producer.Config) string {
	return fmt.Sprintf("batch.size=%d linger.ms=%d interval=%v sync=%v partitions=%d keys=%d %v",
		c.BatchSize, c.LingerMs, c.SendInterval, c.Sync, c.Partitions, c.KeyCount, c.Compression)
}

const (
	minAgreement = 99.0
	maxMisses    = 0
)

func TestSweepAgainstModel(t *testing.T) {
	cfgs := sweepConfigs(testing.Short())
	if !testing.Short() && len(cfgs) < 200 {
		t.Fatalf("sweep has %d settings, want at least 200", len(cfgs))
	}
	total, agree := 0, 0
	// A run whose batches all hold one record leaves sync, linger.ms below
	// the send interval and records above batch.size indistinguishable:
	// counted apart.
	single, singleAgree := 0, 0
	misses := 0
	bsBounded, bsLikely, lBounded, lLikely, lMisses := 0, 0, 0, 0, 0
	lOpenMisses := 0 // linger.ms intervals with no upper bound whose lower bound is above the true value
	confusion := map[string]int{}
	badRuns := map[string]int{}
	for ci, cfg := range cfgs {
		dir := t.TempDir()
		res, err := producer.Write(cfg, dir)
		if err != nil {
			t.Fatalf("%s: %v", describe(cfg), err)
		}
		parts, err := segment.Partitions([]string{dir})
		if err != nil {
			t.Fatal(err)
		}
		ex, err := Run(parts)
		if err != nil {
			t.Fatal(err)
		}
		type pk struct {
			p   int32
			off int64
		}
		got := map[pk]*Batch{}
		for _, b := range ex.Batches {
			got[pk{b.Partition, b.BaseOffset}] = b
		}
		allSingle := true
		for _, tb := range res.Batches {
			allSingle = allSingle && tb.Records == 1
		}
		for _, tb := range res.Batches {
			if allSingle {
				single++
				b := got[pk{int32(tb.Partition), tb.BaseOffset}]
				if b != nil && b.Cut() == tb.Cut {
					singleAgree++
				}
				continue
			}
			b := got[pk{int32(tb.Partition), tb.BaseOffset}]
			if b == nil {
				t.Fatalf("%s: no batch at %d/%d", describe(cfg), tb.Partition, tb.BaseOffset)
			}
			total++
			if os.Getenv("EXPLAIN_RUN") == fmt.Sprint(ci) {
				t.Logf("p%d@%d n=%d %dB true %s got %s: %s", tb.Partition, tb.BaseOffset, tb.Records, tb.Bytes, tb.Cut, b.Cut(), b.Evidence())
			}
			if b.Cut() == tb.Cut {
				agree++
			} else {
				confusion[tb.Cut+"->"+b.Cut()]++
				badRuns[fmt.Sprintf("%03d %s", ci, describe(cfg))]++
				if os.Getenv("EXPLAIN_DEBUG") != "" && badRuns[fmt.Sprintf("%03d %s", ci, describe(cfg))] == 1 {
					t.Logf("%s: p%d@%d true %s got %s: %s", describe(cfg), tb.Partition, tb.BaseOffset, tb.Cut, b.Cut(), b.Evidence())
				}
			}
		}
		eff := int64(max(1, cfg.BatchSize))
		for _, p := range ex.Producers {
			if iv := p.Settings.BatchSize; iv != nil && iv.Max >= 0 {
				bsBounded++
				if iv.Likely == eff {
					bsLikely++
				}
			}
			if iv := p.Settings.LingerMs; iv != nil && iv.Max >= 0 {
				lBounded++
				if iv.Likely == cfg.LingerMs {
					lLikely++
				}
				if cfg.LingerMs < iv.Min || cfg.LingerMs > iv.Max {
					lMisses++
					t.Logf("%s: linger.ms interval [%d, %d] misses %d (%s)", describe(cfg), iv.Min, iv.Max, cfg.LingerMs, iv.Evidence)
				}
			}
			if iv := p.Settings.LingerMs; iv != nil && iv.Max < 0 && cfg.LingerMs < iv.Min {
				lOpenMisses++
				t.Logf("%s: linger.ms interval [%d, any] misses %d (%s)", describe(cfg), iv.Min, cfg.LingerMs, iv.Evidence)
			}
			if iv := p.Settings.BatchSize; iv != nil && (eff < iv.Min || (iv.Max >= 0 && eff > iv.Max)) {
				misses++
				t.Logf("%s: batch.size interval [%d, %d] misses %d (%s)", describe(cfg), iv.Min, iv.Max, eff, iv.Evidence)
			}
		}
	}
	var keys []string
	for k := range confusion {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		t.Logf("true->explained %s: %d", k, confusion[k])
	}
	if os.Getenv("EXPLAIN_DEBUG") != "" {
		for r, n := range badRuns {
			t.Logf("run %s: %d wrong", r, n)
		}
	}
	t.Logf("runs of single-record batches only (undecidable: sync vs linger vs large-record): %d batches, explain agrees on %d", single, singleAgree)
	pct := 100 * float64(agree) / float64(total)
	t.Logf("%d settings, %d batches where the log decides, explain agrees with the model on %d (%.2f%%)", len(cfgs), total, agree, pct)
	t.Logf("batch.size intervals missing the true value: %d; linger.ms intervals with no upper bound missing it: %d", misses, lOpenMisses)
	t.Logf("bounded batch.size intervals: %d, likely value right in %d; bounded linger.ms intervals: %d, likely right in %d, missing the true value in %d",
		bsBounded, bsLikely, lBounded, lLikely, lMisses)
	// The target is 99% agreement and no missed interval. Measured
	// on 2026-11-30 (full sweep): 98.87% of 5687 decidable batches, no
	// missed interval, on the model before its timing rewrite (RTT 2 ms).
	// With its default RTT of 9 ms five requests stay in flight at send
	// intervals of 1 ms and less, and drains wait for responses: 95.27% of
	// 6830 and one linger.ms interval missed, until the replay learned to
	// hold drains for a busy node (98.73%, none missed), and then to replay
	// it with one round trip for every request (99.22%, 6777 of 6830, none
	// missed; 23 of the 53 others are the open last batches of runs sent in
	// one millisecond, linger or flush as linger.ms, which the log does not
	// bound, says). The floor is the target.
	floor := minAgreement
	if testing.Short() {
		floor = shortFloor(minAgreement, total)
	}
	if pct < floor {
		t.Errorf("agreement %.2f%% < %.2f%% (%d decidable batches)", pct, floor, total)
	}
	if lMisses+lOpenMisses > maxLingerMisses {
		t.Errorf("%d linger.ms intervals miss the true value, want at most %d", lMisses+lOpenMisses, maxLingerMisses)
	}
	if misses > maxMisses {
		t.Errorf("%d batch.size intervals miss the true value, want at most %d", misses, maxMisses)
	}
}

// shortFloor is the agreement a sample of n decidable batches supports
// when the full sweep meets target (a percentage): the target less three
// standard errors of a proportion at the target, sqrt(p(1-p)/n). -short
// runs every fifth setting, about 1,160 decidable batches against the full
// sweep's 6,830, so one setting's few misses move its rate by tenths of a
// percent (98.97% on 2026-12-02 while the full sweep measured 99.22%): the
// short floor is about 98.1%. The full sweep keeps the target.
func shortFloor(target float64, n int) float64 {
	if n <= 0 {
		return target
	}
	p := target / 100
	return target - 300*math.Sqrt(p*(1-p)/float64(n))
}

// idealSweep: the sweep runs the model's ideal (instantaneous) threads,
// where every cut has one cause the model names. With the timing model's
// sender latency and jitter a linger cut of a busy sender is not told
// apart from a longer linger.ms in the log itself; explain's reading of
// such logs is checked on the real producer's logs (testdata/explain-oracle).
// EXPLAIN_SWEEP_TIMING=default runs the grid with the timing model's
// defaults instead, for information: that agreement is no floor.
const idealSweep = true

// maxLingerMisses: see the floor in TestSweepAgainstModel.
const maxLingerMisses = 0
