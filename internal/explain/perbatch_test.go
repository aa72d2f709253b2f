package explain

import (
	"os"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/kseg/kseg/batch"
	"github.com/kseg/kseg/segment"
)

// writeSmallBatches writes a log of n one-record batches of one producer,
// 1 ms apart, and returns its partition.
func writeSmallBatches(t testing.TB, n int) []segment.Partition {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "small-0")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	b := batch.NewBuilder(batch.CodecNone)
	var out []byte
	value := []byte("0123456789")
	for i := range n {
		b.Reset(batch.CodecNone)
		b.Append(1_700_000_000_000+int64(i), nil, value, nil)
		var err error
		out, err = b.Build(out, batch.Header{BaseOffset: int64(i), ProducerID: 1, BaseSequence: int32(i)}, nil)
		if err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(dir, "00000000000000000000.log"), out, 0o644); err != nil {
		t.Fatal(err)
	}
	parts, err := segment.Partitions([]string{dir})
	if err != nil {
		t.Fatal(err)
	}
	return parts
}

// explainBytesPerBatch is the heap a Result holds per batch of a log of n
// small batches, and the peak heap Run reached per batch (sampled).
func explainBytesPerBatch(t testing.TB, n int) (retained, peak float64) {
	parts := writeSmallBatches(t, n)
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	stop := make(chan struct{})
	peakc := make(chan uint64)
	go func() {
		var m runtime.MemStats
		var hi uint64
		for {
			select {
			case <-stop:
				peakc <- hi
				return
			default:
			}
			runtime.ReadMemStats(&m)
			hi = max(hi, m.HeapAlloc)
			runtime.Gosched()
		}
	}()
	res, err := Run(parts)
	close(stop)
	hi := <-peakc
	if err != nil {
		t.Fatal(err)
	}
	runtime.GC()
	runtime.ReadMemStats(&after)
	if len(res.Batches) != n {
		t.Fatalf("%d batches, want %d", len(res.Batches), n)
	}
	retained = float64(after.HeapAlloc-min(after.HeapAlloc, before.HeapAlloc)) / float64(n)
	peak = float64(hi-min(hi, before.HeapAlloc)) / float64(n)
	runtime.KeepAlive(res)
	return retained, peak
}

// TestExplainBytesPerBatch: explain keeps a few words per batch
// (docs/explain.md gives the figure this measures).
func TestExplainBytesPerBatch(t *testing.T) {
	if testing.Short() {
		t.Skip("writes and explains a log of 200,000 batches")
	}
	retained, peak := explainBytesPerBatch(t, 200000)
	t.Logf("explain: %.0f bytes per batch retained, %.0f at the peak", retained, peak)
	if retained > 200 {
		t.Errorf("explain keeps %.0f bytes per batch, want at most 200", retained)
	}
}
