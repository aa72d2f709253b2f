package explain

import (
	"fmt"

	"github.com/kseg/kseg/batch"
)

// evidenceKind is which sentence explains a batch's cut. The sentence is
// rendered when asked for (Batch.Evidence) from the batch's fields and its
// producer's story, so a log of millions of batches keeps no string per
// batch.
type evidenceKind uint8

const (
	evNone       evidenceKind = iota
	evInternal                // a broker-written topic
	evLegacy                  // a magic 0/1 entry
	evSync                    // one record per batch, send().get()
	evLinger                  // linger.ms expired before the next record
	evLingerLast              // the producer's last batch, linger.ms expired
	evDrain                   // drained early for another partition
	evFlush                   // open at the producer's last record
	evUnknown                 // no replay explains it
	evSize                    // the next record did not fit
	evLarge                   // the first record alone exceeded batch.size
	evOneRecord               // one record per batch, not spaced as sync sends
	evUntimed                 // records without timestamps
)

// evidenceStory is what a producer's evidence sentences share: the
// linger.ms text of the chosen story, the note when stories disagree, the
// producer's last record and, for synchronous sends, the shortest gap.
type evidenceStory struct {
	lText     string
	ambiguous string // a format with one %s (lText); "" when the stories agree
	tEnd      int64
	minGap    int64
}

// cutOf is the cut each evidence explains.
var cutOf = [...]string{evNone: "", evInternal: CutUnknown, evLegacy: CutUnknown, evSync: CutSync,
	evLinger: CutLinger, evLingerLast: CutLinger, evDrain: CutDrain, evFlush: CutFlush,
	evUnknown: CutUnknown, evSize: CutSize, evLarge: CutLargeRecord, evOneRecord: CutUnknown, evUntimed: CutUnknown}

// Cut is why the batch was cut (one of the Cut* reasons; "" before
// inference).
func (b *Batch) Cut() string { return cutOf[b.ev] }

// Topic is the batch's topic (its producer's).
func (b *Batch) Topic() string {
	if b.prod == nil {
		return ""
	}
	return b.prod.Topic
}

// Evidence is the sentence that explains the batch's cut.
func (b *Batch) Evidence() string {
	var st evidenceStory
	if b.prod != nil {
		st = b.prod.story
	}
	var s string
	switch b.ev {
	case evNone:
		return ""
	case evInternal:
		return "internal topic: written by the broker, not by a producer"
	case evLegacy:
		return "legacy (magic 0/1) entry: no producer batching to reason with"
	case evSync:
		s = "one record per batch, each sent after the previous one's batch: send().get()"
		if st.minGap >= 0 {
			// Not an interval: a record above batch.size, sent while
			// its predecessor lingered, writes the same log.
			s += fmt.Sprintf(" (so linger.ms <= %d ms); or linger.ms below the send interval, or records above batch.size", st.minGap)
		}
		return s
	case evOneRecord:
		return "one record per batch: sync sends, linger.ms below the send interval or a record above batch.size (the log cannot tell which)"
	case evUntimed:
		return "records carry no timestamps: no cut can be told from the log"
	case evLinger:
		s = fmt.Sprintf("records span %d ms, next record %d ms after the first: linger.ms%s expired between", b.span(), b.gap(), st.lText)
	case evLingerLast:
		s = fmt.Sprintf("last batch; linger.ms%s expired by the producer's last record, %d ms after its first", st.lText, st.tEnd-b.FirstTs)
	case evDrain:
		return fmt.Sprintf("taken %d ms or more after its first record, before linger.ms%s, when another partition's batch was ready", b.span(), st.lText)
	case evFlush:
		return fmt.Sprintf("open when the producer's last record came (%d ms after its first, linger.ms%s): close()/flush()", st.tEnd-b.FirstTs, st.lText)
	case evUnknown:
		return "no replay of the sender explains this batch"
	case evSize, evLarge:
		e := est(b.Codec, int(b.Uncompressed), b.ratio[1])
		u := e + b.nextSize()
		s = fmt.Sprintf("%d B + next record %d B = %d B > batch.size, next record %d ms after the first", e, b.nextSize(), u, b.gap())
		if b.Codec != batch.CodecNone {
			s = fmt.Sprintf("estimate %d B (ratio <= %.3f) + next record %d B = %d B > batch.size", e, b.ratio[1], b.nextSize(), u)
		}
		if b.ev == evLarge {
			return fmt.Sprintf("first record alone needs a %d B buffer, above batch.size; ", b.FirstUB) + s
		}
	}
	// Size and linger cuts (not a large record's) note stories that disagree.
	if st.ambiguous != "" {
		s += "; " + fmt.Sprintf(st.ambiguous, st.lText)
	}
	return s
}
