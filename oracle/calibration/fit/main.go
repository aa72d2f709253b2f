// Command fit scores, searches and cross-validates kseg produce's timing
// profiles against the real Java producer's runs (testdata/producer-envelope
// and testdata/producer-envelope-heldout, from oracle/regen/producer-envelope.sh).
// docs/calibration.md says how the default profile was made with it.
//
//	go run ./oracle/calibration/fit [flags] [CANDIDATE ...]
//
// A CANDIDATE is "default" (the profile as it is) or a space-separated list
// of KEY=VALUE timing constants on top of it (as kseg produce --timing-set
// takes them; seed=N sets --seed). Each is scored on every case and printed
// as one FIT line (internal/calibrate, Totals.Line), best first.
//
// -search FILE.json runs a seeded random local search from the settings in
// FILE ({"wake-latency": 6141, ...}: durations in µs), -iters steps, each
// multiplying one to three settings by exp(N(0, 0.35)) within their bounds
// and kept when the mean score over -seeds does not get worse; -best FILE
// gets the best state. -kfold K splits the cases (by name, over every -data
// directory) into K folds and, for each, searches on the other folds and
// scores the result on it: the held-out figures (-iters 0 scores the start
// as it is, fold by fold). -write FILE writes the best profile found.
package main

import (
	"cmp"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/kseg/kseg/cmd"
	"github.com/kseg/kseg/internal/calibrate"
	"github.com/kseg/kseg/internal/whatifdata"
	"github.com/kseg/kseg/producer"
)

// searched are the settings a search may move, with their bounds; a
// unit of "us" is a duration in microseconds.
var searched = map[string]struct {
	lo, hi float64
	unit   string
}{
	"wake-latency":           {500, 30000, "us"},
	"cold-close":             {1000, 60000, "us"},
	"loop-cost":              {100, 4000, "us"},
	"close-cost":             {30, 1500, "us"},
	"cold-rtt":               {1000, 80000, "us"},
	"first-rtt":              {0, 90000, "us"},
	"cold-close-decay":       {0.2, 4.0, ""},
	"sender-run-jitter":      {0.1, 1.6, ""},
	"sender-jitter":          {0.2, 1.6, ""},
	"cold-jitter":            {0.2, 2.2, ""},
	"rtt-jitter":             {0.05, 1.2, ""},
	"idle-sender-factor":     {0.005, 0.6, ""},
	"idle-rtt-factor":        {0.1, 1.0, ""},
	"idle-sender-jitter":     {0.2, 1.6, ""},
	"idle-sender-run-jitter": {0.05, 1.6, ""},
	"cold-close-compressed":  {0, 30000, "us"},
	"idle-pause-every":       {20, 2000, ""},
	"idle-wake-latency":      {0, 3000, "us"},
	"pause-mean":             {200, 8000, "us"},
}

type options struct {
	data                  []string
	timing                string
	runs, medianRuns      int
	cases                 map[string]bool
	table, burst, boot    bool
	shape, total          bool
	search, best, write   string
	iters, kfold, rngSeed int
	seeds                 []string
}

func main() {
	if err := run(os.Args[1:]); err != nil {
		fmt.Fprintln(os.Stderr, "fit:", err)
		os.Exit(2)
	}
}

func run(args []string) error {
	var o options
	fs := flag.NewFlagSet("fit", flag.ContinueOnError)
	var data, cases, seeds string
	fs.StringVar(&data, "data", "testdata/producer-envelope", "comma-separated directories of real-run case files, or whatif:DIR:calm|loaded[:PSI] (the what-if data's fixed-rate and burst groups, runs at CPU pressure PSI% or less)")
	fs.StringVar(&o.timing, "timing", "", "profile the candidates start from (default: the embedded one)")
	fs.IntVar(&o.runs, "runs", calibrate.RangeRuns, "model runs per case that give the range")
	fs.IntVar(&o.medianRuns, "median-runs", calibrate.MedianRuns, "model runs that give the model's median (the first -runs of them give the range)")
	fs.StringVar(&cases, "cases", "", "comma-separated case names (default all)")
	fs.BoolVar(&o.table, "v", false, "print the table: real batch counts per run, model min / p50 / max")
	fs.BoolVar(&o.burst, "burst", false, "print per case the burst time, the first request's departure and ack (BURST) and the progress through the burst (PROGRESS), real and model")
	fs.BoolVar(&o.boot, "boot", false, "print per check how often the 5% median criterion holds for the model against its own runs (BOOT)")
	fs.BoolVar(&o.shape, "shape", false, "print per check the distance between the real and the model's distributions (SHAPE)")
	fs.BoolVar(&o.total, "total", false, "score an unkeyed case over several partitions by the topic's total batches per run as well (one more check: partial drains, which the pooled partitions hardly show)")
	fs.StringVar(&o.search, "search", "", "JSON file of settings to search and where to start")
	fs.StringVar(&o.best, "best", "fit-search-best.json", "with -search: where the best state goes")
	fs.StringVar(&o.write, "write", "", "write the best candidate as a profile FILE (producer.WriteProfile)")
	fs.IntVar(&o.iters, "iters", 100, "search steps")
	fs.IntVar(&o.kfold, "kfold", 0, "cross-validate the search over K folds of the cases")
	fs.IntVar(&o.rngSeed, "rng", 1, "seed of the search's steps")
	fs.StringVar(&seeds, "seeds", "1", "comma-separated kseg produce --seed values a score is averaged over")
	fs.Usage = func() {
		fmt.Fprintln(fs.Output(), "usage: go run ./oracle/calibration/fit [flags] [default | 'KEY=VALUE ...' ...]")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		return err
	}
	if err := chdirRepo(); err != nil {
		return err
	}
	o.data = strings.Split(data, ",")
	o.seeds = strings.Split(seeds, ",")
	o.cases = map[string]bool{}
	for _, c := range strings.Split(cases, ",") {
		if c != "" {
			o.cases[c] = true
		}
	}
	all, err := loadCases(o)
	if err != nil {
		return err
	}
	switch {
	case o.kfold > 0:
		return kfold(o, all)
	case o.search != "":
		start, err := readState(o.search)
		if err != nil {
			return err
		}
		best, _ := searchState(o, all, start, o.iters, os.Stdout)
		return writeBest(o, best)
	}
	cands := fs.Args()
	if len(cands) == 0 {
		cands = []string{"default"}
	}
	type scored struct {
		line  string
		score float64
	}
	var out []scored
	for _, c := range cands {
		tot, err := score(o, all, candidateArgs(c), true)
		if err != nil {
			return err
		}
		out = append(out, scored{tot.Line() + " candidate=" + c, tot.Score()})
	}
	slices.SortStableFunc(out, func(a, b scored) int { return cmp.Compare(a.score, b.score) })
	for _, s := range out {
		fmt.Println(s.line)
	}
	return nil
}

// chdirRepo moves to the repository root (the case files name their value
// files relative to it).
func chdirRepo() error {
	dir, err := os.Getwd()
	if err != nil {
		return err
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return os.Chdir(dir)
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return errors.New("not inside the kseg repository (no go.mod above the working directory)")
		}
		dir = parent
	}
}

func loadCases(o options) ([]calibrate.Case, error) {
	var all []calibrate.Case
	for _, d := range o.data {
		cs, err := loadDir(d)
		if err != nil {
			return nil, err
		}
		for _, c := range cs {
			if len(o.cases) == 0 || o.cases[c.Case] {
				all = append(all, c)
			}
		}
	}
	if len(all) == 0 {
		return nil, errors.New("no cases selected")
	}
	return all, nil
}

// loadDir reads one -data entry: a directory of case files, or
// whatif:DIR:CONDITION[:PSI], the what-if validation data's fixed-rate
// groups under one condition (calm or loaded) as cases, with only the runs
// made at CPU pressure PSI% or less when PSI is given
// (calibrate.WhatifCases).
func loadDir(d string) ([]calibrate.Case, error) {
	rest, ok := strings.CutPrefix(d, "whatif:")
	if !ok {
		return calibrate.LoadCases(d)
	}
	parts := strings.Split(rest, ":")
	var psi float64
	if len(parts) == 3 {
		var err error
		if psi, err = strconv.ParseFloat(parts[2], 64); err != nil || psi <= 0 {
			return nil, fmt.Errorf("-data %s: CPU pressure %q is not a positive percentage", d, parts[2])
		}
	}
	if len(parts) < 2 || len(parts) > 3 || (parts[1] != whatifdata.Calm && parts[1] != whatifdata.Loaded) {
		return nil, fmt.Errorf("-data %s: want whatif:DIR:calm[:PSI] or whatif:DIR:loaded[:PSI]", d)
	}
	wd, err := whatifdata.LoadDir(parts[0])
	if err != nil {
		return nil, err
	}
	return calibrate.WhatifCases(wd, parts[1], psi)
}

// candidateArgs turns a candidate into kseg produce flags.
func candidateArgs(c string) []string {
	if c == "default" {
		return nil
	}
	var args []string
	for _, kv := range strings.Fields(c) {
		if s, ok := strings.CutPrefix(kv, "seed="); ok {
			args = append(args, "--seed", s)
			continue
		}
		args = append(args, "--timing-set", kv)
	}
	return args
}

// score evaluates every case with the extra flags, averaged over the
// seeds (the counts summed, the score the mean), in parallel.
func score(o options, cases []calibrate.Case, extra []string, print bool) (calibrate.Totals, error) {
	if o.timing != "" {
		extra = append([]string{"--timing", o.timing}, extra...)
	}
	var results []calibrate.Result
	for _, seed := range o.seeds {
		args := append(slices.Clone(extra), "--seed", seed)
		rs := make([]calibrate.Result, len(cases))
		errs := make([]error, len(cases))
		boots := make([][]string, len(cases))
		var wg sync.WaitGroup
		sem := make(chan struct{}, runtime.GOMAXPROCS(0))
		for i := range cases {
			wg.Add(1)
			go func() {
				defer wg.Done()
				sem <- struct{}{}
				defer func() { <-sem }()
				c := &cases[i]
				cfg, err := cmd.ProduceConfig(append(slices.Clone(c.ProduceArgs), args...))
				if err != nil {
					errs[i] = fmt.Errorf("%s: %w", c.Case, err)
					return
				}
				eval := calibrate.Eval
				if o.total {
					eval = calibrate.EvalTotal
				}
				rs[i], errs[i] = eval(c, cfg, o.runs, o.medianRuns)
				if print && o.boot && errs[i] == nil {
					boots[i], errs[i] = calibrate.BootMedian(c, cfg, max(o.runs, o.medianRuns))
				}
			}()
		}
		wg.Wait()
		if err := errors.Join(errs...); err != nil {
			return calibrate.Totals{}, err
		}
		if print {
			for i, r := range rs {
				if o.burst {
					fmt.Println(r.Burst)
				}
				if o.shape {
					fmt.Printf("SHAPE %s %s\n", r.Case, strings.Join(r.Shapes, " "))
				}
				for _, l := range boots[i] {
					fmt.Println(l)
				}
			}
			if o.table {
				fmt.Println("| case | partition | real batches per run | model min / p50 / max |\n| --- | --- | --- | --- |")
				for _, r := range rs {
					fmt.Println(strings.Join(r.Rows, "\n"))
				}
			}
		}
		results = append(results, rs...)
	}
	t := calibrate.Sum(results)
	n := float64(len(o.seeds))
	t.MedianErr /= n // the score is the seeds' mean
	t.OutsideRuns = int(math.Round(float64(t.OutsideRuns) / n))
	t.Off = int(math.Round(float64(t.Off) / n))
	t.OffWide = int(math.Round(float64(t.OffWide) / n))
	t.InsideP90 = int(math.Round(float64(t.InsideP90) / n))
	t.RealRuns /= len(o.seeds)
	t.Checks /= len(o.seeds)
	t.Cases /= len(o.seeds)
	t.Shape /= n
	t.Progress /= n
	slices.Sort(t.Misses)
	t.Misses = slices.Compact(t.Misses)
	return t, nil
}

func readState(path string) (map[string]float64, error) {
	raw, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var st map[string]float64
	if err := json.Unmarshal(raw, &st); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	for k := range st {
		if _, ok := searched[k]; !ok {
			return nil, fmt.Errorf("%s: %q is not a searched setting", path, k)
		}
	}
	return st, nil
}

// stateCandidate is a search state as a candidate.
func stateCandidate(st map[string]float64) string {
	keys := slices.Sorted(func(yield func(string) bool) {
		for k := range st {
			if !yield(k) {
				return
			}
		}
	})
	var out []string
	for _, k := range keys {
		if searched[k].unit == "us" {
			out = append(out, fmt.Sprintf("%s=%dus", k, int64(math.Round(st[k]))))
		} else {
			out = append(out, fmt.Sprintf("%s=%.4g", k, st[k]))
		}
	}
	return strings.Join(out, " ")
}

// searchState runs the random local search on cases from start and
// returns the best state and its totals.
func searchState(o options, cases []calibrate.Case, start map[string]float64, iters int, log *os.File) (map[string]float64, calibrate.Totals) {
	state := maps(start)
	best, err := score(o, cases, candidateArgs(stateCandidate(state)), false)
	if err != nil {
		fmt.Fprintln(os.Stderr, "fit:", err)
		os.Exit(2)
	}
	fmt.Fprintf(log, "START %.1f %s\n", best.Score(), stateCandidate(state))
	rng := rand.New(rand.NewPCG(uint64(o.rngSeed), 26))
	keys := slices.Sorted(func(yield func(string) bool) {
		for k := range state {
			if !yield(k) {
				return
			}
		}
	})
	for it := range iters {
		cand := maps(state)
		n := []int{1, 1, 2, 3}[rng.IntN(4)]
		for _, i := range rng.Perm(len(keys))[:min(n, len(keys))] {
			k := keys[i]
			b := searched[k]
			v := cand[k]
			if v <= 0 {
				v = b.hi / 100 // a setting at 0 (off) first steps from 1% of its range
			}
			cand[k] = min(b.hi, max(b.lo, v*math.Exp(0.35*rng.NormFloat64())))
		}
		t, err := score(o, cases, candidateArgs(stateCandidate(cand)), false)
		if err != nil {
			fmt.Fprintln(os.Stderr, "fit:", err)
			os.Exit(2)
		}
		fmt.Fprintf(log, "IT %d %.1f (best %.1f) %s\n", it, t.Score(), best.Score(), time.Now().UTC().Format("15:04:05"))
		if t.Score() <= best.Score() {
			state, best = cand, t
			fmt.Fprintf(log, "IT %d BEST %.1f %s\n", it, best.Score(), stateCandidate(state))
			if o.search != "" && o.kfold == 0 {
				raw, _ := json.Marshal(state)
				os.WriteFile(o.best, raw, 0o644)
			}
		}
	}
	fmt.Fprintf(log, "END %s %s\n", best.Line(), stateCandidate(state))
	return state, best
}

func maps(m map[string]float64) map[string]float64 {
	out := make(map[string]float64, len(m))
	for k, v := range m {
		out[k] = v
	}
	return out
}

// writeBest writes the state as a profile when -write is given.
func writeBest(o options, st map[string]float64) error {
	if o.write == "" {
		return nil
	}
	p := producer.DefaultProfile()
	if o.timing != "" {
		var err error
		if p, err = producer.ReadProfile(o.timing); err != nil {
			return err
		}
	}
	for _, kv := range strings.Fields(stateCandidate(st)) {
		if err := p.Set(kv); err != nil {
			return err
		}
	}
	p.Provenance.Date = time.Now().UTC().Format("2006-01-02")
	p.Provenance.Method = "oracle/calibration/fit -search from the profile before, on " + strings.Join(o.data, ", ")
	return producer.WriteProfile(o.write, p)
}

// kfold splits the cases by name into K folds; for each, it searches on
// the others from the start (-search FILE, or the searched settings'
// current values) and scores the best state on the fold.
func kfold(o options, all []calibrate.Case) error {
	names := map[string]bool{}
	for _, c := range all {
		names[c.Case] = true
	}
	order := make([]string, 0, len(names))
	for n := range names {
		order = append(order, n)
	}
	sort.Strings(order)
	// A fixed shuffle, so that folds mix the kinds of case (the names
	// sort by kind).
	rand.New(rand.NewPCG(uint64(o.rngSeed), 0x6b666f6c64)).Shuffle(len(order), func(i, j int) { order[i], order[j] = order[j], order[i] })
	fold := map[string]int{}
	for i, n := range order {
		fold[n] = i % o.kfold
	}
	start := map[string]float64{}
	if o.search != "" {
		var err error
		if start, err = readState(o.search); err != nil {
			return err
		}
	}
	var train, test []calibrate.Totals
	for k := range o.kfold {
		var in, out []calibrate.Case
		var outNames []string
		for _, c := range all {
			if fold[c.Case] == k {
				out = append(out, c)
				outNames = append(outNames, c.Case)
			} else {
				in = append(in, c)
			}
		}
		if len(out) == 0 {
			continue
		}
		slices.Sort(outNames)
		outNames = slices.Compact(outNames)
		fmt.Printf("FOLD %d held out: %s\n", k, strings.Join(outNames, ","))
		st, fitted := searchState(o, in, start, o.iters, os.Stdout)
		held, err := score(o, out, candidateArgs(stateCandidate(st)), false)
		if err != nil {
			return err
		}
		fmt.Printf("FOLD %d fitted  %s\nFOLD %d heldout %s\n", k, fitted.Line(), k, held.Line())
		train, test = append(train, fitted), append(test, held)
	}
	sum := func(ts []calibrate.Totals) calibrate.Totals {
		var s calibrate.Totals
		for _, t := range ts {
			s = s.Add(t)
		}
		return s
	}
	fmt.Printf("KFOLD k=%d iters=%d fitted (sum over folds of the training cases) %s\n", o.kfold, o.iters, sum(train).Line())
	fmt.Printf("KFOLD k=%d iters=%d heldout (each case scored once, by the fit that did not see it) %s\n", o.kfold, o.iters, sum(test).Line())
	return nil
}
