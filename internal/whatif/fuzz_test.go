package whatif

import (
	"errors"
	"strings"
	"testing"

	"github.com/kseg/kseg/internal/fuzzseed"
	"github.com/kseg/kseg/producer"
	"github.com/kseg/kseg/segment"
)

// FuzzWhatif replays arbitrary bytes as the one segment of partition 0 of
// a topic, under settings given and inferred, and as --synthetic. Damaged
// bytes must give a result or a located error (one that names the
// segment, or the evidence that the timestamps are not arrivals), never
// a panic, a hang or a failed replay (ErrReplay: the model's own error).
// The seeds are Kafka-written segments cut into runs of three entries
// (fuzzseed).
func FuzzWhatif(f *testing.F) {
	fuzzseed.Add(f, "seed/u05-default-0", "seed/u05-keyed-0", "idempotent/idempotent-0", "txn/txn-0",
		"codecs/codec-zstd-0", "logappendtime/log-append-time-0")
	f.Add([]byte{})
	was := []producer.Property{{Key: "linger.ms", Value: "5"}}
	set := []producer.Property{{Key: "linger.ms", Value: "20"}, {Key: "compression.type", Value: "lz4"}}
	f.Fuzz(func(t *testing.T, data []byte) {
		part := fuzzseed.Partition(data)
		for _, opts := range []Options{
			{Was: was, Set: set, Runs: 5, Workers: 1, FitRecords: 2000},
			{Set: set, Runs: 5, Workers: 1, FitRecords: 2000, Synthetic: true},
		} {
			_, _, err := Run([]segment.Partition{part}, opts)
			switch {
			case err == nil, errors.Is(err, ErrNotArrivals):
			case errors.Is(err, ErrReplay):
				t.Fatalf("the replay failed: %v", err)
			case !strings.Contains(err.Error(), fuzzseed.SegmentName):
				t.Fatalf("an error that does not name the segment: %v", err)
			}
		}
	})
}
