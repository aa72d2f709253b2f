// Package report renders kseg's findings for people and machines.
package report

import (
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
