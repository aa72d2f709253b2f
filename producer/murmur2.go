package producer

// murmur2 is Kafka's Utils.murmur2: the 32-bit MurmurHash2 variant with
// seed 0x9747b28c, little-endian 4-byte blocks and Java's signed int
// result.
func murmur2(data []byte) int32 {
	const (
		seed = 0x9747b28c
		m    = 0x5bd1e995
		r    = 24
	)
	n := len(data)
	h := uint32(seed) ^ uint32(n)
	i := 0
	for ; i+4 <= n; i += 4 {
		k := uint32(data[i]) | uint32(data[i+1])<<8 | uint32(data[i+2])<<16 | uint32(data[i+3])<<24
		k *= m
		k ^= k >> r
		k *= m
		h *= m
		h ^= k
	}
	switch n % 4 {
	case 3:
		h ^= uint32(data[i+2]) << 16
		fallthrough
	case 2:
		h ^= uint32(data[i+1]) << 8
		fallthrough
	case 1:
		h ^= uint32(data[i])
		h *= m
	}
	h ^= h >> 13
	h *= m
	h ^= h >> 15
	return int32(h)
}

// toPositive is Kafka's Utils.toPositive: it clears the sign bit (not abs).
func toPositive(x int32) int32 { return x & 0x7fffffff }

// PartitionForKey is BuiltInPartitioner.partitionForKey:
// toPositive(murmur2(key)) % numPartitions.
func PartitionForKey(key []byte, numPartitions int) int {
	return int(toPositive(murmur2(key))) % numPartitions
}
