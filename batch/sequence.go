package batch

import "math"

// Producer sequences live on the ring [0, MaxInt32]: Kafka wraps past
// Int32.MAX to 0, not at 2^32. This file is the one home of that
// arithmetic; producer snapshots, the audit and the model all use it.

// IncrementSequence is DefaultRecordBatch.incrementSequence. The last
// sequence of a batch is IncrementSequence(baseSequence, lastOffsetDelta).
func IncrementSequence(seq, delta int32) int32 {
	if seq > math.MaxInt32-delta {
		return delta - (math.MaxInt32 - seq) - 1
	}
	return seq + delta
}

// DecrementSequence is DefaultRecordBatch.decrementSequence, the inverse of
// IncrementSequence.
func DecrementSequence(seq, delta int32) int32 {
	if seq < delta {
		return math.MaxInt32 - (delta - seq) + 1
	}
	return seq - delta
}

// SequenceAfter reports whether sequence x comes after y, allowing one
// wrap: x is after y when it is greater, or when it is smaller by more than
// MaxInt32/2 (x has wrapped past MaxInt32 to 0).
func SequenceAfter(x, y int32) bool {
	d := int64(x) - int64(y)
	if d < -math.MaxInt32/2 {
		d += math.MaxInt32 + 1
	}
	return d > 0
}

// SequenceDistance is how many steps forward on the ring lead from
// sequence from to sequence to (0 when they are equal).
func SequenceDistance(from, to int32) int64 {
	d := int64(to) - int64(from)
	if d < 0 {
		d += math.MaxInt32 + 1
	}
	return d
}
