package cmd

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/spf13/pflag"

	"github.com/kseg/kseg/producer"
)

// envelopeCase is a testdata/producer-envelope/<case>.json file: the real
// Java producer (Kafka 4.4.0) run several times on one workload, written
// by oracle/producer-envelope.sh.
type envelopeCase struct {
	Case        string   `json:"case"`
	Description string   `json:"description"`
	ProduceArgs []string `json:"produce_args"`
	Runs        []struct {
		Run    int `json:"run"`
		Timing struct {
			BurstNs float64 `json:"burst_ns"` // first send() to the last one's return
		} `json:"timing"`
		Partitions []struct {
			Partition       int   `json:"partition"`
			RecordsPerBatch []int `json:"records_per_batch"`
		} `json:"partitions"`
	} `json:"runs"`
}

// envelopeRuns is how many runs the model simulates per case.
const envelopeRuns = 200

// loadEnvelopeCases reads every case file in dir (the committed ones:
// testdata/producer-envelope).
func loadEnvelopeCases(t *testing.T, dir string) []envelopeCase {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(dir, "*.json"))
	if err != nil {
		t.Fatal(err)
	}
	var out []envelopeCase
	for _, f := range files {
		if filepath.Base(f) == "codec-fidelity.json" {
			continue
		}
		raw, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		var c envelopeCase
		if err := json.Unmarshal(raw, &c); err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		if c.Case == "" || len(c.ProduceArgs) == 0 || len(c.Runs) == 0 {
			t.Fatalf("%s: no case, produce_args or runs", f)
		}
		out = append(out, c)
	}
	if len(out) == 0 {
		t.Fatal("committed fixtures missing: no testdata/producer-envelope/*.json")
	}
	return out
}

// caseConfig resolves a case's produce_args like kseg produce does.
func caseConfig(t *testing.T, args []string) producer.Config {
	t.Helper()
	var f produceFlags
	fs := pflag.NewFlagSet("produce", pflag.ContinueOnError)
	addProduceFlags(fs, &f)
	if err := fs.Parse(args); err != nil {
		t.Fatalf("produce_args: %v", err)
	}
	cfg, err := f.config(fs)
	if err != nil {
		t.Fatalf("produce_args: %v", err)
	}
	return cfg
}

// caseCheck is one partition (or, for the sticky partitioner, the pool of
// all partitions) of a case: the real batch counts and the model's.
type caseCheck struct {
	name  string
	real  []int
	model []int
}

// checks builds the comparisons of a case. Keyed partitions are compared
// one by one; unkeyed ones over several partitions are pooled, since which
// partition the sticky partitioner favours is random in both.
func caseChecks(c *envelopeCase, cfg producer.Config, env *producer.Envelope) []caseCheck {
	realOf := func(p int) []int {
		var out []int
		for _, r := range c.Runs {
			n := 0
			for _, pr := range r.Partitions {
				if pr.Partition == p {
					n = len(pr.RecordsPerBatch)
				}
			}
			out = append(out, n)
		}
		return out
	}
	if cfg.KeyCount == 0 && cfg.ValuesFrom == "" && cfg.Partitions > 1 {
		ck := caseCheck{name: "all partitions"}
		for p := range cfg.Partitions {
			ck.real = append(ck.real, realOf(p)...)
			ck.model = append(ck.model, env.Partitions[p].BatchCounts...)
		}
		return []caseCheck{ck}
	}
	var out []caseCheck
	for p := range cfg.Partitions {
		out = append(out, caseCheck{name: fmt.Sprintf("p%d", p), real: realOf(p), model: env.Partitions[p].BatchCounts})
	}
	return out
}

func medianOf(xs []int) float64 {
	s := slices.Clone(xs)
	slices.Sort(s)
	n := len(s)
	if n%2 == 1 {
		return float64(s[n/2])
	}
	return float64(s[n/2-1]+s[n/2]) / 2
}

// lowerMedian is the nearest-rank median of the model's runs (as the
// envelope's p50).
func lowerMedian(xs []int) int {
	s := slices.Clone(xs)
	slices.Sort(s)
	return s[(len(s)-1)/2]
}

// knownMisses are the cases in which the model, with its default timing,
// misses a criterion on the committed data, and why. A listed case that
// meets the criterion after all fails the test, so the list stays true.
var knownMisses = map[string]struct {
	outsideRange, medianOff bool
	why                     string
}{
	"det-zstd-drift":   {false, true, "model median 391 against 372 (5.1%): the model's application thread is 9% faster than the real one here (burst 236 against 260 ms), so more batches are created before closes improve the compression estimate; 5 of 20 real runs are above 376, the model's p25"},
	"k3-d12-v10-b4096": {false, true, "p1 holds 1000 records, 7 batches without a mid-burst split: 58% of the model's runs have none and 29% have 3-4 (their sender stalls on a cold round trip while p1 fills), while the real runs split it 0-3 times (7 in 9 runs, 8 in 5, 9 in 4, 10 in 2); p0 shows the same two modes (2-3 batches in 43% of the model's runs, real 4-9)"},
	"t-slow1ms-l5-u3":  {false, true, "pooled over three sticky partitions: model median 23 against 26; the totals per run agree (median 89 against 87), but the model's sticks split them less evenly (its p20-p30 are 6 and 15 batches, the real ones 11 and 19)"},
}

// TestEnvelopeMatchesRealProducer: for every case the real Java producer
// was run on, every real run's batch count per partition lies within the
// model's min–max over 200 simulated runs, and the model's median batch
// count is within 5% of the real median (but for knownMisses). Run with
// -v for the calibration table (case, real batch counts per run, model
// min/p50/max).
func TestEnvelopeMatchesRealProducer(t *testing.T) {
	root := repoDir(t)
	cases := loadEnvelopeCases(t, filepath.Join(repoDir(t), "testdata", "producer-envelope"))
	t.Chdir(root) // value files are named relative to the repository
	var table []string
	for i := range cases {
		c := &cases[i]
		t.Run(c.Case, func(t *testing.T) {
			res := evalEnvelopeCase(t, c, nil, envelopeRuns)
			table = append(table, res.rows...)
			known := knownMisses[c.Case]
			for _, m := range []struct {
				got      []string
				expected bool
				what     string
			}{{res.outside, known.outsideRange, "outside the model's range"}, {res.off, known.medianOff, "median more than 5% off"}} {
				switch {
				case len(m.got) > 0 && !m.expected:
					t.Error(strings.Join(m.got, "\n"))
				case len(m.got) > 0:
					t.Logf("known miss (%s): %s", known.why, strings.Join(m.got, "; "))
				case m.expected:
					t.Errorf("listed in knownMisses as %s, but it is not any more: update the list", m.what)
				}
			}
		})
	}
	t.Logf("\n| case | partition | real batches per run | model min / p50 / max |\n| --- | --- | --- | --- |\n%s", strings.Join(table, "\n"))
}

// caseResult is how the model does on one case: the table rows, the
// criteria it misses, and a score for fitting (see TestFitTiming).
type caseResult struct {
	rows         []string
	outside, off []string
	outsideRuns  int     // real partition runs outside the model's min–max
	medianErr    float64 // sum over checks of |model p50 - real median| / real median beyond 5%
	burst        string  // the median burst duration, real and model (a calibration aid)
}

// evalEnvelopeCase simulates case c with extra produce flags (the timing
// being fitted) over runs runs and compares it with the real runs.
func evalEnvelopeCase(t *testing.T, c *envelopeCase, extra []string, runs int) caseResult {
	t.Helper()
	cfg := caseConfig(t, append(slices.Clone(c.ProduceArgs), extra...))
	env, err := producer.Simulate(cfg, runs)
	if err != nil {
		t.Fatal(err)
	}
	var res caseResult
	var realBurst, modelBurst []int
	for _, r := range c.Runs {
		realBurst = append(realBurst, int(r.Timing.BurstNs/1e6))
	}
	for _, l := range env.Runs {
		modelBurst = append(modelBurst, int(l.Burst.Milliseconds()))
	}
	res.burst = fmt.Sprintf("BURST %s real-ms=%v model-ms-p50=%d", c.Case, medianOf(realBurst), lowerMedian(modelBurst))
	for _, ck := range caseChecks(c, cfg, env) {
		lo, hi := slices.Min(ck.model), slices.Max(ck.model)
		med, rmed := lowerMedian(ck.model), medianOf(ck.real)
		res.rows = append(res.rows, fmt.Sprintf("| %s | %s | %v | %d / %d / %d |", c.Case, ck.name, ck.real, lo, med, hi))
		first := true
		for _, n := range ck.real {
			if n < lo || n > hi {
				res.outsideRuns++
				if first {
					res.outside = append(res.outside, fmt.Sprintf("%s: a real run has %d batches, outside the model's %d–%d (real %v)", ck.name, n, lo, hi, ck.real))
					first = false
				}
			}
		}
		if d := math.Abs(float64(med) - rmed); d > 0.05*rmed {
			res.off = append(res.off, fmt.Sprintf("%s: model median %d batches, real median %v (real %v): more than 5%% apart", ck.name, med, rmed, ck.real))
			res.medianErr += d/rmed - 0.05
		}
	}
	return res
}

// repoDir is the repository root (tests run in cmd/).
func repoDir(t *testing.T) string {
	t.Helper()
	wd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	return filepath.Dir(wd)
}
