package whatif

import (
	"bufio"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kseg/kseg/producer"
	"github.com/kseg/kseg/segment"
)

// oracleCase is one log of testdata/explain-oracle: the Java producer of
// Kafka 4.4.0 with known settings and its own clock's timestamps.
type oracleCase struct {
	name string
	was  []producer.Property
	sync bool
}

func oracleCases(t *testing.T) []oracleCase {
	t.Helper()
	f, err := os.Open("../../testdata/explain-oracle/cases.tsv")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []oracleCase
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		if strings.HasPrefix(line, "#") || line == "" {
			continue
		}
		c := strings.Split(line, "\t")
		// case, partitions, keyed, batch.size, linger.ms, compression, sync, interval, records, value size, idempotence
		out = append(out, oracleCase{name: c[0], sync: c[6] == "true", was: []producer.Property{
			{Key: "batch.size", Value: c[3]}, {Key: "linger.ms", Value: c[4]},
			{Key: "compression.type", Value: c[5]}, {Key: "enable.idempotence", Value: c[10]},
		}})
	}
	return out
}

// TestReplaySelfCheckOracle: on the real producer's logs with known
// settings, the replay under those settings with the sender fitted to the
// log reproduces the log's batch count within max(1 batch, 5%).
func TestReplaySelfCheckOracle(t *testing.T) {
	cases := oracleCases(t)
	ok := 0
	for _, c := range cases {
		parts, err := segment.Partitions([]string{filepath.Join("../../testdata/explain-oracle", c.name)})
		if err != nil {
			t.Fatal(err)
		}
		res, _, err := Run(parts, Options{Was: c.was, Set: []producer.Property{{Key: "linger.ms", Value: "20"}}, Runs: 51, Seed: 1})
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		r := res[0]
		var lb int64
		for _, b := range r.LogBatches {
			lb += b
		}
		q := r.Replay.TotalBatches()
		tol := max(1, lb/20)
		d := int64(q.P50) - lb
		in := d <= tol && -d <= tol
		if in {
			ok++
		}
		t.Logf("%-24s log %4d batches, replay p50 %4d (p5-p95 %d-%d) %v; sender %+v fit error %.3f",
			c.name, lb, q.P50, q.P5, q.P95, in, r.Fit.Sender, r.Fit.BatchError)
	}
	t.Logf("%d of %d within max(1, 5%%)", ok, len(cases))
	if ok*100 < 90*len(cases) {
		t.Errorf("only %d of %d logs replay within max(1 batch, 5%%) of their own batch count", ok, len(cases))
	}
}
