package main

import (
	"fmt"
	"io"
	"path/filepath"
	"sort"
	"strings"

	"github.com/kseg/kseg/internal/whatifdata"
)

// choose compares model variants on whole groups they did not see. Each argument is
// NAME=DATA:PREDDIR, the predictions of variant NAME (kseg whatif --json, as
// calibration/whatif-score.sh --keep writes them) on the data set DATA; a variant names one
// PREDDIR per set, and every variant must cover the same sets. The first variant named is the
// model as it is: ties go to it.
//
// It prints each variant's figures by set, then for each of two criteria the leave-one-group-
// out choice: for every group of every set, the variant whose items of all the other groups do
// best, and the held-out group's figures under its fold's choice. The criteria are the issue's
// three figures per item (Item.Merit, higher is better) and the interval score of the p5–p95
// band (Item.IntervalScore, lower is better).
func choose(w io.Writer, args []string) error {
	var vs []whatifdata.Variant
	idx := map[string]int{}
	var sets []string
	for _, a := range args {
		name, rest, ok := strings.Cut(a, "=")
		data, preds, ok2 := strings.Cut(rest, ":")
		if !ok || !ok2 || name == "" || data == "" || preds == "" {
			return fmt.Errorf("%q: want NAME=DATA:PREDDIR", a)
		}
		set := filepath.Base(filepath.Clean(data))
		i, seen := idx[name]
		if !seen {
			i = len(vs)
			idx[name] = i
			vs = append(vs, whatifdata.Variant{Name: name, Items: map[string][]whatifdata.Item{}})
		}
		if _, dup := vs[i].Items[set]; dup {
			return fmt.Errorf("variant %s names set %s twice", name, set)
		}
		res, _, _, err := scoreDir(data, preds)
		if err != nil {
			return err
		}
		vs[i].Items[set] = res.Items
		if i == 0 {
			sets = append(sets, set)
		}
	}
	if len(vs) < 2 {
		return fmt.Errorf("want at least two variants to choose from")
	}
	for _, v := range vs[1:] {
		if err := sameItems(vs[0], v); err != nil {
			return err
		}
	}
	for _, v := range vs {
		for _, set := range sets {
			fmt.Fprintf(w, "%-12s %-16s %s\n", v.Name, set, figures(v.Items[set]))
		}
	}
	for _, c := range []struct {
		name   string
		f      func(whatifdata.Item) float64
		higher bool
	}{
		{"the issue's three figures per item (median, self-check, share of runs in the band)", whatifdata.Item.Merit, true},
		{"the interval score of the p5-p95 band", whatifdata.Item.IntervalScore, false},
	} {
		folds := whatifdata.LeaveOneGroupOut(vs, c.f, c.higher)
		keys := make([]whatifdata.GroupKey, 0, len(folds))
		picks := make([]int, len(vs))
		for k, v := range folds {
			keys = append(keys, k)
			picks[v]++
		}
		sort.Slice(keys, func(i, j int) bool {
			if keys[i].Set != keys[j].Set {
				return keys[i].Set < keys[j].Set
			}
			return keys[i].Group < keys[j].Group
		})
		fmt.Fprintf(w, "\nleave one group out, by %s:\n", c.name)
		for i, v := range vs {
			fmt.Fprintf(w, "  %s chosen by %d of %d folds\n", v.Name, picks[i], len(folds))
		}
		for _, k := range keys {
			fmt.Fprintf(w, "  %-16s %-28s %s\n", k.Set, k.Group, vs[folds[k]].Name)
		}
		for _, set := range sets {
			var held []whatifdata.Item
			for i, it := range vs[0].Items[set] {
				held = append(held, vs[folds[whatifdata.GroupKey{Set: set, Group: it.Group}]].Items[set][i])
			}
			fmt.Fprintf(w, "  held out     %-16s %s\n", set, figures(held))
		}
	}
	return nil
}

// sameItems checks that b scored the same items as a, in the same order.
func sameItems(a, b whatifdata.Variant) error {
	if len(a.Items) != len(b.Items) {
		return fmt.Errorf("variants %s and %s cover different sets", a.Name, b.Name)
	}
	for set, items := range a.Items {
		other, ok := b.Items[set]
		if !ok || len(other) != len(items) {
			return fmt.Errorf("variants %s and %s differ on set %s", a.Name, b.Name, set)
		}
		for i := range items {
			x, y := items[i], other[i]
			if x.Group != y.Group || x.Condition != y.Condition || x.From != y.From || x.To != y.To ||
				x.Run != y.Run || x.Partition != y.Partition {
				return fmt.Errorf("variants %s and %s differ on set %s at item %d", a.Name, b.Name, set, i)
			}
		}
	}
	return nil
}

// figures is one line of the figures by condition and the mean interval score.
func figures(items []whatifdata.Item) string {
	var b strings.Builder
	for _, c := range []string{whatifdata.Calm, whatifdata.Loaded} {
		res := whatifdata.Result{Items: items}
		t := res.Tally(func(it whatifdata.Item) bool { return it.Condition == c })
		if t.Items == 0 {
			continue
		}
		is := 0.0
		for _, it := range items {
			if it.Condition == c {
				is += it.IntervalScore()
			}
		}
		if b.Len() > 0 {
			b.WriteString(" | ")
		}
		fmt.Fprintf(&b, "%s: medians %d/%d, band %s, self-check %d/%d, interval score %.2f", c,
			t.MedianOK, t.Items, fmt.Sprintf("%.0f%%", 100*t.InsideShare()), t.ReplayOK, t.Items, is/float64(t.Items))
	}
	return b.String()
}
