package producer

import (
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"path/filepath"

	"github.com/kseg/kseg/internal/atomicfile"
)

// Produce is kseg produce for runs > 1 or a dry run: it simulates cfg runs
// times and, unless dry, writes the median run's log into out (atomically,
// as Run) with the envelope's NDJSON beside the partition directories
// (EnvelopeName) when runs > 1. The result is nil for a dry run.
func Produce(cfg Config, runs int, out string, force, dry bool) (*Envelope, *Result, error) {
	env, err := Simulate(cfg, runs)
	if err != nil {
		return nil, nil, err
	}
	if dry {
		return env, nil, nil
	}
	var res *Result
	err = atomicfile.WriteDir(out, force, func(tmp string) error {
		var err error
		res, err = writeMedian(env, tmp)
		return err
	})
	if err != nil {
		return nil, nil, err
	}
	res.Dir = out
	return env, res, nil
}

// writeMedian writes env's median run into dir, checks that the written
// layout is the simulated one, and adds the envelope file.
func writeMedian(env *Envelope, dir string) (*Result, error) {
	c := env.Config
	med := &env.Runs[env.Median]
	c.Run = med.Run
	res, err := Write(c, dir)
	if err != nil {
		return nil, err
	}
	if len(c.Inject) == 0 {
		for p, ps := range res.Partitions {
			if ps.Batches != int64(med.Batches(p)) || !maps.Equal(ps.RecordsPerBatch, med.Histogram(p)) {
				return nil, fmt.Errorf("internal: run %d partition %d: wrote %d batches, the simulation cut %d", c.Run, p, ps.Batches, med.Batches(p))
			}
		}
	}
	if len(env.Runs) > 1 {
		if err := writeEnvelopeFile(env, dir); err != nil {
			return nil, err
		}
	}
	return res, nil
}

// SweepEnvelopes is Sweep with runs simulations per sweep run: each run's
// median layout goes to out/<name> with its envelope file (runs > 1), and
// the sweep plan to out/SweepName. Dry runs write nothing and return no
// results.
func SweepEnvelopes(sweep []SweepRun, plan *SweepPlan, runs int, out string, force, dry bool) ([]*Envelope, []*Result, error) {
	envs := make([]*Envelope, len(sweep))
	for i, r := range sweep {
		env, err := Simulate(r.Config, runs)
		if err != nil {
			return nil, nil, fmt.Errorf("run %s: %w", r.Name, err)
		}
		envs[i] = env
	}
	if dry {
		return envs, nil, nil
	}
	results := make([]*Result, len(sweep))
	err := atomicfile.WriteDir(out, force, func(tmp string) error {
		for i, r := range sweep {
			dir := filepath.Join(tmp, r.Name)
			if err := os.Mkdir(dir, 0o755); err != nil {
				return err
			}
			res, err := writeMedian(envs[i], dir)
			if err != nil {
				return fmt.Errorf("run %s: %w", r.Name, err)
			}
			res.Dir = filepath.Join(out, r.Name)
			results[i] = res
		}
		return writePlan(plan, tmp)
	})
	if err != nil {
		return nil, nil, err
	}
	return envs, results, nil
}

// writePlan writes the sweep plan (nothing without a sweep).
func writePlan(plan *SweepPlan, dir string) error {
	if plan == nil {
		return nil
	}
	b, err := json.MarshalIndent(plan, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(dir, SweepName), append(b, '\n'), 0o644)
}

// ReadSweepPlan reads dir/SweepName; it returns nil, nil when there is none.
func ReadSweepPlan(dir string) (*SweepPlan, error) {
	b, err := os.ReadFile(filepath.Join(dir, SweepName))
	if os.IsNotExist(err) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var p SweepPlan
	if err := json.Unmarshal(b, &p); err != nil {
		return nil, fmt.Errorf("%s: %w", filepath.Join(dir, SweepName), err)
	}
	for _, pt := range p.Points {
		if len(pt.Values) != len(p.Axes) {
			return nil, fmt.Errorf("%s: run %s has %d values for %d axes", filepath.Join(dir, SweepName), pt.Name, len(pt.Values), len(p.Axes))
		}
	}
	return &p, nil
}
