// Package replicas compares copies of one partition (the partition
// directory from each broker, or every replica read over the wire) the way
// Kafka's own truncation reasons (KIP-101, KIP-279): each copy's leader-epoch
// history, the largest epoch two copies share with the same start offset,
// the first offset whose batches differ, and after it the batches only one
// side holds, with the likely cause named.
//
// All copies are read in one pass, each by its own goroutine, and compared
// batch by batch in offset order: memory is a few batch headers per copy
// plus what the report keeps (epoch entries, and at most MaxRuns runs per
// side of a diverging pair), whatever the size of the copies.
package replicas

import (
	"fmt"
	"hash/crc32"
	"sort"

	"github.com/kseg/kseg/batch"
	"github.com/kseg/kseg/index"
	"github.com/kseg/kseg/segment"
)

// MaxRuns is how many runs of batches held by one side of a diverging pair
// are kept (the rest are counted in Pair.MoreRuns).
const MaxRuns = 1000

// Input is one copy of a partition.
type Input struct {
	// Name is how the copy is printed (the argument, or "broker-N").
	Name string
	// Part holds its log segments, read in order.
	Part *segment.Partition
	// Checkpoint is the copy's leader-epoch history as the broker stored it
	// (leader-epoch-checkpoint, or the leader's OffsetForLeaderEpoch
	// answers); nil when there is none. CheckpointFrom names it.
	Checkpoint     []index.EpochEntry
	CheckpointFrom string
	// LogStart, HighWatermark and RecoveryPoint are the broker's
	// checkpoints (log-start-offset-checkpoint, replication-offset-checkpoint,
	// recovery-point-offset-checkpoint), or what the broker answered over
	// the wire; -1 when unknown. LogEnd is the broker's log end offset when
	// it said it (-1: the end of the batches read).
	LogStart, HighWatermark, RecoveryPoint, LogEnd int64
	// Broker is the replica's broker id (-1 for files); Leader marks the
	// partition's leader.
	Broker int32
	Leader bool
	// Finish, when set, is called after the copy was read, to complete
	// its facts with what the source learned while reading (the live
	// form's log start and high watermark).
	Finish func(c *Copy)
}

// Copy is what was found in one copy.
type Copy struct {
	Name string
	// LogStart is the first offset the copy serves: the larger of its log
	// start checkpoint and its first batch; LogEnd the offset after its
	// last batch (or the broker's log end when it said it).
	LogStart, LogEnd int64
	// FirstOffset is its first batch's base offset (-1: no batches).
	FirstOffset int64
	Batches     int64
	Records     int64
	// Epochs is the history Kafka reasons with: the checkpoint's when there
	// is one (EpochsFrom names it), else the batches'. BatchEpochs is the
	// history the batches' partitionLeaderEpoch gives: an entry where a
	// batch carries an epoch higher than any before it.
	Epochs      []index.EpochEntry
	EpochsFrom  string
	BatchEpochs []index.EpochEntry
	// EpochNotes say where the checkpoint and the batches disagree, and
	// batches whose epoch goes backwards.
	EpochNotes []string
	// HighWatermark and RecoveryPoint: -1 when unknown.
	HighWatermark, RecoveryPoint int64
	Broker                       int32
	Leader                       bool
	// Notes are other facts (the live form's readable end).
	Notes []string
}

// Pair statuses.
const (
	StatusAgree    = "agree"    // the same batches from the common start to the end of both
	StatusBehind   = "behind"   // one copy is a prefix of the other
	StatusDiverged = "diverged" // the copies hold different batches at some offset
)

// Causes of a divergence.
const (
	// CauseUnclean: at the divergence offset one copy holds batches of an
	// epoch the other copy's history says ended there: the other was led
	// by a replica that never had them (an unclean leader election, or a
	// fast failover, KAFKA-6361).
	CauseUnclean = "unclean-election"
	// CauseSameEpoch: both copies hold different batches at the same
	// offset in the same epoch (copies written independently: a restore
	// from another cluster, a disk swap, corruption); Kafka's truncation
	// cannot see this.
	CauseSameEpoch = "same-epoch-conflict"
	// CauseGap: one copy lacks offsets the other holds and has later
	// batches.
	CauseGap = "gap"
)

// Causes of a copy being behind another.
const (
	BehindLagging   = "lagging"   // a follower that has not caught up (or a restored old copy)
	BehindTruncated = "truncated" // its own checkpoints say it held offsets it no longer has
)

// Run is consecutive batches held by one side of a diverging pair after the
// divergence offset, of one epoch and one producer.
type Run struct {
	Copy                         string
	FirstOffset, LastOffset      int64
	Epoch                        int32
	ProducerID                   int64
	ProducerEpoch                int16
	FirstSequence                int32 // -1 for a non-idempotent producer
	LastSequence                 int32
	Batches                      int64
	Records                      int64
	FirstTimestamp, MaxTimestamp int64
}

// BelowStart counts the batches one copy holds below the other's log start
// (retention or DeleteRecords: not compared, not divergence).
type BelowStart struct {
	Copy                    string
	FirstOffset, LastOffset int64
	Batches, Records        int64
}

// Pair is the comparison of two copies.
type Pair struct {
	A, B   string
	Status string
	// CommonStart is the larger of the two log starts: batches below it
	// are not compared.
	CommonStart int64
	Below       *BelowStart
	// Shared is how many batches both hold identically.
	Shared int64
	// Behind (status behind): the copy that is a prefix, from which
	// offset the other holds more, how many records, and why.
	Behind        string
	BehindFrom    int64
	BehindRecords int64
	BehindCause   string
	// Divergence (status diverged): Offset is the first offset whose
	// batches differ; Epoch the largest epoch both histories hold with the
	// same start offset below it (-1: none); TruncateTo where Kafka's
	// truncation (KIP-279) puts the follower: the end of Epoch on the
	// copy where it ends first. Loses is the copy whose batches from
	// Offset a truncation discards (the one at the older epoch there; ""
	// when Kafka cannot tell).
	Offset     int64
	Epoch      int32
	TruncateTo int64
	Cause      string
	Loses      string
	Detail     string
	// OnlyA and OnlyB are the batches from Offset that only A, only B hold.
	OnlyA, OnlyB         []Run
	MoreRunsA, MoreRunsB int64
}

// Result is the comparison of a set of copies of one partition.
type Result struct {
	Partition string
	Copies    []Copy
	Pairs     []Pair
}

// Diverged says whether any pair diverged above its common start.
func (r *Result) Diverged() bool {
	for _, p := range r.Pairs {
		if p.Status == StatusDiverged {
			return true
		}
	}
	return false
}

// rec is one batch as the comparison sees it.
type rec struct {
	base, last     int64
	crc            uint32
	epoch          int32
	pid            int64
	pepoch         int16
	seq            int32
	records        int32
	firstTS, maxTS int64
}

// fromBatch summarises b (v2: its header; legacy: Info and a CRC of its bytes
// after the offset and size).
func fromBatch(b *segment.Batch) (rec, error) {
	if b.Magic >= batch.MagicV2 {
		h := &b.Header
		return rec{base: h.BaseOffset, last: h.LastOffset(), crc: h.CRC, epoch: h.PartitionLeaderEpoch,
			pid: h.ProducerID, pepoch: h.ProducerEpoch, seq: h.BaseSequence, records: h.RecordCount,
			firstTS: h.BaseTimestamp, maxTS: h.MaxTimestamp}, nil
	}
	in, err := b.Info()
	if err != nil {
		return rec{}, err
	}
	raw, err := b.Bytes()
	if err != nil {
		return rec{}, err
	}
	var c uint32
	if len(raw) > 12 {
		c = crc32.ChecksumIEEE(raw[12:])
	}
	return rec{base: in.BaseOffset, last: in.LastOffset, crc: c, epoch: -1, pid: -1, pepoch: -1, seq: -1,
		records: int32(in.Records), firstTS: in.MaxTimestamp, maxTS: in.MaxTimestamp}, nil
}

// lastSeq is the sequence of the batch's last record (-1 without one).
func (r *rec) lastSeq() int32 {
	if r.seq < 0 {
		return -1
	}
	return batch.IncrementSequence(r.seq, int32(r.last-r.base))
}

// clip is h as seen from offset s: entries that end at or below s dropped,
// the first one left starting at s at the earliest (as Kafka's cache does
// when the log start moves).
func clip(h []index.EpochEntry, s int64) []index.EpochEntry {
	var out []index.EpochEntry
	for i, e := range h {
		if i+1 < len(h) && h[i+1].StartOffset <= s {
			continue
		}
		out = append(out, index.EpochEntry{Epoch: e.Epoch, StartOffset: max(e.StartOffset, s)})
	}
	return out
}

// endOf is the end offset of epoch e in h (the next entry's start, or end
// for the last one), as the leader answers OffsetForLeaderEpoch; ok is false
// when h has no entry for e.
func endOf(h []index.EpochEntry, e int32, end int64) (int64, bool) {
	for i, x := range h {
		if x.Epoch == e {
			if i+1 < len(h) {
				return h[i+1].StartOffset, true
			}
			return end, true
		}
	}
	return 0, false
}

// shared is the largest epoch a and b both hold with the same start offset
// below before (-1 when none).
func shared(a, b []index.EpochEntry, before int64) int32 {
	best := int32(-1)
	for _, x := range a {
		if x.StartOffset >= before {
			continue
		}
		for _, y := range b {
			if y.Epoch == x.Epoch && y.StartOffset == x.StartOffset && x.Epoch > best {
				best = x.Epoch
			}
		}
	}
	return best
}

// compareHistories notes where the checkpoint's history and the batches'
// disagree, from the copy's first offset to its end.
func compareHistories(cp, bt []index.EpochEntry, from, end int64) []string {
	var notes []string
	c, b := clip(cp, from), clip(bt, from)
	inB := map[index.EpochEntry]bool{}
	for _, e := range b {
		inB[e] = true
	}
	inC := map[index.EpochEntry]bool{}
	for _, e := range c {
		inC[e] = true
		if !inB[e] && e.StartOffset < end {
			notes = append(notes, fmt.Sprintf("the checkpoint has epoch %d from offset %d, the batches do not", e.Epoch, e.StartOffset))
		}
	}
	for _, e := range b {
		if !inC[e] {
			notes = append(notes, fmt.Sprintf("the batches have epoch %d from offset %d, the checkpoint does not", e.Epoch, e.StartOffset))
		}
	}
	sort.Strings(notes)
	return notes
}

// MaxEpochQueries bounds EpochHistory's questions.
const MaxEpochQueries = 1000

// EpochHistory rebuilds a leader's epoch history from its
// OffsetForLeaderEpoch answers (ask: the largest epoch at or below the one
// asked that its cache holds, and where it ends), newest first from its
// current epoch: the next question is the answer's epoch - 1. Kafka answers
// an epoch below its oldest entry with that epoch and the oldest entry's
// start offset, and one with no entry at all with -1: an answer ending at
// or below the log start, or going no further down, ends the walk.
func EpochHistory(ask func(epoch int32) (int32, int64, error), current int32, logStart int64) ([]index.EpochEntry, error) {
	type ans struct {
		epoch int32
		end   int64
	}
	var got []ans
	oldestStart := logStart
	q := current
	for n := 0; n < MaxEpochQueries && q >= 0; n++ {
		e, end, err := ask(q)
		if err != nil {
			return nil, err
		}
		if e < 0 || end <= logStart || (len(got) > 0 && end >= got[len(got)-1].end) {
			if e >= 0 && end > oldestStart {
				oldestStart = end // the oldest entry's start, answered for an older epoch
			}
			break
		}
		got = append(got, ans{e, end})
		q = e - 1
	}
	h := make([]index.EpochEntry, 0, len(got))
	for k := len(got) - 1; k >= 0; k-- {
		start := oldestStart
		if k+1 < len(got) {
			start = got[k+1].end
		}
		h = append(h, index.EpochEntry{Epoch: got[k].epoch, StartOffset: max(start, logStart)})
	}
	// An entry that ends where it starts holds nothing.
	out := h[:0]
	for k, e := range h {
		end := int64(-1)
		if k+1 < len(h) {
			end = h[k+1].StartOffset
		}
		if end >= 0 && end <= e.StartOffset {
			continue
		}
		out = append(out, e)
	}
	return out, nil
}
