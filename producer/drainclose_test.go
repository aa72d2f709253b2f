package producer

import (
	"testing"
	"time"

	"github.com/kseg/kseg/batch"
)

func TestDrainCloseEmbedded(t *testing.T) {
	for c := range batch.CodecZstd + 1 {
		d := DrainClosePerKB(c)
		if d <= 0 || d > 100*time.Microsecond {
			t.Errorf("%s: %v a KiB, want a measured cost above 0 and below 100µs", c, d)
		}
		if c != batch.CodecNone && d <= DrainClosePerKB(batch.CodecNone) {
			t.Errorf("%s closes in %v a KiB, no more than without a codec (%v)", c, d, DrainClosePerKB(batch.CodecNone))
		}
	}
	// a trace sender's whole per-batch work comes after the drain, only
	// the measured close inside it
	tm := Sender{Lag: time.Millisecond, Close: 200 * time.Microsecond, RTT: 3 * time.Millisecond, SplitClose: true}.Timing()
	if tm.CloseCost != 0 || tm.BatchSendCost != 200*time.Microsecond || tm.Codecs[batch.CodecLZ4].ClosePerKB != DrainClosePerKB(batch.CodecLZ4) {
		t.Errorf("trace sender timing: close %v, batch send %v, lz4 close %v a KiB", tm.CloseCost, tm.BatchSendCost, tm.Codecs[batch.CodecLZ4].ClosePerKB)
	}
	// explain's senders keep all of it in the drain, with the profile's codec costs
	tm = Sender{Lag: time.Millisecond, Close: 200 * time.Microsecond, RTT: 3 * time.Millisecond}.Timing()
	if tm.CloseCost != 200*time.Microsecond || tm.BatchSendCost != 0 || tm.Codecs[batch.CodecLZ4].ClosePerKB != DefaultTiming().Codecs[batch.CodecLZ4].ClosePerKB {
		t.Errorf("explain's sender timing: close %v, batch send %v, lz4 close %v a KiB", tm.CloseCost, tm.BatchSendCost, tm.Codecs[batch.CodecLZ4].ClosePerKB)
	}
}

func TestParseDrainCloseRejects(t *testing.T) {
	for _, tc := range []string{
		`{`,
		`{"close-per-kb": {"none": "0s", "gzip": "1µs", "snappy": "1µs", "lz4": "1µs"}}`,
		`{"close-per-kb": {"none": "0s", "gzip": "1µs", "snappy": "1µs", "lz4": "1µs", "zstd": "-1µs"}}`,
		`{"close-per-kb": {"none": "0s", "gzip": "1µs", "snappy": "1µs", "lz4": "1µs", "zstd": "fast"}}`,
		`{"close-per-kb": {"none": "0s", "gzip": "1µs", "snappy": "1µs", "lz4": "1µs", "zstd": "1µs", "brotli": "1µs"}}`,
	} {
		if _, err := parseDrainClose([]byte(tc)); err == nil {
			t.Errorf("%s: want an error", tc)
		}
	}
}
