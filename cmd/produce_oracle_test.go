package cmd

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/spf13/pflag"

	"github.com/kseg/kseg/producer"
)

// TestProduceMatchesRealBroker replays the size-cut cases of
// oracle/regen/producer-compare.sh: testdata/producer-oracle/<case>/ holds the
// partition directories a real Kafka broker wrote for the Java producer
// (.log, .index, .timeindex, .snapshot) and case.txt the kseg produce
// arguments with the same settings, record timestamps, producer id/epoch
// and leader epoch. The reference producer must write the same bytes: in
// the ideal model (--ideal: a burst is appended before the sender first
// runs), which is what the real producer did in these runs; the timing
// model reproduces the one-partition cases too, but for the keyed ones it
// predicts a range in which the real layout is one point.
func TestProduceMatchesRealBroker(t *testing.T) {
	wd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	root := filepath.Join(filepath.Dir(wd), "testdata", "producer-oracle") // tests run in cmd/
	cases, err := filepath.Glob(filepath.Join(root, "*", "case.txt"))
	if err != nil {
		t.Fatal(err)
	}
	if len(cases) == 0 {
		t.Fatal("committed fixtures missing: no testdata/producer-oracle/*/case.txt")
	}
	for _, caseFile := range cases {
		dir := filepath.Dir(caseFile)
		t.Run(filepath.Base(dir), func(t *testing.T) {
			raw, err := os.ReadFile(caseFile)
			if err != nil {
				t.Fatal(err)
			}
			args := append(strings.Fields(string(raw)), "--ideal")
			var f produceFlags
			fs := pflag.NewFlagSet("produce", pflag.ContinueOnError)
			addProduceFlags(fs, &f)
			if err := fs.Parse(args); err != nil {
				t.Fatalf("case.txt: %v", err)
			}
			cfg, err := f.config(fs)
			if err != nil {
				t.Fatalf("case.txt: %v", err)
			}
			out := filepath.Join(t.TempDir(), "out")
			if _, err := producer.Run(cfg, out, false); err != nil {
				t.Fatal(err)
			}
			parts, err := filepath.Glob(filepath.Join(dir, cfg.Topic+"-*"))
			if err != nil {
				t.Fatal(err)
			}
			if len(parts) != cfg.Partitions {
				t.Fatalf("%d real partition dirs, case has %d partitions", len(parts), cfg.Partitions)
			}
			compared := 0
			for _, pd := range parts {
				ours := filepath.Join(out, filepath.Base(pd))
				for _, ext := range []string{".log", ".index", ".timeindex", ".snapshot"} {
					real, _ := filepath.Glob(filepath.Join(pd, "*"+ext))
					mine, _ := filepath.Glob(filepath.Join(ours, "*"+ext))
					if len(real) != len(mine) {
						t.Errorf("%s: real broker wrote %d %s files, kseg %d", filepath.Base(pd), len(real), ext, len(mine))
					}
					for _, rf := range real {
						want, err := os.ReadFile(rf)
						if err != nil {
							t.Fatal(err)
						}
						got, err := os.ReadFile(filepath.Join(ours, filepath.Base(rf)))
						if err != nil {
							t.Errorf("%s: %v", filepath.Base(pd), err)
							continue
						}
						compared++
						if !bytes.Equal(got, want) {
							t.Errorf("%s/%s: kseg wrote %d bytes, the real broker %d; first difference at byte %d",
								filepath.Base(pd), filepath.Base(rf), len(got), len(want), firstDiff(got, want))
						}
					}
				}
			}
			if compared == 0 {
				t.Fatal("no real files to compare")
			}
		})
	}
}

func firstDiff(a, b []byte) int {
	n := min(len(a), len(b))
	for i := 0; i < n; i++ {
		if a[i] != b[i] {
			return i
		}
	}
	return n
}
