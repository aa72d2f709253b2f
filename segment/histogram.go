package segment

import (
	"fmt"
	"sort"
	"strconv"
	"strings"
)

// FormatHistogram writes a records-per-batch histogram
// (Stats.RecordsPerBatch) in kseg's notation: "<records>x<batches>"
// groups, largest record count first, separated by spaces ("148x1 52x1";
// "8x25" is 25 batches of 8 records). Groups with no batches are left
// out; an empty histogram is "".
func FormatHistogram(recordsPerBatch map[int]int) string {
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

// ParseHistogram reads FormatHistogram's notation back ("8x25 4x1");
// groups may come in any order and repeat (their batches add up).
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
