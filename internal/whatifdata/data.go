// Package whatifdata holds the what-if validation data of testdata/whatif/: groups of real
// Kafka producer runs (Kafka 4.4.0, oracle/regen/whatif-data.sh) where the arrival schedule is
// fixed and only the producer settings change, run on a calm and on a loaded machine. It loads
// the groups and the runs, extracts a run's recorded logs for a test, generates the arrival
// schedules and the value file the runs were made from, and scores what-if predictions against
// the real runs (Score).
package whatifdata

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/klauspost/compress/zstd"

	"github.com/kseg/kseg/segment"
)

// Conditions of the machine during a run.
const (
	Calm   = "calm"
	Loaded = "loaded"
)

// Arrivals describes a group's arrival process; Schedule turns it into send times.
type Arrivals struct {
	// Process is "fixed" (a send every IntervalUs), "poisson" (exponential gaps of mean
	// IntervalUs) or "burst" (Burst records at once, then GapMs idle, repeated).
	Process    string  `json:"process"`
	IntervalUs float64 `json:"interval_us,omitempty"`
	Burst      int     `json:"burst,omitempty"`
	GapMs      float64 `json:"gap_ms,omitempty"`
	Seed       uint64  `json:"seed"`
}

// Values describes the value file: record i gets line i mod Lines.
type Values struct {
	File     string `json:"file"`
	Lines    int    `json:"lines"`
	MinBytes int    `json:"min_bytes"`
	MaxBytes int    `json:"max_bytes"`
	Seed     uint64 `json:"seed"` // ValueLines(Lines, MinBytes, MaxBytes, Seed) wrote the file
}

// Setting is one producer configuration, as Kafka producer properties (every setting of a group
// lists the same keys).
type Setting struct {
	Name  string            `json:"name"`
	Props map[string]string `json:"props"`
}

// Group is a fixed arrival schedule and the settings it was run under.
type Group struct {
	Name       string    `json:"name"`
	Arrivals   Arrivals  `json:"arrivals"`
	Records    int       `json:"records"`
	Partitions int       `json:"partitions"`
	Keyed      bool      `json:"keyed"`
	Keys       int       `json:"keys"` // record i has key "key-" + (i mod Keys); 0 when unkeyed
	Values     Values    `json:"values"`
	Schedule   string    `json:"schedule"` // the schedule file, relative to the data directory
	Settings   []Setting `json:"settings"`
}

// TopicTotal reports whether the group is scored by the topic's total batch count rather than
// per partition: an unkeyed topic over several partitions, where the per-partition split is
// the sticky partitioner's random choice.
func (g Group) TopicTotal() bool { return !g.Keyed && g.Partitions > 1 }

// Setting returns the named setting.
func (g Group) Setting(name string) (Setting, bool) {
	for _, s := range g.Settings {
		if s.Name == name {
			return s, true
		}
	}
	return Setting{}, false
}

// Load is a run's machine load: /proc/loadavg's three averages and /proc/pressure/cpu's
// "some avg10" (percent of the last 10 s with a task waiting for a CPU; -1 when unavailable),
// before and after the run.
type Load struct {
	Before   [3]float64 `json:"before"`
	After    [3]float64 `json:"after"`
	PSI10Pre float64    `json:"psi_some_avg10_before"`
	PSI10Pst float64    `json:"psi_some_avg10_after"`
}

// PartitionCount is one partition of a real run as `kseg count` read it.
type PartitionCount struct {
	Partition int    `json:"partition"`
	Batches   int    `json:"batches"`
	Records   int    `json:"records"`
	Histogram string `json:"histogram"`
}

// Run is one real run: one fresh producer JVM, one group's schedule under one setting.
type Run struct {
	Group      string           `json:"group"`
	Setting    string           `json:"setting"`
	Condition  string           `json:"condition"`
	Run        int              `json:"run"`
	Topic      string           `json:"topic"`
	Load       Load             `json:"loadavg"`
	LateP99Us  float64          `json:"late_p99_us"`   // the application thread behind its schedule, 99th percentile
	LateOver1  int              `json:"late_over_1ms"` // sends that started more than 1 ms late
	SpanMs     float64          `json:"span_ms"`       // first send to last send returned
	Partitions []PartitionCount `json:"partitions"`
	Batches    int              `json:"batches"`
	Records    int              `json:"records"`
	Logs       string           `json:"logs,omitempty"` // the run's recorded logs, relative to the data directory
}

// Data is the whole data set.
type Data struct {
	Dir    string
	Groups []Group
	Runs   []Run
}

// Group returns the named group.
func (d *Data) Group(name string) (Group, bool) {
	for _, g := range d.Groups {
		if g.Name == name {
			return g, true
		}
	}
	return Group{}, false
}

// RunsAt returns the runs of one group, setting and condition, by run number.
func (d *Data) RunsAt(group, setting, condition string) []Run {
	var out []Run
	for _, r := range d.Runs {
		if r.Group == group && r.Setting == setting && r.Condition == condition {
			out = append(out, r)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Run < out[j].Run })
	return out
}

// LoadDir reads groups.json and runs.ndjson of a data directory (testdata/whatif).
func LoadDir(dir string) (*Data, error) {
	d := &Data{Dir: dir}
	b, err := os.ReadFile(filepath.Join(dir, "groups.json"))
	if err != nil {
		return nil, err
	}
	if err := json.Unmarshal(b, &d.Groups); err != nil {
		return nil, fmt.Errorf("%s: %w", filepath.Join(dir, "groups.json"), err)
	}
	f, err := os.Open(filepath.Join(dir, "runs.ndjson"))
	if err != nil {
		return nil, err
	}
	defer f.Close()
	d.Runs, err = ReadRuns(f)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", filepath.Join(dir, "runs.ndjson"), err)
	}
	return d, nil
}

// ReadRuns reads runs, one JSON object a line.
func ReadRuns(r io.Reader) ([]Run, error) {
	var out []Run
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		if line == "" {
			continue
		}
		var run Run
		if err := json.Unmarshal([]byte(line), &run); err != nil {
			return nil, fmt.Errorf("line %d: %w", n, err)
		}
		out = append(out, run)
	}
	return out, sc.Err()
}

// LogDir is where a run's logs are kept, relative to the data directory:
// logs/<group>/<condition>/<setting>/run-<k>.
func LogDir(group, condition, setting string, run int) string {
	return filepath.Join("logs", group, condition, setting, fmt.Sprintf("run-%d", run))
}

// Extract writes the recorded logs of a run (a Run with Logs set) into dst as Kafka partition
// directories, <topic>-<p>/00000000000000000000.log, decompressing the .log.zst files, and
// returns the partition directories in partition order.
func (d *Data) Extract(r Run, dst string) ([]string, error) {
	if r.Logs == "" {
		return nil, fmt.Errorf("run %s/%s/%s/%d has no recorded logs", r.Group, r.Condition, r.Setting, r.Run)
	}
	src := filepath.Join(d.Dir, r.Logs)
	ents, err := os.ReadDir(src)
	if err != nil {
		return nil, err
	}
	dec, err := zstd.NewReader(nil, zstd.WithDecoderConcurrency(1))
	if err != nil {
		return nil, err
	}
	defer dec.Close()
	var dirs []string
	for _, e := range ents {
		if !e.IsDir() {
			continue
		}
		files, err := os.ReadDir(filepath.Join(src, e.Name()))
		if err != nil {
			return nil, err
		}
		out := filepath.Join(dst, e.Name())
		if err := os.MkdirAll(out, 0o755); err != nil {
			return nil, err
		}
		for _, f := range files {
			name, ok := strings.CutSuffix(f.Name(), ".zst")
			if !ok {
				continue
			}
			if err := decompressFile(dec, filepath.Join(src, e.Name(), f.Name()), filepath.Join(out, name)); err != nil {
				return nil, err
			}
		}
		dirs = append(dirs, out)
	}
	sort.Slice(dirs, func(i, j int) bool { return partitionOf(dirs[i]) < partitionOf(dirs[j]) })
	return dirs, nil
}

// ExtractPartitions is Extract, its partition directories opened as the
// segment partitions a replay or a count reads.
func (d *Data) ExtractPartitions(r Run, dst string) ([]segment.Partition, error) {
	dirs, err := d.Extract(r, dst)
	if err != nil {
		return nil, err
	}
	return segment.Partitions(dirs)
}

func partitionOf(dir string) int {
	base := filepath.Base(dir)
	var p int
	if i := strings.LastIndexByte(base, '-'); i >= 0 {
		fmt.Sscan(base[i+1:], &p)
	}
	return p
}

func decompressFile(dec *zstd.Decoder, src, dst string) error {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	if err := dec.Reset(in); err != nil {
		return fmt.Errorf("%s: %w", src, err)
	}
	out, err := os.Create(dst)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, dec); err != nil {
		out.Close()
		return fmt.Errorf("%s: %w", src, err)
	}
	return out.Close()
}

// CompressFile writes src zstd-compressed to dst (the recorded logs; used by the generator).
func CompressFile(src, dst string) error {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.Create(dst)
	if err != nil {
		return err
	}
	enc, err := zstd.NewWriter(out, zstd.WithEncoderLevel(zstd.SpeedBestCompression), zstd.WithEncoderConcurrency(1), zstd.WithWindowSize(8<<20))
	if err != nil {
		out.Close()
		return err
	}
	if _, err := io.Copy(enc, in); err != nil {
		enc.Close()
		out.Close()
		return err
	}
	if err := enc.Close(); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}
