// Package report renders kseg's findings for people and machines.
package report

import (
	"fmt"
	"sort"
	"strconv"
	"strings"
)

// Histogram formats a records-per-batch histogram the way the seed's count
// lines do: "<records>x<batches>" groups, largest record count first,
// separated by spaces (e.g. "148x1 52x1"). Groups with no batches are left
// out; an empty histogram is "".
func Histogram(recordsPerBatch map[int]int) string {
	keys := make([]int, 0, len(recordsPerBatch))
	for k, n := range recordsPerBatch {
		if n > 0 {
			keys = append(keys, k)
		}
	}
	sort.Sort(sort.Reverse(sort.IntSlice(keys)))
	var sb strings.Builder
	for i, k := range keys {
		if i > 0 {
			sb.WriteByte(' ')
		}
		sb.WriteString(strconv.Itoa(k))
		sb.WriteByte('x')
		sb.WriteString(strconv.Itoa(recordsPerBatch[k]))
	}
	return sb.String()
}

// CountLine is the seed's count line for one partition:
// "<name>: <B> batches, <R> records, records per batch: <histogram>".
// kseg count and kseg produce both print it.
func CountLine(name string, batches, records int64, recordsPerBatch map[int]int) string {
	return name + ": " + strconv.FormatInt(batches, 10) + " batches, " + strconv.FormatInt(records, 10) +
		" records, records per batch: " + Histogram(recordsPerBatch)
}

// ParseHistogram reads the Histogram notation back ("8x25 4x1"); groups
// may come in any order and repeat (their batches add up).
func ParseHistogram(s string) (map[int]int, error) {
	out := map[int]int{}
	for _, g := range strings.Fields(s) {
		r, b, ok := strings.Cut(g, "x")
		rn, err1 := strconv.Atoi(r)
		bn, err2 := strconv.Atoi(b)
		if !ok || err1 != nil || err2 != nil || rn < 0 || bn <= 0 {
			return nil, fmt.Errorf("histogram group %q: want <records>x<batches>, e.g. 8x25", g)
		}
		out[rn] += bn
	}
	return out, nil
}
