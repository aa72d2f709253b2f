package report

// kafka-dump-log keeps per-file summaries in java.util.HashMap keyed by the
// absolute path, so with several files the summary order is HashMap
// iteration order. These helpers reproduce it for String keys.

func javaStringHash(s string) int32 {
	var h int32
	for _, r := range utf16Units(s) {
		h = 31*h + int32(r)
	}
	return h
}

func utf16Units(s string) []uint16 {
	out := make([]uint16, 0, len(s))
	for _, r := range s {
		if r >= 0x10000 {
			r -= 0x10000
			out = append(out, uint16(0xD800+(r>>10)), uint16(0xDC00+(r&0x3FF)))
			continue
		}
		out = append(out, uint16(r))
	}
	return out
}

// javaHashMapOrder returns keys (given in insertion order, no duplicates) in
// the order a java.util.HashMap with default capacity would iterate them.
func javaHashMapOrder(keys []string) []string {
	capacity := 16
	for float64(len(keys)) > 0.75*float64(capacity) {
		capacity *= 2
	}
	buckets := make([][]string, capacity)
	for _, k := range keys {
		h := uint32(javaStringHash(k))
		h ^= h >> 16
		i := int(h & uint32(capacity-1))
		buckets[i] = append(buckets[i], k)
	}
	out := make([]string, 0, len(keys))
	for _, b := range buckets {
		out = append(out, b...)
	}
	return out
}
