package producer

import (
	_ "embed"
	"encoding/json"
	"fmt"
	"sync"
	"time"

	"github.com/kseg/kseg/batch"
)

// The sender closes each batch it drains inside the drain loop
// (ProducerBatch.close: the codec's flush, the header, the CRC) and does
// the rest of a batch's work after it. A what-if replay's sender
// (Sender.SplitClose) takes the close costs measured on the Java producer
// (profiles/drain-close.json, oracle/calibration/drain-close.sh); the
// calibrated profile's codec close costs were fitted with all of the
// sender's work in the drain.

//go:embed profiles/drain-close.json
var drainCloseJSON []byte

type drainCloseFile struct {
	Provenance Provenance        `json:"provenance"`
	ClosePerKB map[string]string `json:"close-per-kb"`
}

var drainClose = sync.OnceValue(func() [batch.CodecZstd + 1]time.Duration {
	d, err := parseDrainClose(drainCloseJSON)
	if err != nil {
		panic("producer: embedded profiles/drain-close.json: " + err.Error())
	}
	return d
})

func parseDrainClose(b []byte) ([batch.CodecZstd + 1]time.Duration, error) {
	var out [batch.CodecZstd + 1]time.Duration
	var f drainCloseFile
	if err := json.Unmarshal(b, &f); err != nil {
		return out, err
	}
	for c := range batch.CodecZstd + 1 {
		v, ok := f.ClosePerKB[c.String()]
		if !ok {
			return out, fmt.Errorf("close-per-kb: %s missing", c)
		}
		if err := setDuration(&out[c], v, false); err != nil {
			return out, fmt.Errorf("close-per-kb: %s: %w", c, err)
		}
	}
	if len(f.ClosePerKB) != int(batch.CodecZstd+1) {
		return out, fmt.Errorf("close-per-kb: %d codecs, want %d", len(f.ClosePerKB), batch.CodecZstd+1)
	}
	return out, nil
}

// DrainClosePerKB is codec c's close cost per KiB of records inside the
// sender's drain, as measured on the Java producer.
func DrainClosePerKB(c batch.Codec) time.Duration { return drainClose()[c] }
