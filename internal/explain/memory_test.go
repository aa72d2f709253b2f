package explain

import (
	"runtime"
	"testing"

	"github.com/kseg/kseg/producer"
)

// BenchmarkLargeRecords explains a log of 256 one-record batches of
// 256 KiB values (64 MiB) and reports the heap the result holds
// (retained-B): explain keeps a few words per batch, not the records, so
// this stays in kilobytes while the log grows (it held every batch's
// first key and value, 64 MiB here, before).
func BenchmarkLargeRecords(b *testing.B) {
	cfg := producer.DefaultConfig()
	cfg.Records, cfg.ValueSize, cfg.BatchSize = 256, 256<<10, 16384
	cfg.Timing = producer.Timing{}
	parts := writeModelLog(b, cfg)
	var retained uint64
	for b.Loop() {
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		res, err := Run(parts)
		if err != nil {
			b.Fatal(err)
		}
		runtime.GC()
		runtime.ReadMemStats(&after)
		if len(res.Batches) != 256 {
			b.Fatalf("%d batches, want 256", len(res.Batches))
		}
		retained = after.HeapAlloc - min(after.HeapAlloc, before.HeapAlloc)
		runtime.KeepAlive(res)
	}
	b.ReportMetric(float64(retained), "retained-B")
}
