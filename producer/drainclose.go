package producer

import (
	_ "embed"
	"encoding/json"
	"fmt"
	"math"
	"sort"
	"sync"

	"github.com/kseg/kseg/batch"
)

// The sender closes each batch it drains inside the drain loop
// (ProducerBatch.close: the codec's flush, the header, the CRC) and does
// the rest of a batch's work after it. A what-if replay's sender
// (Sender.SplitClose) takes the close costs measured on the Java producer
// by the batch's size (profiles/drain-close.json,
// oracle/calibration/drain-close.sh); the calibrated profile's codec
// close costs were fitted with all of the sender's work in the drain.

//go:embed profiles/drain-close.json
var drainCloseJSON []byte

type drainCloseFile struct {
	Provenance Provenance              `json:"provenance"`
	CloseUs    map[string][][2]float64 `json:"close-us"`
}

// A CloseCurve is the time one batch's close takes by the size of its
// records section: measured at points of increasing size, linearly
// between them, the first point's below it and the last's past it. The
// close does what the codec left undone while the records were appended
// (gzip deflates its 16 KiB buffer as it fills, snappy and lz4 compress
// each full block), so the cost falls at each block's end instead of
// growing with the batch: a cost per KiB misses it (a 4-record gzip batch
// closes in 18 µs, four times the per-KiB figure of an 85-record one).
type CloseCurve struct {
	p *closePoints // a pointer keeps Timing comparable
}

type closePoints struct{ bytes, ns []float64 }

// At is the close time in nanoseconds of a batch whose records section
// is uncompressed bytes (0 for the zero curve).
func (c CloseCurve) At(uncompressed int) float64 {
	if c.p == nil {
		return 0
	}
	b, ns := c.p.bytes, c.p.ns
	x := float64(uncompressed)
	i := sort.SearchFloat64s(b, x) // first point at or past x
	switch {
	case i == 0:
		return ns[0]
	case i == len(b):
		return ns[len(ns)-1]
	}
	f := (x - b[i-1]) / (b[i] - b[i-1])
	return ns[i-1] + f*(ns[i]-ns[i-1])
}

// Points is the number of measured sizes.
func (c CloseCurve) Points() int {
	if c.p == nil {
		return 0
	}
	return len(c.p.bytes)
}

var drainClose = sync.OnceValue(func() [batch.CodecZstd + 1]CloseCurve {
	d, err := parseDrainClose(drainCloseJSON)
	if err != nil {
		panic("producer: embedded profiles/drain-close.json: " + err.Error())
	}
	return d
})

func parseDrainClose(b []byte) ([batch.CodecZstd + 1]CloseCurve, error) {
	var out [batch.CodecZstd + 1]CloseCurve
	var f drainCloseFile
	if err := json.Unmarshal(b, &f); err != nil {
		return out, err
	}
	if len(f.CloseUs) != int(batch.CodecZstd+1) {
		return out, fmt.Errorf("close-us: %d codecs, want %d", len(f.CloseUs), batch.CodecZstd+1)
	}
	for c := range batch.CodecZstd + 1 {
		pts, ok := f.CloseUs[c.String()]
		if !ok {
			return out, fmt.Errorf("close-us: %s missing", c)
		}
		if len(pts) == 0 {
			return out, fmt.Errorf("close-us: %s: no points", c)
		}
		var curve closePoints
		for i, p := range pts {
			kib, us := p[0], p[1]
			if math.IsNaN(kib) || math.IsNaN(us) || kib <= 0 || us < 0 || us > 1e6 {
				return out, fmt.Errorf("close-us: %s point %d: [%v KiB, %v µs] out of range", c, i, kib, us)
			}
			if i > 0 && kib*1024 <= curve.bytes[i-1] {
				return out, fmt.Errorf("close-us: %s point %d: %v KiB after %v KiB, want increasing sizes", c, i, kib, curve.bytes[i-1]/1024)
			}
			curve.bytes = append(curve.bytes, kib*1024)
			curve.ns = append(curve.ns, us*1e3)
		}
		out[c] = CloseCurve{&curve}
	}
	return out, nil
}

// DrainClose is codec c's close of one batch inside the sender's drain,
// by the batch's size, as measured on the Java producer.
func DrainClose(c batch.Codec) CloseCurve { return drainClose()[c] }
