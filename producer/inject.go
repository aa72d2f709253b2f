package producer

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/kseg/kseg/batch"
)

// FaultKind is a kind of damage --inject applies to the written log.
type FaultKind string

const (
	// FaultGap loses batch N: it is never written, so its partition's
	// sequence numbers jump (offsets stay contiguous, as the broker
	// assigns them).
	FaultGap FaultKind = "gap"
	// FaultDuplicate writes batch N twice in a row: the copy gets the next
	// offsets but the same producer id, epoch and sequences (a retry the
	// broker failed to de-duplicate).
	FaultDuplicate FaultKind = "duplicate"
	// FaultReorder holds batch N back and writes it after the next batch
	// of the same partition (or at the end), so sequences go backwards.
	FaultReorder FaultKind = "reorder"
	// FaultEpochBump bumps the producer epoch from batch N on (all
	// partitions) and restarts each partition's sequence at 0 at its first
	// batch from N on, as the idempotent client does after an unresolved
	// sequence.
	FaultEpochBump FaultKind = "epoch-bump"
)

// SidecarName is the file, at the top of the output directory, that lists
// the injected faults.
const SidecarName = "kseg-inject.json"

// Fault is one --inject KIND@N: N counts batches (from 0) in the order the
// broker receives them, over all partitions.
type Fault struct {
	Kind FaultKind
	At   int64
}

// ParseFault parses "gap@N", "duplicate@N", "reorder@N" or "epoch-bump@N".
func ParseFault(s string) (Fault, error) {
	kind, n, ok := strings.Cut(s, "@")
	if !ok {
		return Fault{}, configErr("inject %q: want KIND@N", s)
	}
	at, err := strconv.ParseInt(n, 10, 64)
	if err != nil {
		return Fault{}, configErr("inject %q: N is not a number", s)
	}
	f := Fault{Kind: FaultKind(kind), At: at}
	return f, f.validate()
}

func (f Fault) String() string { return fmt.Sprintf("%s@%d", f.Kind, f.At) }

func (f Fault) validate() error {
	switch f.Kind {
	case FaultGap, FaultDuplicate, FaultReorder, FaultEpochBump:
	default:
		return configErr("inject: unknown fault kind %q (want gap, duplicate, reorder or epoch-bump)", f.Kind)
	}
	if f.At < 0 {
		return configErr("inject %s: N must not be negative", f)
	}
	return nil
}

// InjectedFault is what the sidecar records about an applied fault. Offsets
// are log offsets in the written partition; sequences are the batch's.
type InjectedFault struct {
	Kind          FaultKind `json:"kind"`
	At            int64     `json:"at"`
	Partition     int       `json:"partition"`
	BaseOffset    int64     `json:"base_offset"`           // where the fault shows in the log
	LastOffset    int64     `json:"last_offset"`           // of the affected written batch, or BaseOffset-1 for a gap
	CopyOffset    int64     `json:"copy_offset,omitempty"` // duplicate: base offset of the copy; reorder: of the batch written before it
	ProducerID    int64     `json:"producer_id"`
	ProducerEpoch int16     `json:"producer_epoch"`
	BaseSequence  int32     `json:"base_sequence"`
	LastSequence  int32     `json:"last_sequence"`
	Records       int       `json:"records"`
	Detail        string    `json:"detail"`
}

type heldBatch struct {
	b        []byte
	brokerMs int64
	fault    Fault
}

// injector sits between the sender and the partition writers.
type injector struct {
	faults  map[int64][]Fault
	writers []*partitionWriter
	n       int64
	held    map[int][]heldBatch // reorder: per partition
	bumped  bool
	reset   map[int]bool // partitions whose sequence restarted after a bump
	seqOff  map[int]int32
	epoch   int16
	done    []InjectedFault
}

func newInjector(faults []Fault, writers []*partitionWriter) *injector {
	inj := &injector{faults: map[int64][]Fault{}, writers: writers, held: map[int][]heldBatch{},
		reset: map[int]bool{}, seqOff: map[int]int32{}}
	for _, f := range faults {
		inj.faults[f.At] = append(inj.faults[f.At], f)
	}
	return inj
}

// append receives batch number inj.n for partition part.
func (inj *injector) append(part int, b []byte, brokerMs int64) error {
	n := inj.n
	inj.n++
	w := inj.writers[part]
	if len(inj.faults) == 0 {
		return w.appendBatch(b, brokerMs)
	}
	var mine []Fault
	for _, f := range inj.faults[n] {
		if f.Kind == FaultEpochBump && !inj.bumped {
			inj.bumped = true
		}
		mine = append(mine, f)
	}
	if inj.bumped {
		inj.rewriteForBump(part, b)
	}
	h, err := batch.ParseHeader(b)
	if err != nil {
		return err
	}
	rec := func(f Fault) InjectedFault {
		return InjectedFault{Kind: f.Kind, At: f.At, Partition: part, ProducerID: h.ProducerID,
			ProducerEpoch: h.ProducerEpoch, BaseSequence: h.BaseSequence, LastSequence: h.LastSequence(),
			Records: int(h.RecordCount)}
	}
	write := true
	var after []func() error
	for _, f := range mine {
		switch f.Kind {
		case FaultGap:
			r := rec(f)
			r.BaseOffset, r.LastOffset = w.leo, w.leo-1
			r.Detail = fmt.Sprintf("batch %d (sequences %d..%d) lost: the next batch of partition %d starts at offset %d", n, r.BaseSequence, r.LastSequence, part, w.leo)
			inj.done = append(inj.done, r)
			write = false
		case FaultDuplicate:
			f := f
			cp := append([]byte(nil), b...)
			after = append(after, func() error {
				r := rec(f)
				r.BaseOffset = w.leo - int64(h.RecordCount)
				r.LastOffset = w.leo - 1
				r.CopyOffset = w.leo
				r.Detail = fmt.Sprintf("batch %d written twice: offsets %d..%d and again from %d with the same sequences %d..%d", n, r.BaseOffset, r.LastOffset, r.CopyOffset, r.BaseSequence, r.LastSequence)
				inj.done = append(inj.done, r)
				return w.appendBatch(cp, brokerMs)
			})
		case FaultReorder:
			inj.held[part] = append(inj.held[part], heldBatch{b: append([]byte(nil), b...), brokerMs: brokerMs, fault: f})
			write = false
		case FaultEpochBump:
			r := rec(f)
			r.BaseOffset = w.leo
			r.LastOffset = w.leo + int64(h.LastOffsetDelta)
			r.Detail = fmt.Sprintf("producer epoch bumped to %d from batch %d; sequences restart at 0 on each partition", h.ProducerEpoch, n)
			inj.done = append(inj.done, r)
		}
	}
	if !write {
		return nil
	}
	return inj.writeBatch(part, b, brokerMs, int64(h.RecordCount), after, containsReorder(mine))
}

// writeBatch appends batch b of records records to partition part, then what
// its faults add after it (a duplicate), then, unless b is itself held
// back (reordered), the batches held back for reorder before it.
func (inj *injector) writeBatch(part int, b []byte, brokerMs, records int64, after []func() error, reordered bool) error {
	w := inj.writers[part]
	if err := w.appendBatch(b, brokerMs); err != nil {
		return err
	}
	for _, fn := range after {
		if err := fn(); err != nil {
			return err
		}
	}
	// A batch held back for reorder goes in after the next one.
	if hs := inj.held[part]; len(hs) > 0 && !reordered {
		delete(inj.held, part)
		prevBase := w.leo - records
		for _, hb := range hs {
			if err := inj.writeHeld(part, hb, prevBase); err != nil {
				return err
			}
		}
	}
	return nil
}

func containsReorder(fs []Fault) bool {
	for _, f := range fs {
		if f.Kind == FaultReorder {
			return true
		}
	}
	return false
}

func (inj *injector) writeHeld(part int, hb heldBatch, before int64) error {
	w := inj.writers[part]
	h, _ := batch.ParseHeader(hb.b)
	r := InjectedFault{Kind: hb.fault.Kind, At: hb.fault.At, Partition: part, ProducerID: h.ProducerID,
		ProducerEpoch: h.ProducerEpoch, BaseSequence: h.BaseSequence, LastSequence: h.LastSequence(),
		Records: int(h.RecordCount), BaseOffset: w.leo, LastOffset: w.leo + int64(h.LastOffsetDelta), CopyOffset: before}
	if before >= 0 {
		r.Detail = fmt.Sprintf("batch %d (sequences %d..%d) written at offset %d, after the batch at offset %d that follows it in sequence", hb.fault.At, r.BaseSequence, r.LastSequence, w.leo, before)
	} else {
		r.Detail = fmt.Sprintf("batch %d (sequences %d..%d) held back to the end of partition %d, offset %d", hb.fault.At, r.BaseSequence, r.LastSequence, part, w.leo)
	}
	inj.done = append(inj.done, r)
	return w.appendBatch(hb.b, hb.brokerMs)
}

// rewriteForBump gives a batch drained after an epoch bump the new epoch
// and sequences counted from 0 on its partition.
func (inj *injector) rewriteForBump(part int, b []byte) {
	h, _ := batch.ParseHeader(b)
	if h.ProducerID < 0 {
		return
	}
	if !inj.reset[part] {
		inj.reset[part] = true
		inj.seqOff[part] = h.BaseSequence
	}
	seq := batch.DecrementSequence(h.BaseSequence, inj.seqOff[part])
	batch.SetProducerState(b, h.ProducerID, h.ProducerEpoch+1, seq)
}

// finish writes batches still held for reorder at the end of their
// partitions, in partition order.
func (inj *injector) finish() error {
	for part := range inj.writers {
		for _, hb := range inj.held[part] {
			if err := inj.writeHeld(part, hb, -1); err != nil {
				return err
			}
		}
		delete(inj.held, part)
	}
	for at, fs := range inj.faults {
		if at >= inj.n {
			return configErr("inject %s: the run wrote only %d batches", fs[0], inj.n)
		}
	}
	return nil
}

type sidecar struct {
	Topic  string          `json:"topic"`
	Faults []InjectedFault `json:"faults"`
}

func writeFaults(dir, topic string, faults []InjectedFault) error {
	if faults == nil {
		faults = []InjectedFault{}
	}
	b, err := json.MarshalIndent(sidecar{Topic: topic, Faults: faults}, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(dir, SidecarName), append(b, '\n'), 0o644)
}
