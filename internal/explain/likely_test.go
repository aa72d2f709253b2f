package explain

import "testing"

// An interval without an upper bound takes the round value above its floor
// only when some batch of the log could not have taken its next record
// there; otherwise Kafka's default.
func TestLikelyOpen(t *testing.T) {
	// a batch of Uncompressed record bytes whose next record has a body of next bytes
	batchOf := func(uncompressed, next int32) *Batch {
		return &Batch{Records: 3, Uncompressed: uncompressed, succ: &Batch{first: sample{ts: 1, body: next}}}
	}
	for _, c := range []struct {
		name string
		data []*Batch
		lo   int64
		want int64
	}{
		{"far below 1024: the default", []*Batch{batchOf(607, 210)}, 668, 16384},
		{"the next record would not fit in 4096", []*Batch{batchOf(4033, 110)}, 4094, 4096},
		{"it would fit in 4096: the default", []*Batch{batchOf(3500, 110)}, 3561, 16384},
		{"above the default: the next power of two", []*Batch{batchOf(19939, 110)}, 20000, 32768},
		{"no batch: the default", nil, 1, 16384},
	} {
		if got := likelyOpen(c.data, c.lo); got != c.want {
			t.Errorf("%s: likelyOpen(lo %d) = %d, want %d", c.name, c.lo, got, c.want)
		}
	}
}
