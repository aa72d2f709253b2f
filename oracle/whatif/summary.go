package main

import (
	"fmt"
	"slices"

	"github.com/kseg/kseg/internal/whatifdata"
)

// summary prints a Markdown table of the runs (for PROVENANCE.md): per group, setting and
// condition the total batch count (median, min–max), records per batch at the median, how late
// the application thread ran (median of the runs' 99th percentiles) and the machine load
// (1-minute loadavg and CPU pressure before the runs: median and max).
func summary(dir string) error {
	d, err := whatifdata.LoadDir(dir)
	if err != nil {
		return err
	}
	fmt.Println("| group | setting | condition | runs | batches: median [min–max] | records/batch | thread late p99 (ms) | loadavg 1 min: median, max | CPU pressure avg10 %: median |")
	fmt.Println("| --- | --- | --- | ---: | --- | ---: | ---: | --- | ---: |")
	var allLoad = map[string][]float64{}
	for _, g := range d.Groups {
		for _, s := range g.Settings {
			for _, c := range []string{whatifdata.Calm, whatifdata.Loaded} {
				runs := d.RunsAt(g.Name, s.Name, c)
				if len(runs) == 0 {
					continue
				}
				var b, late, la, psi []float64
				for _, r := range runs {
					b = append(b, float64(r.Batches))
					late = append(late, r.LateP99Us/1e3)
					la = append(la, r.Load.Before[0])
					psi = append(psi, r.Load.PSI10Pre)
					allLoad[c] = append(allLoad[c], r.Load.Before[0], r.Load.After[0])
				}
				med := whatifdata.Median(b)
				fmt.Printf("| %s | %s | %s | %d | %g [%g–%g] | %.1f | %.0f | %.1f, %.1f | %.0f |\n", g.Name, s.Name, c, len(runs),
					med, slices.Min(b), slices.Max(b), float64(g.Records)/med, whatifdata.Median(late),
					whatifdata.Median(la), slices.Max(la), whatifdata.Median(psi))
			}
		}
	}
	for _, c := range []string{whatifdata.Calm, whatifdata.Loaded} {
		if v := allLoad[c]; len(v) > 0 {
			fmt.Printf("\n%s runs: loadavg (1 min) before and after each run: min %.1f, median %.1f, max %.1f\n", c, slices.Min(v), whatifdata.Median(v), slices.Max(v))
		}
	}
	return nil
}
