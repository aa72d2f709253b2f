// Package diff compares the batch layout, and optionally the records, of
// two sets of partitions (kseg diff). It computes a Result; package report
// renders it.
package diff

import (
	"bytes"
	"errors"
	"slices"

	"github.com/kseg/kseg/segment"
)

// Result is the comparison of two paths.
type Result struct {
	// Equal: every partition is on both sides with the same layout (and,
	// when compared, the same records).
	Equal      bool
	Partitions []Partition
}

// Partition compares one partition of A with one of B.
type Partition struct {
	// Name is the partitions' name, "<a> / <b>" when a single partition on
	// each side was paired despite different names.
	Name string
	A, B *Side // nil when absent on that side
	// LayoutEqual: both sides have the same batches (index, base and last
	// offset, record count). Otherwise FirstBatchA and FirstBatchB are the
	// first batch that differs, nil on a side that has no more batches.
	LayoutEqual              bool
	FirstBatchA, FirstBatchB *Batch
	// RecordsCompared is set when records were asked for and the
	// partition is on both sides; then RecordsEqual tells the outcome and,
	// when false, FirstRecord is the index of the first differing record
	// and RecordA and RecordB are it (nil on a side with no more records).
	RecordsCompared  bool
	RecordsEqual     bool
	FirstRecord      int64
	RecordA, RecordB *Record
}

// Side is one side's partition: its path (the segment file when there is
// only one) and its batch statistics.
type Side struct {
	Path            string
	Batches         int64
	Records         int64
	RecordsPerBatch map[int]int
}

// Batch is the position and size of one batch in a partition's sequence.
type Batch struct {
	Index      int64
	BaseOffset int64
	LastOffset int64
	Records    int
}

// Record is a record's content; nil Key, Value or header Value is null.
type Record struct {
	Offset  int64
	Key     []byte
	Value   []byte
	Headers []Header // in record order, duplicates kept
}

// Header is one record header.
type Header struct {
	Key   string
	Value []byte
}

// Compare compares the partitions found under the paths a and b (segment
// files, partition directories or log directories). Partitions are paired
// by name, or whatever their names when each side has exactly one. With
// records, record contents are compared too (control batches' records
// are not).
func Compare(a, b string, records bool) (*Result, error) {
	return CompareFrom(a, b, records, segment.Partitions)
}

// CompareFrom is Compare with a and b expanded by walk (a command's
// sources, which read kafka:// and remote stores too).
func CompareFrom(a, b string, records bool, walk func([]string) ([]segment.Partition, error)) (*Result, error) {
	pa, err := walk([]string{a})
	if err != nil {
		return nil, err
	}
	pb, err := walk([]string{b})
	if err != nil {
		return nil, err
	}
	res := &Result{Equal: true}
	for _, p := range pair(pa, pb) {
		d, err := comparePair(p.name, p.a, p.b, records)
		if err != nil {
			return nil, err
		}
		if !d.LayoutEqual || (d.RecordsCompared && !d.RecordsEqual) {
			res.Equal = false
		}
		res.Partitions = append(res.Partitions, *d)
	}
	return res, nil
}

type pairing struct {
	name string
	a, b *segment.Partition
}

// pair matches the partitions of both sides, sorted by topic and number.
func pair(pa, pb []segment.Partition) []pairing {
	if len(pa) == 1 && len(pb) == 1 {
		name := pa[0].Name()
		if pb[0].Name() != name {
			name += " / " + pb[0].Name()
		}
		return []pairing{{name, &pa[0], &pb[0]}}
	}
	var pairs []pairing
	idx := map[string]int{}
	for i := range pa {
		idx[pa[i].Name()] = len(pairs)
		pairs = append(pairs, pairing{name: pa[i].Name(), a: &pa[i]})
	}
	for i := range pb {
		if j, ok := idx[pb[i].Name()]; ok {
			pairs[j].b = &pb[i]
			continue
		}
		pairs = append(pairs, pairing{name: pb[i].Name(), b: &pb[i]})
	}
	slices.SortStableFunc(pairs, func(x, y pairing) int { return cmpPartition(x.a, x.b, y.a, y.b) })
	return pairs
}

func cmpPartition(a1, b1, a2, b2 *segment.Partition) int {
	x, y := a1, a2
	if x == nil {
		x = b1
	}
	if y == nil {
		y = b2
	}
	if x.Topic != y.Topic {
		if x.Topic < y.Topic {
			return -1
		}
		return 1
	}
	return int(x.Partition) - int(y.Partition)
}

func side(p *segment.Partition, s *segment.Stats) *Side {
	d := &Side{Path: p.Dir, Batches: s.Batches, Records: s.Records, RecordsPerBatch: s.RecordsPerBatch}
	if len(p.Segments) == 1 {
		d.Path = p.Segments[0].Path
	}
	return d
}

func comparePair(name string, a, b *segment.Partition, records bool) (*Partition, error) {
	d := &Partition{Name: name}
	c := &segment.Counter{}
	if a != nil {
		s, err := c.CountPartition(a)
		if err != nil {
			return nil, err
		}
		d.A = side(a, s)
	}
	if b != nil {
		s, err := c.CountPartition(b)
		if err != nil {
			return nil, err
		}
		d.B = side(b, s)
	}
	if a == nil || b == nil {
		return d, nil // present on one side only: differs
	}
	if err := compareLayout(d, a, b); err != nil {
		return nil, err
	}
	if records {
		if err := compareRecords(d, a, b); err != nil {
			return nil, err
		}
		d.RecordsCompared = true
	}
	return d, nil
}

// compareLayout walks both batch sequences to the first batch that differs.
func compareLayout(d *Partition, a, b *segment.Partition) error {
	ia, ib := segment.NewIter(a), segment.NewIter(b)
	defer ia.Close()
	defer ib.Close()
	d.LayoutEqual = true
	for i := int64(0); ; i++ {
		okA, okB := ia.NextBatch(), ib.NextBatch()
		if err := errors.Join(ia.Err(), ib.Err()); err != nil {
			return err
		}
		if !okA && !okB {
			return nil
		}
		var ba, bb *Batch
		if okA {
			x := ia.Batch()
			ba = &Batch{i, x.BaseOffset, x.LastOffset, x.Records}
		}
		if okB {
			x := ib.Batch()
			bb = &Batch{i, x.BaseOffset, x.LastOffset, x.Records}
		}
		if ba == nil || bb == nil || *ba != *bb {
			d.LayoutEqual = false
			d.FirstBatchA, d.FirstBatchB = ba, bb
			return nil
		}
	}
}

// compareRecords walks both record sequences to the first record that
// differs in key, value or headers.
func compareRecords(d *Partition, a, b *segment.Partition) error {
	ia, ib := segment.NewIter(a), segment.NewIter(b)
	defer ia.Close()
	defer ib.Close()
	for i := int64(0); ; i++ {
		okA, okB := ia.NextRecord(), ib.NextRecord()
		if err := errors.Join(ia.Err(), ib.Err()); err != nil {
			return err
		}
		if !okA && !okB {
			d.RecordsEqual = true
			return nil
		}
		var ra, rb *segment.Record
		if okA {
			ra = ia.Record()
		}
		if okB {
			rb = ib.Record()
		}
		if ra != nil && rb != nil && sameRecord(ra, rb) {
			continue
		}
		d.FirstRecord = i
		d.RecordA, d.RecordB = copyRecord(ra), copyRecord(rb)
		return nil
	}
}

func sameRecord(a, b *segment.Record) bool {
	if !sameBytes(a.Key, b.Key) || !sameBytes(a.Value, b.Value) || len(a.Headers) != len(b.Headers) {
		return false
	}
	for i := range a.Headers {
		if !bytes.Equal(a.Headers[i].Key, b.Headers[i].Key) || !sameBytes(a.Headers[i].Value, b.Headers[i].Value) {
			return false
		}
	}
	return true
}

// sameBytes tells null from empty.
func sameBytes(a, b []byte) bool { return (a == nil) == (b == nil) && bytes.Equal(a, b) }

// copyRecord copies r out of the iterator's buffers, keeping nil as nil.
func copyRecord(r *segment.Record) *Record {
	if r == nil {
		return nil
	}
	out := &Record{Offset: r.Offset, Key: bytes.Clone(r.Key), Value: bytes.Clone(r.Value)}
	for _, h := range r.Headers {
		out.Headers = append(out.Headers, Header{string(h.Key), bytes.Clone(h.Value)})
	}
	return out
}
