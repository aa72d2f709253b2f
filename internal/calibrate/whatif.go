package calibrate

import (
	"fmt"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/kseg/kseg/internal/whatifdata"
)

// WhatifCases turns the what-if validation data (testdata/whatif:
// oracle/regen/whatif-data.sh, real runs at a fixed arrival schedule under
// several producer settings) into cases of the synthetic producer: every
// (group, setting) whose arrivals are fixed-rate or bursts becomes a case named
// "w-<group>-<setting>-<condition>" with the group's workload as kseg
// produce flags (--send-interval, --burst, the value file, the keys "key-<i mod K>")
// and the setting as Kafka properties, its runs the real runs made under
// condition; a burst group's ("burst": B records at once, a burst every
// gap) likewise, as --burst B --send-interval gap. These are workloads the
// default profile was not fitted to: a send every 100 µs to 2 ms, bursts of
// 250 records over 6 partitions, linger.ms 0–100, lz4, zstd and snappy,
// acks=1. Poisson groups have no synthetic workload and are left out.
// maxPSI, when positive, keeps only the runs made while the machine's CPU
// pressure (/proc/pressure/cpu "some avg10", before and after the run) was
// at most maxPSI percent: "calm" there means without the script's own
// load, and the machine may have been busy with other work, while a
// profile describes one machine condition (the default: pressure about
// 35%).
func WhatifCases(d *whatifdata.Data, condition string, maxPSI float64) ([]Case, error) {
	var out []Case
	for _, g := range d.Groups {
		if g.Arrivals.Process != "fixed" && g.Arrivals.Process != "burst" {
			continue
		}
		for _, s := range g.Settings {
			runs := d.RunsAt(g.Name, s.Name, condition)
			if maxPSI > 0 {
				runs = slices.DeleteFunc(runs, func(r whatifdata.Run) bool {
					return r.Load.PSI10Pre < 0 || r.Load.PSI10Pre > maxPSI || r.Load.PSI10Pst > maxPSI
				})
			}
			if len(runs) == 0 {
				continue
			}
			c := Case{
				Case:        fmt.Sprintf("w-%s-%s-%s", g.Name, s.Name, condition),
				Description: fmt.Sprintf("what-if group %s, setting %s, %s machine", g.Name, s.Name, condition),
				ProduceArgs: whatifArgs(d.Dir, g, s),
				Late:        true,
			}
			for _, r := range runs {
				cr := Run{Run: r.Run}
				cr.Timing.BurstNs = r.SpanMs * 1e6
				cr.Timing.LateOver1ms, cr.Timing.LateP99Us = r.LateOver1, r.LateP99Us
				for _, p := range r.Partitions {
					rpb, err := histogramBatches(p.Histogram)
					if err != nil {
						return nil, fmt.Errorf("%s run %d partition %d: %w", c.Case, r.Run, p.Partition, err)
					}
					if len(rpb) != p.Batches {
						return nil, fmt.Errorf("%s run %d partition %d: histogram %q holds %d batches, the run says %d", c.Case, r.Run, p.Partition, p.Histogram, len(rpb), p.Batches)
					}
					cr.Partitions = append(cr.Partitions, RunPartition{Partition: p.Partition, RecordsPerBatch: rpb})
				}
				c.Runs = append(c.Runs, cr)
			}
			out = append(out, c)
		}
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("%s: no fixed-rate or burst group with %s runs (CPU pressure at most %v%%)", d.Dir, condition, maxPSI)
	}
	return out, nil
}

// whatifArgs is a what-if group's workload and setting as kseg produce flags.
func whatifArgs(dir string, g whatifdata.Group, s whatifdata.Setting) []string {
	args := []string{
		"--topic", "w-" + g.Name,
		"--partitions", strconv.Itoa(g.Partitions),
		"--records", strconv.Itoa(g.Records),
		"--value-file", filepath.Join(dir, g.Values.File),
	}
	if g.Arrivals.Process == "burst" {
		args = append(args, "--burst", strconv.Itoa(g.Arrivals.Burst),
			"--send-interval", strconv.FormatFloat(g.Arrivals.GapMs, 'f', -1, 64)+"ms")
	} else {
		args = append(args, "--send-interval", strconv.FormatFloat(g.Arrivals.IntervalUs, 'f', -1, 64)+"us")
	}
	if g.Keyed && g.Keys > 0 {
		args = append(args, "--key-count", strconv.Itoa(g.Keys), "--key-prefix", "key-")
	}
	keys := make([]string, 0, len(s.Props))
	for k := range s.Props {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		args = append(args, "--producer-property", k+"="+s.Props[k])
	}
	return args
}

// histogramBatches expands kseg count's histogram ("78x2 19x1": two
// batches of 78 records, one of 19) into records per batch.
func histogramBatches(h string) ([]int, error) {
	var out []int
	for _, f := range strings.Fields(h) {
		rs, ns, ok := strings.Cut(f, "x")
		r, err1 := strconv.Atoi(rs)
		n, err2 := strconv.Atoi(ns)
		if !ok || err1 != nil || err2 != nil || r < 0 || n < 0 || n > 1<<20 {
			return nil, fmt.Errorf("histogram entry %q is not RECORDSxCOUNT", f)
		}
		for range n {
			out = append(out, r)
		}
	}
	return out, nil
}
