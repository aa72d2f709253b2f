package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"github.com/kseg/kseg/internal/whatifdata"
)

func plan(out, work string) error {
	gs := groups()
	for _, d := range []string{filepath.Join(out, "schedules"), filepath.Join(work, "props")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			return err
		}
	}
	lines := whatifdata.ValueLines(values.Lines, values.MinBytes, values.MaxBytes, values.Seed)
	if err := os.WriteFile(filepath.Join(out, values.File), []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
		return err
	}
	w := bufio.NewWriter(os.Stdout)
	defer w.Flush()
	for i := range gs {
		g := &gs[i]
		g.Values = values
		g.Schedule = "schedules/" + g.Name + ".txt"
		at, err := whatifdata.Schedule(*g)
		if err != nil {
			return err
		}
		if err := os.WriteFile(filepath.Join(out, g.Schedule), []byte(whatifdata.FormatSchedule(at)), 0o644); err != nil {
			return err
		}
		for _, s := range g.Settings {
			pf := filepath.Join(work, "props", g.Name+"."+s.Name+".properties")
			if err := os.WriteFile(pf, []byte(propsText(s.Props)), 0o644); err != nil {
				return err
			}
			fmt.Fprintf(w, "%s\t%s\t%d\t%d\t%s\t%s\t%s\n", g.Name, s.Name, g.Partitions, g.Keys,
				filepath.Join(out, g.Schedule), filepath.Join(out, values.File), pf)
		}
	}
	b, err := json.MarshalIndent(gs, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(out, "groups.json"), append(b, '\n'), 0o644)
}

func propsText(p map[string]string) string {
	keys := make([]string, 0, len(p))
	for k := range p {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var b strings.Builder
	for _, k := range keys {
		fmt.Fprintf(&b, "%s=%s\n", k, p[k])
	}
	return b.String()
}

// countLine is what kseg count --json prints per partition (the fields used here).
type countLine struct {
	Topic     string `json:"topic"`
	Partition int    `json:"partition"`
	Dir       string `json:"dir"`
	Batches   int    `json:"batches"`
	Records   int    `json:"records"`
	Histogram string `json:"histogram"`
}

type trace struct {
	Records   int     `json:"records"`
	SpanNs    float64 `json:"span_ns"`
	LateP99Ns float64 `json:"late_ns_p99"`
	LateOver1 int     `json:"late_over_1ms"`
}

// assemble reads WORK/index.tsv (group setting condition run topic), WORK/runs/<topic>.load and
// .trace.json, and WORK/count.ndjson, and writes OUT/runs.ndjson and OUT/logs/ (the logs of the
// middle runs of each setting: logRuns).
func assemble(work, out string, logs int) error {
	counts := map[string][]countLine{}
	f, err := os.Open(filepath.Join(work, "count.ndjson"))
	if err != nil {
		return err
	}
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64<<10), 4<<20)
	for sc.Scan() {
		var c countLine
		if err := json.Unmarshal(sc.Bytes(), &c); err != nil {
			f.Close()
			return fmt.Errorf("count.ndjson: %w", err)
		}
		counts[c.Topic] = append(counts[c.Topic], c)
	}
	f.Close()
	if err := sc.Err(); err != nil {
		return err
	}
	idx, err := os.ReadFile(filepath.Join(work, "index.tsv"))
	if err != nil {
		return err
	}
	if err := os.RemoveAll(filepath.Join(out, "logs")); err != nil {
		return err
	}
	gs := map[string]whatifdata.Group{}
	for _, g := range groups() {
		gs[g.Name] = g
	}
	lines := strings.Split(strings.TrimSpace(string(idx)), "\n")
	n := 0
	for _, line := range lines {
		if fs := strings.Split(line, "\t"); len(fs) == 5 {
			k, _ := strconv.Atoi(fs[3])
			n = max(n, k+1)
		}
	}
	lo, hi := logRuns(n, logs)
	var runs []whatifdata.Run
	for _, line := range lines {
		fs := strings.Split(line, "\t")
		if len(fs) != 5 {
			return fmt.Errorf("index.tsv: bad line %q", line)
		}
		k, _ := strconv.Atoi(fs[3])
		r := whatifdata.Run{Group: fs[0], Setting: fs[1], Condition: fs[2], Run: k, Topic: fs[4]}
		g, ok := gs[r.Group]
		if !ok {
			return fmt.Errorf("index.tsv: unknown group %s", r.Group)
		}
		if r.Load, err = readLoad(filepath.Join(work, "runs", r.Topic+".load")); err != nil {
			return err
		}
		var t trace
		b, err := os.ReadFile(filepath.Join(work, "runs", r.Topic+".trace.json"))
		if err != nil {
			return err
		}
		if err := json.Unmarshal(b, &t); err != nil {
			return fmt.Errorf("%s.trace.json: %w", r.Topic, err)
		}
		r.SpanMs = round(t.SpanNs/1e6, 1)
		r.LateP99Us = round(t.LateP99Ns/1e3, 0)
		r.LateOver1 = t.LateOver1
		cs := counts[r.Topic]
		if len(cs) != g.Partitions {
			return fmt.Errorf("%s: kseg count read %d partitions, the group has %d", r.Topic, len(cs), g.Partitions)
		}
		sort.Slice(cs, func(i, j int) bool { return cs[i].Partition < cs[j].Partition })
		for _, c := range cs {
			r.Partitions = append(r.Partitions, whatifdata.PartitionCount{Partition: c.Partition, Batches: c.Batches, Records: c.Records, Histogram: c.Histogram})
			r.Batches += c.Batches
			r.Records += c.Records
		}
		if r.Records != g.Records {
			return fmt.Errorf("%s: %d records in the log, the group sends %d", r.Topic, r.Records, g.Records)
		}
		if k >= lo && k < hi {
			r.Logs = whatifdata.LogDir(r.Group, r.Condition, r.Setting, k)
			for _, c := range cs {
				dst := filepath.Join(out, r.Logs, fmt.Sprintf("%s-%d", r.Topic, c.Partition))
				if err := os.MkdirAll(dst, 0o755); err != nil {
					return err
				}
				segs, err := filepath.Glob(filepath.Join(c.Dir, "*.log"))
				if err != nil {
					return err
				}
				for _, s := range segs {
					if err := whatifdata.CompressFile(s, filepath.Join(dst, filepath.Base(s)+".zst")); err != nil {
						return err
					}
				}
			}
		}
		runs = append(runs, r)
	}
	sort.SliceStable(runs, func(i, j int) bool {
		a, b := runs[i], runs[j]
		if a.Group != b.Group {
			return order(gs, a.Group) < order(gs, b.Group)
		}
		if a.Condition != b.Condition {
			return a.Condition < b.Condition
		}
		if a.Setting != b.Setting {
			return a.Setting < b.Setting
		}
		return a.Run < b.Run
	})
	var sb strings.Builder
	for _, r := range runs {
		b, err := json.Marshal(r)
		if err != nil {
			return err
		}
		sb.Write(b)
		sb.WriteByte('\n')
	}
	return os.WriteFile(filepath.Join(out, "runs.ndjson"), []byte(sb.String()), 0o644)
}

// logRuns are the runs [lo, hi) of n a setting whose logs are kept: the middle ones. Runs go
// round-robin over the pass, and run 0, the first after the broker starts, sat at the slow end of
// its setting's runs in all three passes of the long set (mean rank 0.25-0.28 of 1), so logs of the
// first runs start a prediction from a slow run (docs/calibration.md, "Longer runs").
func logRuns(n, logs int) (lo, hi int) {
	logs = min(max(logs, 0), n)
	lo = (n - logs) / 2
	return lo, lo + logs
}

func order(gs map[string]whatifdata.Group, name string) int {
	for i, g := range groups() {
		if g.Name == name {
			return i
		}
	}
	return len(gs)
}

func round(x float64, digits int) float64 {
	p := 1.0
	for range digits {
		p *= 10
	}
	return float64(int64(x*p+0.5)) / p
}

// readLoad reads a .load file: four lines, /proc/loadavg and /proc/pressure/cpu's "some" line
// before the run, then both after it.
func readLoad(path string) (whatifdata.Load, error) {
	var l whatifdata.Load
	b, err := os.ReadFile(path)
	if err != nil {
		return l, err
	}
	ls := strings.Split(strings.TrimSpace(string(b)), "\n")
	if len(ls) != 4 {
		return l, fmt.Errorf("%s: want 4 lines, have %d", path, len(ls))
	}
	avg := func(s string, dst *[3]float64) {
		fs := strings.Fields(s)
		for i := 0; i < 3 && i < len(fs); i++ {
			dst[i], _ = strconv.ParseFloat(fs[i], 64)
		}
	}
	psi := func(s string) float64 {
		for _, f := range strings.Fields(s) {
			if v, ok := strings.CutPrefix(f, "avg10="); ok {
				x, err := strconv.ParseFloat(v, 64)
				if err == nil {
					return x
				}
			}
		}
		return -1
	}
	avg(ls[0], &l.Before)
	l.PSI10Pre = psi(ls[1])
	avg(ls[2], &l.After)
	l.PSI10Pst = psi(ls[3])
	return l, nil
}
