package producer

import (
	"math"
	"testing"
	"time"

	"github.com/kseg/kseg/batch"
)

func TestDrainCloseEmbedded(t *testing.T) {
	const kib = 1024
	for c := range batch.CodecZstd + 1 {
		curve := DrainClose(c)
		if curve.Points() < 50 {
			t.Errorf("%s: %d sizes measured, want the whole range from 1 record", c, curve.Points())
		}
		for _, size := range []int{200, 4 * kib, 64 * kib, 256 * kib} {
			if ns := curve.At(size); ns <= 0 || ns > float64(time.Millisecond) {
				t.Errorf("%s: a %d-byte batch closes in %.0f ns, want a measured time above 0 and below 1ms", c, size, ns)
			}
		}
	}
	// What a cost per KiB missed: a small batch's close is mostly fixed
	// work (gzip's and zstd's stream end), and gzip closes a batch that
	// filled its 16 KiB buffer faster than one just short of it, whose
	// every byte it deflates at the close.
	none, gzip, zstd := DrainClose(batch.CodecNone), DrainClose(batch.CodecGzip), DrainClose(batch.CodecZstd)
	if small := gzip.At(800); small < 8*none.At(800) || small < float64(8*time.Microsecond) {
		t.Errorf("gzip closes an 800-byte batch in %.0f ns (none: %.0f ns), want a fixed cost of several µs", small, none.At(800))
	}
	if small := zstd.At(800); small < float64(8*time.Microsecond) {
		t.Errorf("zstd closes an 800-byte batch in %.0f ns, want a fixed cost of several µs", small)
	}
	if before, after := gzip.At(15*kib), gzip.At(17*kib+512); before < 1.5*after {
		t.Errorf("gzip closes 15 KiB in %.0f ns and 17.5 KiB in %.0f ns: want the fall at its 16 KiB buffer", before, after)
	}

	// a trace sender's close inside the drain is the measured one, the rest
	// of its per-batch work after the drain
	tm := Sender{Lag: time.Millisecond, Close: 200 * time.Microsecond, RTT: 3 * time.Millisecond, SplitClose: true}.Timing()
	if tm.CloseCost != 0 || tm.BatchSendCost != 200*time.Microsecond || tm.MeasuredDrainClose != 1 || tm.Codecs[batch.CodecLZ4].ClosePerKB != 0 {
		t.Errorf("trace sender timing: close %v, batch send %v, measured drain close %d, lz4 close %v a KiB", tm.CloseCost, tm.BatchSendCost, tm.MeasuredDrainClose, tm.Codecs[batch.CodecLZ4].ClosePerKB)
	}
	// explain's senders keep all of it in the drain, with the profile's codec costs
	tm = Sender{Lag: time.Millisecond, Close: 200 * time.Microsecond, RTT: 3 * time.Millisecond}.Timing()
	if tm.CloseCost != 200*time.Microsecond || tm.BatchSendCost != 0 || tm.MeasuredDrainClose != 0 || tm.Codecs[batch.CodecLZ4].ClosePerKB != DefaultTiming().Codecs[batch.CodecLZ4].ClosePerKB {
		t.Errorf("explain's sender timing: close %v, batch send %v, measured drain close %d, lz4 close %v a KiB", tm.CloseCost, tm.BatchSendCost, tm.MeasuredDrainClose, tm.Codecs[batch.CodecLZ4].ClosePerKB)
	}
}

// The clock's close inside the drain takes the measured curve only when
// the timing asks for it.
func TestClockMeasuredDrainClose(t *testing.T) {
	tm := Timing{SenderJitter: 0, CloseCost: time.Microsecond, BatchSendCost: time.Microsecond}
	for _, measured := range []int{0, 1} {
		tm.MeasuredDrainClose = measured
		in, _ := newClock(tm, batch.CodecGzip, 1, 0).closeCosts(800, 1)
		want := float64(time.Microsecond)
		if measured == 1 {
			want += DrainClose(batch.CodecGzip).At(800)
		}
		if math.Abs(float64(in)-want) > 1 {
			t.Errorf("measured-drain-close %d: an 800-byte gzip batch closes in %d ns, want %.0f", measured, in, want)
		}
	}
}

func TestCloseCurveAt(t *testing.T) {
	curve, err := parseDrainClose([]byte(`{"close-us": {
		"none": [[1, 1]], "gzip": [[1, 10], [2, 30], [4, 5]], "snappy": [[1, 1]], "lz4": [[1, 1]], "zstd": [[1, 1]]}}`))
	if err != nil {
		t.Fatal(err)
	}
	gzip := curve[batch.CodecGzip]
	for _, tc := range []struct {
		bytes int
		ns    float64
	}{
		{0, 10e3},    // below the first size: the first size's
		{1024, 10e3}, // at a point
		{1536, 20e3}, // between two
		{2048, 30e3},
		{3072, 17.5e3}, // across a fall
		{4096, 5e3},
		{1 << 20, 5e3}, // past the last: the last's
	} {
		if got := gzip.At(tc.bytes); math.Abs(got-tc.ns) > 1e-6 {
			t.Errorf("At(%d) = %v ns, want %v", tc.bytes, got, tc.ns)
		}
	}
	if (CloseCurve{}).At(4096) != 0 || (CloseCurve{}).Points() != 0 {
		t.Error("the zero curve costs nothing")
	}
}

func TestParseDrainCloseRejects(t *testing.T) {
	const others = `"none": [[1, 0.1]], "gzip": [[1, 9]], "snappy": [[1, 1]], "lz4": [[1, 1]]`
	for _, tc := range []string{
		`{`,
		`{"close-us": {` + others + `}}`,
		`{"close-us": {` + others + `, "zstd": []}}`,
		`{"close-us": {` + others + `, "zstd": [[1, -1]]}}`,
		`{"close-us": {` + others + `, "zstd": [[0, 1]]}}`,
		`{"close-us": {` + others + `, "zstd": [[2, 1], [1, 1]]}}`,
		`{"close-us": {` + others + `, "zstd": [[1, 1], [1, 2]]}}`,
		`{"close-us": {` + others + `, "zstd": [[1, 1e9]]}}`,
		`{"close-us": {` + others + `, "zstd": [[1, "fast"]]}}`,
		`{"close-us": {` + others + `, "zstd": [[1, 1]], "brotli": [[1, 1]]}}`,
		`{"close-per-kb": {"none": "0s", "gzip": "1µs", "snappy": "1µs", "lz4": "1µs", "zstd": "1µs"}}`,
	} {
		if _, err := parseDrainClose([]byte(tc)); err == nil {
			t.Errorf("%s: want an error", tc)
		}
	}
}
