package segment

import (
	"math"
	"slices"
)

// DataCount is what CountData counted of a partition's data batches (not
// control batches, not empty ones), in order, from their headers alone.
type DataCount struct {
	Batches, Records int64
	Cost             int64 // the batches' cost (CountData), their records by default
	// LastTs is the latest MaxTimestamp of the batches counted; when none
	// was counted and a batch was left, one before that batch's first
	// timestamp (math.MinInt64 when it has none: a legacy entry).
	LastTs int64
	// More: a data batch was left past the caps.
	More bool
}

// CountData counts p's data batches by their headers while the batches
// stay within maxBatches and their cost within maxCost (either < 0: no
// cap). A batch costs cost(its info), or its record count when cost is
// nil. It reads every byte it counts (a partition from a remote source is
// fetched), decodes no record and decompresses only legacy wrappers.
func CountData(p *Partition, maxBatches, maxCost int64, cost func(BatchInfo) int64) (DataCount, error) {
	c := DataCount{LastTs: math.MinInt64}
	st := &Stream{}
	defer st.Close()
	for _, seg := range p.Segments {
		if err := st.OpenSegment(seg, 0); err != nil {
			return c, err
		}
		for st.Next() {
			sb := st.Batch()
			info, err := sb.Info()
			if err != nil {
				return c, err
			}
			if info.Control || info.Records == 0 {
				continue
			}
			x := int64(info.Records)
			if cost != nil {
				x = cost(info)
			}
			if c.Batches == maxBatches || maxCost >= 0 && c.Cost+x > maxCost {
				if c.Batches == 0 && !sb.IsLegacy() {
					c.LastTs = sb.Header.BaseTimestamp - 1
				}
				c.More = true
				return c, nil
			}
			c.Cost += x
			c.Batches++
			c.Records += int64(info.Records)
			c.LastTs = max(c.LastTs, info.MaxTimestamp)
		}
		if err := st.Err(); err != nil {
			return c, err
		}
	}
	return c, nil
}

// Local tells that every segment of p is a file on this machine (no
// remote source, which a second read would fetch again).
func (p *Partition) Local() bool {
	for _, seg := range p.Segments {
		if seg.Open != nil {
			return false
		}
	}
	return true
}

// FairShares divides bound among partitions holding sizes (of batches or
// records): each gets its size when they add up to no more than bound,
// else the largest level L such that every partition gets min(size, L)
// and the shares add up to bound (L+1 for the first ones, for the
// remainder), so a small partition leaves what it does not use to the
// large ones.
func FairShares(sizes []int64, bound int64) []int64 {
	shares := slices.Clone(sizes)
	var total int64
	for _, s := range sizes {
		total += s
		if total > bound {
			break
		}
	}
	if total <= bound {
		return shares
	}
	order := make([]int, len(sizes))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int {
		switch {
		case sizes[a] < sizes[b]:
			return -1
		case sizes[a] > sizes[b]:
			return 1
		}
		return 0
	})
	left := max(0, bound)
	for k, i := range order {
		n := int64(len(order) - k)
		if sizes[i] <= left/n {
			left -= sizes[i]
			continue
		}
		// the rest get the level, the remainder one each in input order
		level, extra := left/n, left%n
		rest := slices.Clone(order[k:])
		slices.Sort(rest)
		for j, r := range rest {
			shares[r] = level
			if int64(j) < extra {
				shares[r]++
			}
		}
		break
	}
	return shares
}
