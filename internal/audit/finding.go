// Package audit checks a partition's log for what the broker only checks on
// write: idempotent-producer sequences and epochs, transactions and their
// markers, the .txnindex and the producer snapshots. It walks every batch
// of every segment in offset order, reading headers only (control batches
// are decoded to tell COMMIT from ABORT) and keeping a small state per
// producer id. It produces findings and a summary; rendering lives in
// package report.
package audit

import (
	"fmt"
	"strings"
)

// Severity of a finding.
type Severity int

const (
	Info Severity = iota
	Warning
	Error
)

func (s Severity) String() string {
	switch s {
	case Info:
		return "info"
	case Warning:
		return "warning"
	case Error:
		return "error"
	}
	return fmt.Sprintf("Severity(%d)", int(s))
}

// MarshalText makes a Severity a JSON string.
func (s Severity) MarshalText() ([]byte, error) { return []byte(s.String()), nil }

// ParseSeverity parses info, warning or error.
func ParseSeverity(s string) (Severity, error) {
	switch strings.ToLower(s) {
	case "info":
		return Info, nil
	case "warning", "warn":
		return Warning, nil
	case "error":
		return Error, nil
	}
	return 0, fmt.Errorf("severity %q: want info, warning or error", s)
}

// Code is a finding's stable identifier.
type Code string

// The finding codes. They are part of kseg's interface: never rename one.
const (
	SequenceGap              Code = "sequence-gap"
	DuplicateSequence        Code = "duplicate-sequence"
	SequenceRegression       Code = "sequence-regression"
	EpochRegression          Code = "epoch-regression"
	EpochBumpNonzeroSequence Code = "epoch-bump-nonzero-sequence"
	SequenceWrap             Code = "sequence-wrap"
	UnterminatedTransaction  Code = "unterminated-transaction"
	MarkerWithoutTransaction Code = "marker-without-transaction"
	TxnIndexMismatch         Code = "txnindex-mismatch"
	SnapshotMismatch         Code = "snapshot-mismatch"
	NonIdempotentBatches     Code = "non-idempotent-batches"
	OffsetGap                Code = "offset-gap"
	CorruptBatch             Code = "corrupt-batch"

	// SegmentOverlap: a segment holds batches at or below the last offset
	// an earlier segment (by base offset) already holds. One finding per
	// overlapping segment: FirstOffset..LastOffset is the offset range both
	// hold, RelatedOffset the earlier segment's base offset, BatchCount
	// the batches of the later segment concerned. A warning when the log
	// cleaner explains it (a swap in progress: .cleaned or .swap files,
	// --compacted, an internal topic, a delete horizon), an error
	// otherwise (a copied or restored directory).
	SegmentOverlap Code = "segment-overlap"

	// Over the wire (kafka:// sources), where the broker's view replaces
	// .snapshot and .txnindex: a transaction open at the end of the log
	// that its coordinator does not have open (no transactional id for the
	// producer, another epoch, or this partition not in it: a hanging
	// transaction, as kafka-transactions.sh find-hanging reports), and one
	// open longer than its transaction timeout.
	TxnUnknownToCoordinator Code = "txn-unknown-to-coordinator"
	TxnPastTimeout          Code = "txn-past-timeout"
)

// Codes lists every code in documentation order.
var Codes = []Code{SequenceGap, DuplicateSequence, SequenceRegression, EpochRegression,
	EpochBumpNonzeroSequence, SequenceWrap, UnterminatedTransaction, MarkerWithoutTransaction,
	TxnIndexMismatch, SnapshotMismatch, NonIdempotentBatches, OffsetGap, SegmentOverlap, CorruptBatch,
	TxnUnknownToCoordinator, TxnPastTimeout}

// None marks an absent offset, producer id or sequence in a Finding.
const None = -1

// Finding is one thing the audit found. Offsets and sequences that do not
// apply are None (-1); ProducerID is None for partition-level findings.
//
// One cause over one region of the log is one finding: findings of the same
// code, severity and producer (id and epoch) about adjacent batches — a run
// of batches whose offsets go backwards, a producer skipping sequences
// batch after batch, corrupt regions that touch — are merged into one that
// spans the run (File@Position to LastFile@LastPosition, FirstOffset to
// LastOffset) and says how many batches it covers (BatchCount). The
// per-batch findings are kept in Batches only with Options.Detail.
type Finding struct {
	Code      Code     `json:"code"`
	Severity  Severity `json:"severity"`
	Partition string   `json:"partition"`
	// ProducerID and ProducerEpoch of the batch or marker concerned.
	ProducerID    int64 `json:"producer_id"`
	ProducerEpoch int16 `json:"producer_epoch"`
	// File and Position locate the batch (or the index/snapshot entry);
	// for a finding over several batches, the first of them. LastFile and
	// LastPosition locate the last one (the same as File and Position for
	// a finding about one batch or entry).
	File         string `json:"file"`
	Position     int64  `json:"position"`
	LastFile     string `json:"last_file"`
	LastPosition int64  `json:"last_position"`
	// FirstOffset..LastOffset are the offsets of the batch (or range)
	// concerned; RelatedOffset is the other end of the story: where the
	// first copy of a duplicate is, where an open transaction began, the
	// last offset before a gap.
	FirstOffset   int64 `json:"first_offset"`
	LastOffset    int64 `json:"last_offset"`
	RelatedOffset int64 `json:"related_offset"`
	BaseSequence  int32 `json:"base_sequence"`
	LastSequence  int32 `json:"last_sequence"`
	// Count is the size of the problem: sequences or offsets missing,
	// offsets repeated, batches concerned, bytes skipped (summed over a
	// merged run).
	Count int64 `json:"count"`
	// BatchCount is how many batches (corrupt-batch: skipped regions) of
	// the log the finding covers: 1 for one batch, more for a merged run,
	// a segment overlap, a transaction or the non-idempotent batches; 0
	// for a finding about a .txnindex or snapshot entry.
	BatchCount int64  `json:"batch_count"`
	Message    string `json:"message"`
	// Batches are the findings of each batch of a merged run (or each
	// batch of a segment overlap), only with Options.Detail.
	Batches []BatchDetail `json:"batches,omitempty"`
}

// BatchDetail is one batch of a finding that covers several.
type BatchDetail struct {
	File         string `json:"file"`
	Position     int64  `json:"position"`
	FirstOffset  int64  `json:"first_offset"`
	LastOffset   int64  `json:"last_offset"`
	BaseSequence int32  `json:"base_sequence"`
	LastSequence int32  `json:"last_sequence"`
	Count        int64  `json:"count"`
	Message      string `json:"message"`
}

// Summary describes one audited partition.
type Summary struct {
	Partition string `json:"partition"`
	Dir       string `json:"dir"`
	Segments  int    `json:"segments"`
	Batches   int64  `json:"batches"`
	Records   int64  `json:"records"`
	// LogStartOffset is the first batch's base offset; LogEndOffset is one
	// past the last batch's last offset (None for an empty log).
	LogStartOffset int64 `json:"log_start_offset"`
	LogEndOffset   int64 `json:"log_end_offset"`
	Producers      int   `json:"producers"`
	// Idempotent and NonIdempotent count batches with and without a
	// producer id (control batches included).
	IdempotentBatches    int64 `json:"idempotent_batches"`
	NonIdempotentBatches int64 `json:"non_idempotent_batches"`
	Committed            int64 `json:"transactions_committed"`
	Aborted              int64 `json:"transactions_aborted"`
	Open                 int64 `json:"transactions_open"`
	Compacted            bool  `json:"compacted"`
	// CompactedReason says why the partition is treated as compacted.
	CompactedReason string         `json:"compacted_reason,omitempty"`
	TxnIndexes      int            `json:"txnindexes"`
	Snapshots       int            `json:"snapshots"`
	Findings        map[Code]int   `json:"findings"`
	BySeverity      map[string]int `json:"findings_by_severity"`
}

// ProducerState is what the log shows of one producer id at its end.
type ProducerState struct {
	ID    int64
	Epoch int16
	// LastSequence is the highest sequence of the current epoch
	// (NoSequence when the epoch has no batch yet).
	LastSequence int32
	// LastOffset is the last offset of its last data batch, None if none.
	LastOffset int64
	Batches    int64 // data and control batches
}

// Result is the audit of one partition.
type Result struct {
	Summary Summary
	// Findings are the findings (Run), or those added to a streamed
	// result after the audit (RunStream: its own are read with Each).
	Findings []Finding
	// Producers in producer-id order.
	Producers []ProducerState

	held *store // RunStream's findings
}

// Each calls fn with each finding in order: those RunStream holds, then
// Findings. fn's argument is valid only during the call.
func (r *Result) Each(fn func(*Finding) error) error {
	if r.held != nil {
		if err := r.held.each(fn); err != nil {
			return err
		}
	}
	for i := range r.Findings {
		if err := fn(&r.Findings[i]); err != nil {
			return err
		}
	}
	return nil
}

// Close drops the findings RunStream holds (and their temporary file).
func (r *Result) Close() error {
	if r.held == nil {
		return nil
	}
	err := r.held.close()
	r.held = nil
	return err
}

// Max is the highest severity among the findings, and false when there
// are none.
func (r *Result) Max() (Severity, bool) {
	m, ok := Info, false
	if r.held != nil {
		for _, s := range []Severity{Info, Warning, Error} {
			if r.Summary.BySeverity[s.String()] > 0 {
				m, ok = s, true
			}
		}
	}
	for _, f := range r.Findings {
		m, ok = max(m, f.Severity), true
	}
	return m, ok
}
