package producer

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/kseg/kseg/internal/atomicfile"
)

// WorkloadRun is one named run of a workload file: settings by kseg
// produce flag name, in name order. A flag given a list in the file has one
// Setting per element, in list order (for repeatable flags such as inject).
type WorkloadRun struct {
	Name     string
	Settings []Setting
}

// Setting is one flag value of a run, as it would be typed on the command
// line (JSON numbers in plain decimal notation).
type Setting struct {
	Name, Value string
}

var runNameRE = regexp.MustCompile(`^[A-Za-z0-9._=-]+$`)

// Axis is one swept flag and its values, in the workload's order.
type Axis struct {
	Flag   string   `json:"flag"`
	Values []string `json:"values"`
}

// SweepPoint places one run of a sweep: its base run ("" for the unnamed
// one) and its value on every axis.
type SweepPoint struct {
	Name   string   `json:"name"`
	Base   string   `json:"base"`
	Values []string `json:"values"` // one per axis
}

// SweepPlan is what kseg produce writes at the top of a sweep's output
// (SweepName) for kseg report's matrix.
type SweepPlan struct {
	Axes   []Axis       `json:"axes"`
	Points []SweepPoint `json:"runs"`
}

// SweepName is the sweep plan's file at the top of a sweep's output.
const SweepName = "kseg-sweep.json"

// ExpandSweep reads the JSON workload file at path: top-level settings,
// an optional "runs" list (each with a "name" and settings) and an optional
// "sweep" (flag name -> list of values), expanded over every run as all
// combinations, flag names sorted. A sweep run is named
// "<run>_<flag>=<value>..." ("run_" dropped for the unnamed run). The
// flag names are not checked here: the caller applies them. It also
// returns the sweep's plan (nil without a sweep).
func ExpandSweep(path string) ([]WorkloadRun, *SweepPlan, error) {
	runs, plan, err := expandWorkload(path)
	if err != nil {
		return nil, nil, err
	}
	return runs, plan, nil
}

func expandWorkload(path string) ([]WorkloadRun, *SweepPlan, error) {
	base, runs, sweep, err := readWorkload(path)
	if err != nil {
		return nil, nil, err
	}
	runs, plan := sweepRuns(runs, sweep)
	out := make([]WorkloadRun, 0, len(runs))
	seen := map[string]bool{}
	for _, r := range runs {
		merged := map[string]any{}
		for k, v := range base {
			merged[k] = v
		}
		for k, v := range r.settings {
			merged[k] = v
		}
		if plan != nil {
			r.name = strings.TrimPrefix(r.name, "run_")
		}
		if !runNameRE.MatchString(r.name) {
			return nil, nil, fmt.Errorf("%s: run name %q: use letters, digits and . _ = -", path, r.name)
		}
		out = append(out, WorkloadRun{Name: r.name, Settings: settings(merged)})
		if plan != nil {
			plan.Points = append(plan.Points, SweepPoint{Name: r.name, Base: r.base, Values: r.values})
		}
	}
	for _, r := range out {
		if seen[r.Name] {
			return nil, nil, fmt.Errorf("%s: two runs are named %q", path, r.Name)
		}
		seen[r.Name] = true
	}
	return out, plan, nil
}

// pendingRun is a run of a workload file before its top-level settings
// are merged in: its name, the run it was swept from and its value on
// every axis so far.
type pendingRun struct {
	name     string
	base     string
	values   []string
	settings map[string]any
}

// readWorkload reads the workload file at path: its top-level settings,
// its runs (one unnamed run when it lists none) and its sweep.
func readWorkload(path string) (base map[string]any, runs []pendingRun, sweep map[string][]any, err error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, nil, nil, err
	}
	var top map[string]json.RawMessage
	if err := json.Unmarshal(data, &top); err != nil {
		return nil, nil, nil, fmt.Errorf("%s: %w", path, err)
	}
	base = map[string]any{}
	for k, v := range top {
		switch k {
		case "runs":
			var rs []map[string]any
			if err := json.Unmarshal(v, &rs); err != nil {
				return nil, nil, nil, fmt.Errorf("%s: runs: %w", path, err)
			}
			for i, r := range rs {
				name, _ := r["name"].(string)
				if name == "" {
					name = fmt.Sprintf("run-%d", i)
				}
				delete(r, "name")
				runs = append(runs, pendingRun{name: name, base: name, settings: r})
			}
		case "sweep":
			if err := json.Unmarshal(v, &sweep); err != nil {
				return nil, nil, nil, fmt.Errorf("%s: sweep: %w", path, err)
			}
		default:
			var x any
			json.Unmarshal(v, &x)
			base[k] = x
		}
	}
	if len(runs) == 0 {
		runs = []pendingRun{{name: "run", settings: map[string]any{}}}
	}
	return base, runs, sweep, nil
}

// sweepRuns expands runs over every combination of the sweep's values,
// flags in name order, and returns the plan (nil without a sweep).
func sweepRuns(runs []pendingRun, sweep map[string][]any) ([]pendingRun, *SweepPlan) {
	keys := make([]string, 0, len(sweep))
	for k := range sweep {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	if len(keys) == 0 {
		return runs, nil
	}
	plan := &SweepPlan{}
	for _, k := range keys {
		ax := Axis{Flag: k}
		for _, v := range sweep[k] {
			ax.Values = append(ax.Values, settingValue(v))
		}
		plan.Axes = append(plan.Axes, ax)
		var next []pendingRun
		for _, r := range runs {
			for _, v := range sweep[k] {
				s := map[string]any{}
				for kk, vv := range r.settings {
					s[kk] = vv
				}
				s[k] = v
				vals := append(slices.Clone(r.values), settingValue(v))
				next = append(next, pendingRun{name: fmt.Sprintf("%s_%s=%v", r.name, k, v), base: r.base, values: vals, settings: s})
			}
		}
		runs = next
	}
	return runs, plan
}

// settings flattens m into flag settings, names sorted.
func settings(m map[string]any) []Setting {
	names := make([]string, 0, len(m))
	for k := range m {
		names = append(names, k)
	}
	sort.Strings(names)
	var out []Setting
	for _, k := range names {
		vals := []any{m[k]}
		if list, ok := m[k].([]any); ok {
			vals = list
		}
		for _, v := range vals {
			out = append(out, Setting{k, settingValue(v)})
		}
	}
	return out
}

// settingValue is a JSON value as a flag value (numbers in plain decimal).
func settingValue(v any) string {
	if fv, ok := v.(float64); ok {
		return strconv.FormatFloat(fv, 'f', -1, 64)
	}
	return fmt.Sprint(v)
}

// SweepRun is one resolved run of a workload.
type SweepRun struct {
	Name   string
	Config Config
}

// Sweep writes each run to out/<name>, all or nothing: out is built
// beside itself and renamed into place, and must not exist or be empty
// unless force is set. The results' Dir is out/<name>; the sweep plan, if
// any, goes to out/SweepName.
func Sweep(runs []SweepRun, plan *SweepPlan, out string, force bool) ([]*Result, error) {
	results := make([]*Result, len(runs))
	err := atomicfile.WriteDir(out, force, func(tmp string) error {
		for i, r := range runs {
			dir := filepath.Join(tmp, r.Name)
			if err := os.Mkdir(dir, 0o755); err != nil {
				return err
			}
			res, err := Write(r.Config, dir)
			if err != nil {
				return fmt.Errorf("run %s: %w", r.Name, err)
			}
			res.Dir = filepath.Join(out, r.Name)
			results[i] = res
		}
		return writePlan(plan, tmp)
	})
	if err != nil {
		return nil, err
	}
	return results, nil
}
