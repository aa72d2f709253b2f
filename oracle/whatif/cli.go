package main

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/kseg/kseg/internal/whatifdata"
)

func pairs(dir string) error {
	d, err := whatifdata.LoadDir(dir)
	if err != nil {
		return err
	}
	for _, g := range d.Groups {
		for _, cond := range []string{whatifdata.Calm, whatifdata.Loaded} {
			for _, a := range g.Settings {
				for _, r := range d.RunsAt(g.Name, a.Name, cond) {
					if r.Logs == "" {
						continue
					}
					for _, b := range g.Settings {
						if b.Name != a.Name {
							fmt.Printf("%s\t%s\t%s\t%s\t%d\n", g.Name, cond, a.Name, b.Name, r.Run)
						}
					}
				}
			}
		}
	}
	return nil
}

func settingArgs(dir, group, setting string) error {
	d, err := whatifdata.LoadDir(dir)
	if err != nil {
		return err
	}
	g, ok := d.Group(group)
	if !ok {
		return fmt.Errorf("no group %s", group)
	}
	s, ok := g.Setting(setting)
	if !ok {
		return fmt.Errorf("group %s has no setting %s", group, setting)
	}
	keys := make([]string, 0, len(s.Props))
	for k := range s.Props {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		fmt.Printf("%s=%s\n", k, s.Props[k])
	}
	return nil
}

func extract(dir, group, cond, setting string, k int, dst string) error {
	d, err := whatifdata.LoadDir(dir)
	if err != nil {
		return err
	}
	for _, r := range d.RunsAt(group, setting, cond) {
		if r.Run == k {
			dirs, err := d.Extract(r, dst)
			if err != nil {
				return err
			}
			for _, p := range dirs {
				fmt.Println(p)
			}
			return nil
		}
	}
	return fmt.Errorf("no run %s/%s/%s/%d", group, cond, setting, k)
}

// score reads PREDDIR/GROUP__COND__A__B__RUN.ndjson (the output of one kseg whatif --json each)
// and prints the scores by group and condition.
func score(dir, preds string) error {
	res, n, files, err := scoreDir(dir, preds)
	if err != nil {
		return err
	}
	fmt.Printf("%d predictions from %d invocations; %d scored, %d skipped (per-partition records of unkeyed multi-partition groups, scored by topic total; topic totals of the others)\n",
		n, files, len(res.Items), res.Skipped)
	fmt.Print(res.Table())
	if os.Getenv("WHATIF_ITEMS") != "" {
		printItems(res.Items)
	}
	return nil
}

// scoreDir scores the predictions of preds (files GROUP__COND__A__B__RUN.ndjson) against the
// data of dir, and says how many predictions it read from how many files.
func scoreDir(dir, preds string) (res whatifdata.Result, n, files int, err error) {
	d, err := whatifdata.LoadDir(dir)
	if err != nil {
		return res, 0, 0, err
	}
	paths, err := filepath.Glob(filepath.Join(preds, "*.ndjson"))
	if err != nil {
		return res, 0, 0, err
	}
	if len(paths) == 0 {
		return res, 0, 0, fmt.Errorf("%s: no predictions (GROUP__COND__A__B__RUN.ndjson)", preds)
	}
	var all []whatifdata.Prediction
	for _, f := range paths {
		parts := strings.Split(strings.TrimSuffix(filepath.Base(f), ".ndjson"), "__")
		if len(parts) != 5 {
			return res, 0, 0, fmt.Errorf("%s: want GROUP__COND__A__B__RUN.ndjson", f)
		}
		k, err := strconv.Atoi(parts[4])
		if err != nil {
			return res, 0, 0, fmt.Errorf("%s: %w", f, err)
		}
		in, err := os.Open(f)
		if err != nil {
			return res, 0, 0, err
		}
		ps, err := whatifdata.ParseWhatif(in, parts[0], parts[1], parts[2], parts[3], k)
		in.Close()
		if err != nil {
			return res, 0, 0, fmt.Errorf("%s: %w", f, err)
		}
		all = append(all, ps...)
	}
	res, err = whatifdata.Score(d, all, whatifdata.Options{})
	return res, len(all), len(paths), err
}

// printItems lists every scored item (WHATIF_ITEMS=1 in the environment): where a median or the
// band misses, and by how much, which the table by group does not show; STATE marks an item whose
// same-state prediction (its value in brackets) misses too: the log's run alone misses there.
func printItems(items []whatifdata.Item) {
	fmt.Printf("\n%-22s %-6s %-18s %3s %4s %6s %8s %-13s %8s %-13s %6s %s\n", "group", "cond", "from→to", "run", "part", "log", "replay", "real [min-max]", "pred p50", "[p5-p95]", "inside", "ok")
	for _, it := range items {
		part := strconv.Itoa(int(it.Partition))
		if it.Partition == whatifdata.TopicTotal {
			part = "all"
		}
		lo, hi := slices.Min(it.Real), slices.Max(it.Real)
		ok := ""
		if !it.MedianOK {
			ok += " MEDIAN"
		}
		if !it.ReplayOK {
			ok += " REPLAY"
		}
		if !it.SameStateOK {
			ok += fmt.Sprintf(" STATE(%.0f)", it.SameState)
		}
		fmt.Printf("%-22s %-6s %-18s %3d %4s %6d %8.0f %5.1f [%d-%d] %8.0f [%.0f-%.0f] %3d/%d%s\n", it.Group, it.Condition,
			it.From+"→"+it.To, it.Run, part, it.LogBatches, it.Replay.P50, it.RealMedian, lo, hi,
			it.Predicted.P50, it.Predicted.P5, it.Predicted.P95, it.Inside, len(it.Real), ok)
	}
}
