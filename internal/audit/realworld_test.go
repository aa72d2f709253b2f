package audit

import (
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"testing"

	"github.com/kseg/kseg/internal/realworld"
)

// logDirs lists every directory under root that holds a .log file.
func logDirs(t testing.TB, root string) []string {
	t.Helper()
	seen := map[string]bool{}
	err := filepath.WalkDir(root, func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() && filepath.Ext(path) == ".log" {
			seen[filepath.Dir(path)] = true
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for d := range seen {
		out = append(out, d)
	}
	sort.Strings(out)
	return out
}

// TestRealworldNoFalseFindings audits every partition of the real-Kafka
// corpus: nothing at warning or above, and the producers and final
// sequences the corpus's provenance notes list.
func TestRealworldNoFalseFindings(t *testing.T) {
	root := filepath.Join(realworld.Dir(t), "segments")
	byName := map[string]*Result{}
	for _, dir := range logDirs(t, root) {
		r := auditOne(t, Options{}, dir)
		if bad := atLeast(r, Warning); len(bad) > 0 {
			t.Errorf("%s: false findings:\n%s", dir, dumpFindings(r))
		}
		rel, _ := filepath.Rel(root, dir)
		byName[rel] = r
	}
	// The corpus's provenance notes, "Idempotent-sequence audit": producer id -> final lastSeq.
	known := map[string]map[int64]int32{
		"rjmfernandes__flink-on-prem/data/customers_keyed-0":                                                    {33: 10407, 37: 17073},
		"rjmfernandes__flink-on-prem/data/loyalty_levels-0":                                                     {43: 17203},
		"rjmfernandes__flink-on-prem/data/_confluent-controlcenter-7-6-0-1-MonitoringVerifierStore-changelog-0": {3: 25, 21: 3177},
		"rjmfernandes__flink-on-prem/data/promotions-0":                                                         {45: 2, 46: 25},
		"macsakini__KafkaCluster/kafka/data/tenitems-0":                                                         {2: 3, 3: 3, 4: 0},
		"Pda-Final-Project__backend/data/kafka/order-topic-0":                                                   {0: 0, 1000: 0},
	}
	for rel, want := range known {
		r := byName[rel]
		if r == nil {
			t.Errorf("%s: not audited", rel)
			continue
		}
		got := map[int64]int32{}
		for _, p := range r.Producers {
			got[p.ID] = p.LastSequence
		}
		if len(got) != len(want) || r.Summary.Producers != len(want) {
			t.Errorf("%s: producers %v, want %v", rel, got, want)
		}
		for id, seq := range want {
			if got[id] != seq {
				t.Errorf("%s: producer %d last sequence %d, want %d", rel, id, got[id], seq)
			}
		}
	}
	if r := byName["rjmfernandes__flink-on-prem/data/_confluent-monitoring-0"]; r == nil || r.Summary.Producers != 5 {
		t.Errorf("_confluent-monitoring-0: want 5 producers, got %+v", r)
	}
	// The compacted __consumer_offsets partitions are detected as such and
	// their offset gaps are info.
	for _, rel := range []string{"DonaldY__kafka-2.7.1/kafka-logs/__consumer_offsets-39", "DonaldY__kafka-2.7.1/kafka-logs/__consumer_offsets-28"} {
		r := byName[rel]
		if r == nil || !r.Summary.Compacted || len(findings(r, OffsetGap)) == 0 {
			t.Errorf("%s: want a compacted partition with offset gaps (info), got %+v", rel, r)
		}
	}
	// Batch counts from the corpus's records-per-batch table.
	for rel, n := range map[string]int64{
		"rjmfernandes__flink-on-prem/data/customers_keyed-0":                            7805,
		"dipendrasaini__kafka-learnning-series/tmp/kafka-logs/invoice-0":                525,
		"Pda-Final-Project__backend/data/kafka/__cluster_metadata-0":                    50569,
		"xpxwo100__bullShit/tmp/kafka-logs/TEST-TOPIC-0":                                21211,
		"rjmfernandes__flink-on-prem/data/_confluent-monitoring-0":                      1951,
		"DonaldY__kafka-2.7.1/kafka-logs/__consumer_offsets-39":                         4,
		"macsakini__KafkaCluster/kafka/data/test-0":                                     109,
		"rjmfernandes__flink-on-prem/data/orders-0":                                     17194,
		"Jeong-Rae__KafkaDemo/commit-510a824d/kraft-combined-logs/__cluster_metadata-0": 3068,
	} {
		if r := byName[rel]; r == nil || r.Summary.Batches != n {
			t.Errorf("%s: batches %v, want %d", rel, r, n)
		}
	}
}

var (
	reProducer = regexp.MustCompile(`producerId: (-?\d+)`)
	reMarker   = regexp.MustCompile(`endTxnMarker: (COMMIT|ABORT)`)
)

// TestOracleFixtures audits the broker-written oracle fixtures: no
// findings at warning or above, and producer and transaction counts equal
// to those in kafka-dump-log's golden output.
func TestOracleFixtures(t *testing.T) {
	root := oracleDir(t, "")
	golden := filepath.Join(root, "golden")
	n := 0
	for _, dir := range logDirs(t, root) {
		if rel, _ := filepath.Rel(root, dir); len(rel) >= 6 && rel[:6] == "golden" {
			continue
		}
		rel, _ := filepath.Rel(root, dir)
		n++
		t.Run(rel, func(t *testing.T) {
			r := auditOne(t, Options{}, dir)
			if bad := atLeast(r, Warning); len(bad) > 0 {
				t.Errorf("false findings:\n%s", dumpFindings(r))
			}
			logs, _ := filepath.Glob(filepath.Join(golden, rel, "*.log.deep.stdout"))
			if len(logs) == 0 {
				t.Fatalf("committed golden missing: no %s/*.log.deep.stdout", filepath.Join(golden, rel))
			}
			pids := map[string]bool{}
			markers := map[string]int64{}
			for _, g := range logs {
				b, err := os.ReadFile(g)
				if err != nil {
					t.Fatal(err)
				}
				for _, m := range reProducer.FindAllSubmatch(b, -1) {
					if id, _ := strconv.ParseInt(string(m[1]), 10, 64); id >= 0 {
						pids[string(m[1])] = true
					}
				}
				for _, m := range reMarker.FindAllSubmatch(b, -1) {
					markers[string(m[1])]++
				}
			}
			s := r.Summary
			if s.Producers != len(pids) || s.Committed != markers["COMMIT"] || s.Aborted != markers["ABORT"] {
				t.Errorf("producers %d committed %d aborted %d; golden: producers %d committed %d aborted %d",
					s.Producers, s.Committed, s.Aborted, len(pids), markers["COMMIT"], markers["ABORT"])
			}
		})
	}
	if n == 0 {
		t.Fatal("no partitions found under", root)
	}
}
