package explain

import (
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/kseg/kseg/batch"
	"github.com/kseg/kseg/segment"
)

// producerBatch is one batch of a test log: its producer, first record's
// time and record count (a record every ms).
type producerBatch struct {
	pid     int64
	ts      int64
	records int
}

// writeProducers writes the batches as partition dir/name-0 and returns it.
func writeProducers(t testing.TB, dir, name string, bs []producerBatch) []segment.Partition {
	t.Helper()
	pd := filepath.Join(dir, name+"-0")
	if err := os.MkdirAll(pd, 0o755); err != nil {
		t.Fatal(err)
	}
	var out []byte
	var off int64
	seq := map[int64]int32{}
	b := batch.NewBuilder(batch.CodecNone)
	for _, x := range bs {
		b.Reset(batch.CodecNone)
		for r := range x.records {
			b.Append(x.ts+int64(r), nil, make([]byte, 100), nil)
		}
		var err error
		out, err = b.Build(out, batch.Header{BaseOffset: off, ProducerID: x.pid, BaseSequence: seq[x.pid]}, nil)
		if err != nil {
			t.Fatal(err)
		}
		off += int64(x.records)
		seq[x.pid] += int32(x.records)
	}
	if err := os.WriteFile(filepath.Join(pd, "00000000000000000000.log"), out, 0o644); err != nil {
		t.Fatal(err)
	}
	parts, err := segment.Partitions([]string{pd})
	if err != nil {
		t.Fatal(err)
	}
	return parts
}

// The producer model reads a producer's records again from where its
// batches are (readSpan), not the whole partition: a producer explained
// beside another that wrote between its batches gets the settings it gets
// alone.
func TestExplainProducerSpans(t *testing.T) {
	dir := t.TempDir()
	var mine, both []producerBatch
	for j := range 60 {
		x := producerBatch{pid: 7, ts: 1_700_000_000_000 + int64(j)*12, records: 6}
		mine = append(mine, x)
		both = append(both, x)
		if j%10 == 9 {
			// another producer's run of batches between, more bytes than
			// spanGap: a new span
			for k := range 5 {
				both = append(both, producerBatch{pid: 8, ts: x.ts + 6 + int64(k), records: 600})
			}
		}
	}
	alone, err := Run(writeProducers(t, dir, "alone", mine))
	if err != nil {
		t.Fatal(err)
	}
	mixed, err := Run(writeProducers(t, dir, "mixed", both))
	if err != nil {
		t.Fatal(err)
	}
	var a, m *Producer
	for _, p := range alone.Producers {
		if p.ProducerID == 7 {
			a = p
		}
	}
	for _, p := range mixed.Producers {
		if p.ProducerID == 7 {
			m = p
		}
	}
	if a == nil || m == nil || a.Settings.LingerMs == nil {
		t.Fatalf("producer 7: alone %v, mixed %v (linger.ms must be modelled)", a, m)
	}
	if len(m.spans) != 6 || len(a.spans) != 1 {
		t.Errorf("producer 7: %d spans alone (want 1), %d beside producer 8 (want 6: its six runs of ten batches)", len(a.spans), len(m.spans))
	}
	if !reflect.DeepEqual(a.Settings.LingerMs, m.Settings.LingerMs) || !reflect.DeepEqual(a.Settings.Senders, m.Settings.Senders) {
		t.Errorf("linger.ms alone %+v, beside another producer %+v; senders %+v and %+v",
			a.Settings.LingerMs, m.Settings.LingerMs, a.Settings.Senders, m.Settings.Senders)
	}
}

// Past maxModelled producers, those with the fewest batches are not fitted
// the producer model, and say so; the others are.
func TestExplainModelsTheLargestProducers(t *testing.T) {
	var bs []producerBatch
	n := maxModelled + 3
	for pid := range int64(n) {
		batches := 3
		if pid < 3 {
			batches = 2
		}
		for j := range batches {
			bs = append(bs, producerBatch{pid: 100 + pid, ts: 1_700_000_000_000 + pid*100 + int64(j)*10, records: 3})
		}
	}
	res, err := Run(writeProducers(t, t.TempDir(), "many", bs))
	if err != nil {
		t.Fatal(err)
	}
	skipped := 0
	for _, p := range res.Producers {
		note := strings.Join(p.Settings.Notes, "\n")
		if strings.Contains(note, "not to this one") {
			skipped++
			if p.ProducerID >= 103 {
				t.Errorf("producer %d (3 batches) was not modelled", p.ProducerID)
			}
		}
	}
	if skipped != 3 {
		t.Errorf("%d producers not modelled, want the 3 of %d with the fewest batches", skipped, n)
	}
}

// BenchmarkExplainManyProducers: a log written by a new producer per
// request (20,000 producers of one batch, then 20,000 of two batches of
// three records). The time per batch should stay about that of a log of
// one producer (BenchmarkExplainPartitions): before the one-batch rule, the
// model cap and the producer spans, explain fitted the model to each
// producer and read the whole partition again for each.
func BenchmarkExplainManyProducers(b *testing.B) {
	for _, per := range []int{1, 2} {
		b.Run(fmt.Sprintf("batches-per-producer=%d", per), func(b *testing.B) {
			var bs []producerBatch
			for pid := range int64(20000) {
				for j := range per {
					bs = append(bs, producerBatch{pid: pid + 1, ts: 1_700_000_000_000 + pid*3 + int64(j), records: 3})
				}
			}
			parts := writeProducers(b, b.TempDir(), "many", bs)
			b.ResetTimer()
			for range b.N {
				if _, err := Run(parts); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(bs)), "ns/batch")
		})
	}
}
