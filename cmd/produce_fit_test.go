package cmd

import (
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/spf13/pflag"

	"github.com/kseg/kseg/producer"
)

// TestFitTiming is the calibration helper behind producer.DefaultTiming
// (oracle/calibration/fit-timing.sh runs it over a grid): it scores timing flags against
// every committed real-producer case. It runs only when KSEG_FIT is set;
// KSEG_FIT holds the produce flags to try (for example
// "--wake-latency=1ms --loop-cost=200us"; "default" tries the defaults),
// KSEG_FIT_RUNS the runs per case that give the range (default 200),
// KSEG_FIT_MEDIAN_RUNS those that give the model's median (default 1000;
// the first KSEG_FIT_RUNS of them are the range's), KSEG_FIT_CASES a
// comma-separated list of case names (default all), KSEG_FIT_DATA another
// directory of case files (default the committed ones). It prints one line,
//
//	FIT score=S outside=O medianoff=M shape=D progress=P misses=... flags=...
//
// where O is the number of real partition runs outside the model's
// min–max, M the number of checks whose model median is more than 5% off
// the real one, and S = 10*O + 10*M + 100*(sum of the median errors beyond
// 5%): lower is better, 0 meets issue 11's criterion on every case. D sums
// over the checks the distance between the real and the model's
// distributions of batch counts (countDistance), for information: it sees
// a model whose runs fall into the wrong modes even where the medians meet;
// KSEG_FIT_SHAPE prints it per check (SHAPE lines). P sums over the bursts
// the squared log ratios of the model's progress through the burst to the
// real one's (progressLine): the application thread's speed, which its
// settings are fitted to before the sender's. With
// -v it also prints the table. With KSEG_FIT_BURST set it prints, per
// case, the real and the model's median burst duration (first send() to
// the last one's return): the application thread's speed, measured; and
// the quartiles of the first produce request's departure and of its ack
// (realFirstRequest): the sender's cold start; and a PROGRESS line, the
// median time at which 5%, 10%, 20%, ... 100% of the sends had returned,
// real and model, with the µs per send in between (progressLine). With
// KSEG_FIT_BOOT set it also prints, per check, how often the median
// criterion holds when the "real" runs are drawn from the model's own runs
// (BOOT lines: 4000 draws, with replacement, of as many runs as the case
// has): how fragile the criterion is where the model were exactly right.
func TestFitTiming(t *testing.T) {
	flags := os.Getenv("KSEG_FIT")
	if flags == "" {
		t.Skip("calibration helper: set KSEG_FIT (see oracle/calibration/fit-timing.sh)")
	}
	var extra []string
	if flags != "default" {
		extra = strings.Fields(flags)
	}
	runs := positiveEnv(t, "KSEG_FIT_RUNS", envelopeRuns)
	medianRuns := positiveEnv(t, "KSEG_FIT_MEDIAN_RUNS", envelopeMedianRuns)
	want := map[string]bool{}
	for _, c := range strings.Split(os.Getenv("KSEG_FIT_CASES"), ",") {
		if c != "" {
			want[c] = true
		}
	}
	root := repoDir(t)
	data := filepath.Join(root, "testdata", "producer-envelope")
	if d := os.Getenv("KSEG_FIT_DATA"); d != "" {
		data = d // another set of real runs: a hold-out check
	}
	cases := loadEnvelopeCases(t, data)
	t.Chdir(root)
	var table, misses []string
	outside, off, medErr, shape, progress := 0, 0, 0.0, 0.0, 0.0
	for i := range cases {
		c := &cases[i]
		if len(want) > 0 && !want[c.Case] {
			continue
		}
		res := evalEnvelopeCase(t, c, extra, runs, medianRuns)
		if os.Getenv("KSEG_FIT_BURST") != "" {
			fmt.Println(res.burst)
		}
		if os.Getenv("KSEG_FIT_BOOT") != "" {
			bootMedian(t, c, extra, max(runs, medianRuns))
		}
		table = append(table, res.rows...)
		outside += res.outsideRuns
		off += len(res.off)
		medErr += res.medianErr
		shape += res.shape
		progress += res.progressErr
		if os.Getenv("KSEG_FIT_SHAPE") != "" {
			fmt.Printf("SHAPE %s %s\n", c.Case, strings.Join(res.shapes, " "))
		}
		if len(res.outside)+len(res.off) > 0 {
			misses = append(misses, c.Case)
		}
	}
	t.Logf("\n| case | partition | real batches per run | model min / p50 / max |\n| --- | --- | --- | --- |\n%s", strings.Join(table, "\n"))
	fmt.Printf("FIT score=%.1f outside=%d medianoff=%d shape=%.2f progress=%.3f misses=%s flags=%s\n", float64(10*outside+10*off)+100*medErr, outside, off, shape, progress, strings.Join(misses, ","), flags)
}

// positiveEnv is the positive integer in the environment variable name, or
// def when it is unset.
func positiveEnv(t *testing.T, name string, def int) int {
	t.Helper()
	v := os.Getenv(name)
	if v == "" {
		return def
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < 1 {
		t.Fatalf("%s=%q: want a positive integer", name, v)
	}
	return n
}

// bootMedian prints, for each check of case c, the share of 4000 draws of
// len(c.Runs) model runs (with replacement) whose median meets the 5%
// criterion against the model's own median.
func bootMedian(t *testing.T, c *envelopeCase, extra []string, runs int) {
	t.Helper()
	cfg := caseConfig(t, append(slices.Clone(c.ProduceArgs), extra...))
	env, err := producer.Simulate(cfg, runs)
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(1, 2))
	const draws = 4000
	for _, ck := range caseChecks(c, cfg, env, runs) {
		med := float64(lowerMedian(ck.model))
		pooled := len(ck.model) / runs // partitions per run in the check
		ok := 0
		for range draws {
			var s []int
			for range len(c.Runs) {
				r := rng.IntN(runs)
				for q := range pooled {
					s = append(s, ck.model[q*runs+r])
				}
			}
			if m := medianOf(s); math.Abs(med-m) <= 0.05*m {
				ok++
			}
		}
		fmt.Printf("BOOT %s %s met=%.2f model-p50=%v real=%v\n", c.Case, ck.name, float64(ok)/draws, med, ck.real)
	}
}

// oracle/calibration/fit-search-defaults.json, where a calibration search starts, is
// the committed defaults (durations in µs, rounded as the file holds them).
func TestFitSearchStartsAtDefaults(t *testing.T) {
	raw, err := os.ReadFile(filepath.Join(repoDir(t), "oracle", "calibration", "fit-search-defaults.json"))
	if err != nil {
		t.Fatal(err)
	}
	var start map[string]float64
	if err := json.Unmarshal(raw, &start); err != nil {
		t.Fatal(err)
	}
	var f produceFlags
	fs := pflag.NewFlagSet("produce", pflag.ContinueOnError)
	addProduceFlags(fs, &f)
	for name, v := range start {
		fl := fs.Lookup(name)
		if fl == nil {
			t.Errorf("%s: no such kseg produce flag", name)
			continue
		}
		var def float64
		if d, err := time.ParseDuration(fl.DefValue); err == nil {
			def = math.Round(float64(d) / float64(time.Microsecond))
		} else if def, err = strconv.ParseFloat(fl.DefValue, 64); err != nil {
			t.Errorf("%s: default %q is neither a duration nor a number", name, fl.DefValue)
			continue
		}
		if math.Abs(def-v) > 1e-9*math.Max(1, math.Abs(v)) {
			t.Errorf("%s: fit-search-defaults.json has %v, the default is %v", name, v, def)
		}
	}
}
