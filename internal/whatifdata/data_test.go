package whatifdata

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kseg/kseg/segment"
)

// dataDir is the committed data; KSEG_WHATIF_DATA points the tests at another copy (a fresh
// regeneration before it is committed).
func dataDir() string {
	if d := os.Getenv("KSEG_WHATIF_DATA"); d != "" {
		return d
	}
	return filepath.Join("..", "..", "testdata", "whatif")
}

func loadData(t *testing.T) *Data {
	t.Helper()
	d, err := LoadDir(dataDir())
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// TestDataGenerated: the schedules and the value file are what the generators write from the
// seeds in groups.json.
func TestDataGenerated(t *testing.T) {
	d := loadData(t)
	for _, g := range d.Groups {
		at, err := Schedule(g)
		if err != nil {
			t.Fatal(err)
		}
		b, err := os.ReadFile(filepath.Join(d.Dir, g.Schedule))
		if err != nil {
			t.Fatal(err)
		}
		if string(b) != FormatSchedule(at) {
			t.Errorf("%s: %s is not what Schedule generates", g.Name, g.Schedule)
		}
		v := g.Values
		b, err = os.ReadFile(filepath.Join(d.Dir, v.File))
		if err != nil {
			t.Fatal(err)
		}
		if string(b) != strings.Join(ValueLines(v.Lines, v.MinBytes, v.MaxBytes, v.Seed), "\n")+"\n" {
			t.Errorf("%s: %s is not what ValueLines generates", g.Name, v.File)
		}
	}
}

// TestDataRuns: every (group, setting, condition) has at least 8 real runs, each sent all the
// group's records to all its partitions, and each histogram adds up to its counts.
func TestDataRuns(t *testing.T) {
	d := loadData(t)
	if len(d.Groups) < 6 {
		t.Errorf("%d groups, want at least 6", len(d.Groups))
	}
	for _, g := range d.Groups {
		if len(g.Settings) < 3 {
			t.Errorf("%s: %d settings", g.Name, len(g.Settings))
		}
		for _, s := range g.Settings {
			if len(s.Props) != len(g.Settings[0].Props) {
				t.Errorf("%s/%s lists other properties than the group's first setting", g.Name, s.Name)
			}
			for _, c := range []string{Calm, Loaded} {
				runs := d.RunsAt(g.Name, s.Name, c)
				if len(runs) < 8 {
					t.Errorf("%s/%s/%s: %d runs, want at least 8", g.Name, s.Name, c, len(runs))
				}
				logged := 0
				for _, r := range runs {
					if r.Logs != "" {
						logged++
					}
					checkRun(t, g, r)
				}
				if logged < 2 {
					t.Errorf("%s/%s/%s: %d runs with logs, want 2", g.Name, s.Name, c, logged)
				}
			}
		}
	}
}

func checkRun(t *testing.T, g Group, r Run) {
	t.Helper()
	name := r.Topic
	if r.Records != g.Records || len(r.Partitions) != g.Partitions {
		t.Errorf("%s: %d records on %d partitions, want %d on %d", name, r.Records, len(r.Partitions), g.Records, g.Partitions)
	}
	batches, records := 0, 0
	for i, p := range r.Partitions {
		if p.Partition != i {
			t.Errorf("%s: partition %d at index %d", name, p.Partition, i)
		}
		h, err := segment.ParseHistogram(p.Histogram)
		if err != nil {
			t.Errorf("%s-%d: %v", name, p.Partition, err)
			continue
		}
		hb, hr := 0, 0
		for rec, n := range h {
			hb += n
			hr += rec * n
		}
		if hb != p.Batches || hr != p.Records {
			t.Errorf("%s-%d: histogram %q holds %d batches, %d records; the counts say %d, %d", name, p.Partition, p.Histogram, hb, hr, p.Batches, p.Records)
		}
		batches += p.Batches
		records += p.Records
	}
	if batches != r.Batches || records != r.Records {
		t.Errorf("%s: partitions add up to %d batches, %d records; totals say %d, %d", name, batches, records, r.Batches, r.Records)
	}
}

// TestDataLogs: the recorded logs extract to partition directories that kseg's own reader
// counts exactly as runs.ndjson says (the counts were made from the broker's files before
// compression).
func TestDataLogs(t *testing.T) {
	d := loadData(t)
	n := 0
	for _, r := range d.Runs {
		if r.Logs == "" {
			continue
		}
		if testing.Short() && n >= 6 {
			break
		}
		n++
		parts, err := d.ExtractPartitions(r, t.TempDir())
		if err != nil {
			t.Fatal(err)
		}
		stats, err := segment.CountPartitions(parts, 1, segment.CountOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if len(stats) != len(r.Partitions) {
			t.Fatalf("%s: %d partitions extracted, %d recorded", r.Logs, len(stats), len(r.Partitions))
		}
		for i, s := range stats {
			want := r.Partitions[i]
			got := segment.FormatHistogram(s.Stats.RecordsPerBatch)
			if int(s.Stats.Batches) != want.Batches || int(s.Stats.Records) != want.Records || got != want.Histogram {
				t.Errorf("%s partition %d: %d batches, %d records, %q; runs.ndjson: %d, %d, %q",
					r.Logs, want.Partition, s.Stats.Batches, s.Stats.Records, got, want.Batches, want.Records, want.Histogram)
			}
		}
	}
	if n == 0 {
		t.Fatal("no run has recorded logs")
	}
}
