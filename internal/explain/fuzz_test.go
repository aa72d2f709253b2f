package explain

import (
	"strings"
	"testing"

	"github.com/kseg/kseg/internal/fuzzseed"
	"github.com/kseg/kseg/segment"
)

// FuzzExplain explains arbitrary bytes as the one segment of partition 0
// of a topic. Damaged bytes must give a result or an error that names
// the segment, never a panic or a hang. The seeds are Kafka-written
// segments cut into runs of three entries (fuzzseed), enough for a
// producer's story with a cut between two batches.
func FuzzExplain(f *testing.F) {
	fuzzseed.Add(f, "seed/u05-default-0", "seed/u05-large-0", "idempotent/idempotent-0", "txn/txn-0",
		"codecs/codec-lz4-0", "logappendtime/log-append-time-0")
	f.Add([]byte{})
	f.Add(make([]byte, 80))
	f.Fuzz(func(t *testing.T, data []byte) {
		part := fuzzseed.Partition(data)
		_, err := RunWith([]segment.Partition{part}, Options{MaxBatches: 100})
		if err != nil && !strings.Contains(err.Error(), fuzzseed.SegmentName) {
			t.Fatalf("an error that does not name the segment: %v", err)
		}
	})
}
