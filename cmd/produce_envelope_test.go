package cmd

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/kseg/kseg/internal/calibrate"
	"github.com/kseg/kseg/producer"
)

// The real Java producer's runs (testdata/producer-envelope, read and
// scored by internal/calibrate) against kseg produce with its default
// timing profile. The calibration tool (oracle/calibration/fit) scores
// other profiles on them.

// caseConfig resolves a case's produce_args like kseg produce does.
func caseConfig(t *testing.T, args []string) producer.Config {
	t.Helper()
	cfg, err := ProduceConfig(args)
	if err != nil {
		t.Fatalf("produce_args: %v", err)
	}
	return cfg
}

// loadEnvelopeCases reads the case files in dir.
func loadEnvelopeCases(t *testing.T, dir string) []calibrate.Case {
	t.Helper()
	cases, err := calibrate.LoadCases(dir)
	if err != nil {
		t.Fatal(err)
	}
	return cases
}

// knownMisses are the cases in which the model, with its default timing,
// misses a criterion on the committed data, and why. A listed case that
// meets the criterion after all fails the test, so the list stays true.
var knownMisses = map[string]struct {
	outsideRange, medianOff bool
	why                     string
}{
	// Both within max(1 batch, 5%, the real median's bootstrap half-width)
	// since the application thread loses its CPU to each produce request
	// (request-pause; docs/calibration.md), which took the held-out days'
	// misses down and these two fitted cases' medians off by 5%.
	"t-slow1ms-l5-u3":  {medianOff: true, why: "pooled sticky partitions at a send every 1 ms: 22 batches against the real 26, whose runs spread 0-65"},
	"k3-d12-v10-b4096": {medianOff: true, why: "one key's partition of a 250-record burst: 7 batches against the real 8 (real 7-10)"},
}

// TestEnvelopeMatchesRealProducer: for every case the real Java producer
// was run on, every real run's batch count per partition lies within the
// model's min–max over 200 simulated runs, and the model's median batch
// count (over envelopeMedianRuns) is within 5% of the real median (but
// for knownMisses). Run with -v for the calibration table (case, real
// batch counts per run, model min/p50/max).
func TestEnvelopeMatchesRealProducer(t *testing.T) {
	root := repoDir(t)
	cases := loadEnvelopeCases(t, filepath.Join(repoDir(t), "testdata", "producer-envelope"))
	t.Chdir(root) // value files are named relative to the repository
	// The cases are independent and each simulation is seeded by its run
	// index, so they run in parallel: they are most of cmd's test time.
	// rows[i] is case i's part of the table, logged in case order once
	// every case is done.
	rows := make([][]string, len(cases))
	t.Cleanup(func() {
		t.Logf("\n| case | partition | real batches per run | model min / p50 / max |\n| --- | --- | --- | --- |\n%s", strings.Join(slices.Concat(rows...), "\n"))
	})
	for i := range cases {
		c := &cases[i]
		t.Run(c.Case, func(t *testing.T) {
			t.Parallel()
			res, err := calibrate.Eval(c, caseConfig(t, c.ProduceArgs), calibrate.RangeRuns, calibrate.MedianRuns)
			if err != nil {
				t.Fatal(err)
			}
			rows[i] = res.Rows
			known := knownMisses[c.Case]
			for _, m := range []struct {
				got      []string
				expected bool
				what     string
			}{{res.Outside, known.outsideRange, "outside the model's range"}, {res.Off, known.medianOff, "median more than 5% off"}} {
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
}

// The held-out real runs (another day's, never fitted to: docs/calibration.md,
// "How well it holds") are the same workloads as the committed ones,
// so the calibration tool can score the model on them and oracle/regen/producer-
// envelope.sh --reuse can pool them.
func TestHeldOutEnvelopeCases(t *testing.T) {
	dir := filepath.Join(repoDir(t), "testdata")
	fitted := loadEnvelopeCases(t, filepath.Join(dir, "producer-envelope"))
	held := loadEnvelopeCases(t, filepath.Join(dir, "producer-envelope-heldout"))
	args := map[string][]string{}
	for _, c := range fitted {
		args[c.Case] = c.ProduceArgs
	}
	if len(held) != len(fitted) {
		t.Errorf("%d held-out cases, %d fitted", len(held), len(fitted))
	}
	for _, c := range held {
		a, ok := args[c.Case]
		switch {
		case !ok:
			t.Errorf("held-out case %s is not a fitted one", c.Case)
		case !slices.Equal(a, c.ProduceArgs):
			t.Errorf("%s: held-out produce_args %v, fitted %v", c.Case, c.ProduceArgs, a)
		case len(c.Runs) < 5:
			t.Errorf("%s: %d held-out runs", c.Case, len(c.Runs))
		}
	}
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
