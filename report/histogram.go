package report

import (
	"strconv"

	"github.com/kseg/kseg/segment"
)

// CountLine is the seed's count line for one partition:
// "<name>: <B> batches, <R> records, records per batch: <histogram>"
// (segment.FormatHistogram's notation). kseg count and kseg produce both
// print it.
func CountLine(name string, batches, records int64, recordsPerBatch map[int]int) string {
	return name + ": " + strconv.FormatInt(batches, 10) + " batches, " + strconv.FormatInt(records, 10) +
		" records, records per batch: " + segment.FormatHistogram(recordsPerBatch)
}
