package explain

import (
	"path/filepath"
	"strconv"
	"testing"

	"github.com/kseg/kseg/internal/whatifdata"
)

// On the real producer's logs of the what-if validation data (Kafka 4.4.0,
// known settings, a machine calm and loaded), every batch.size and
// linger.ms interval contains the true value or explain says nothing.
func TestExplainWhatifData(t *testing.T) {
	for _, dataset := range []string{"whatif", "whatif-busy", "whatif-long", "whatif-heldout", "whatif-heldout2", "whatif-heldout3"} {
		t.Run(dataset, func(t *testing.T) { explainWhatifData(t, dataset) })
	}
}

func explainWhatifData(t *testing.T, dataset string) {
	d, err := whatifdata.LoadDir(filepath.Join("..", "..", "testdata", dataset))
	if err != nil {
		t.Skipf("no what-if data: %v", err)
	}
	logs, intervals := 0, 0
	// per setting: intervals given, intervals holding the truth, producers
	// left without one ("not enough evidence")
	given, hold, none := map[string]int{}, map[string]int{}, map[string]int{}
	for _, r := range d.Runs {
		if r.Logs == "" {
			continue
		}
		g, _ := d.Group(r.Group)
		set, _ := g.Setting(r.Setting)
		parts, err := d.ExtractPartitions(r, t.TempDir())
		if err != nil {
			t.Fatal(err)
		}
		res, err := Run(parts)
		if err != nil {
			t.Fatal(err)
		}
		logs++
		name := r.Group + "/" + r.Condition + "/" + r.Setting + "/" + strconv.Itoa(r.Run)
		for _, p := range res.Producers {
			for _, c := range []struct {
				key string
				iv  *Interval
			}{{"batch.size", p.Settings.BatchSize}, {"linger.ms", p.Settings.LingerMs}} {
				if c.iv == nil {
					none[c.key]++
					continue
				}
				intervals++
				given[c.key]++
				want, err := strconv.ParseInt(set.Props[c.key], 10, 64)
				if err != nil {
					t.Fatalf("%s: %s=%q", name, c.key, set.Props[c.key])
				}
				if want >= c.iv.Min && (c.iv.Max < 0 || want <= c.iv.Max) {
					hold[c.key]++
					continue
				}
				t.Errorf("%s pid %d: %s [%d, %d] misses %d (%s)", name, p.ProducerID, c.key, c.iv.Min, c.iv.Max, want, c.iv.Evidence)
			}
		}
	}
	if logs == 0 {
		t.Skip("the what-if data holds no logs")
	}
	t.Logf("%d logs, %d intervals", logs, intervals)
	for _, k := range []string{"batch.size", "linger.ms"} {
		t.Logf("%s: %d intervals, %d contain the truth, %d not enough evidence", k, given[k], hold[k], none[k])
	}
}
