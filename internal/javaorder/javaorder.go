// Package javaorder reproduces the iteration order of java.util.HashMap,
// which leaks into Kafka's output: kafka-dump-log prints its per-file
// summaries from HashMaps keyed by path, and the broker writes producer
// snapshots from a HashMap keyed by producer id.
package javaorder

// Order returns keys, given in insertion order and without duplicates, in
// the order a java.util.HashMap of default capacity (16, load factor 0.75)
// holding them iterates: by bucket, the spread hash (h ^ h>>>16) masked by
// the table size the map grew to, then insertion order within a bucket.
// hash is the key's Java hashCode.
func Order[K any](keys []K, hash func(K) int32) []K {
	capacity := 16
	for float64(len(keys)) > 0.75*float64(capacity) {
		capacity *= 2
	}
	buckets := make([][]K, capacity)
	for _, k := range keys {
		h := uint32(hash(k))
		h ^= h >> 16
		i := int(h & uint32(capacity-1))
		buckets[i] = append(buckets[i], k)
	}
	out := make([]K, 0, len(keys))
	for _, b := range buckets {
		out = append(out, b...)
	}
	return out
}

// Strings is Order for String keys.
func Strings(keys []string) []string { return Order(keys, StringHash) }

// Longs is Order for Long keys.
func Longs(keys []int64) []int64 { return Order(keys, LongHash) }

// StringHash is String.hashCode: 31*h + c over the UTF-16 code units.
func StringHash(s string) int32 {
	var h int32
	for _, r := range s {
		if r >= 0x10000 {
			r -= 0x10000
			h = 31*h + int32(0xD800+(r>>10))
			h = 31*h + int32(0xDC00+(r&0x3FF))
			continue
		}
		h = 31*h + int32(r)
	}
	return h
}

// LongHash is Long.hashCode: the high and low 32 bits xored.
func LongHash(v int64) int32 { return int32(v ^ int64(uint64(v)>>32)) }
