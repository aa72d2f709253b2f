package cmd

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/kseg/kseg/report"
	"github.com/kseg/kseg/segment"
)

func init() { subcommands = append(subcommands, newDiffCmd) }

const diffLong = `Compare the batch layout of two sets of partitions.

A and B are segment files, partition directories or log directories, for
example two runs of kseg produce with different linger.ms, or a simulated
run against a real broker's. Partitions are paired by name (<topic>-<n>);
when each side has exactly one partition they are paired whatever their
names. For each partition: batches, records and the records-per-batch
histograms side by side, and the first batch where the layouts diverge
(offset ranges and record counts of both).

--records also compares content: the same records (key, value, headers, in
order) on both sides however they are batched; records of control batches
(transaction markers) are not compared. The first differing record is shown
on each side: offset, key, value and headers (in record order, key=value,
null values as null), strings quoted and cut at 60 bytes.

Exit status: 0 the compared aspects are equal, 1 they differ, 2 usage,
3 unreadable input.`

func newDiffCmd() *cobra.Command {
	var records, asJSON bool
	c := &cobra.Command{
		Use:     "diff A B",
		Short:   "Compare the batch layout (and optionally the records) of two logs",
		Long:    diffLong,
		Example: "  kseg diff run-linger0/ run-linger5/\n  kseg diff --records sim/orders-0 broker/orders-0",
		Args: func(c *cobra.Command, args []string) error {
			if len(args) != 2 {
				return withCode(ExitUsage, fmt.Errorf("diff takes two paths (A and B), got %d", len(args)))
			}
			return nil
		},
		RunE: func(c *cobra.Command, args []string) error {
			return runDiff(c.OutOrStdout(), args[0], args[1], records, asJSON)
		},
	}
	c.SetFlagErrorFunc(func(_ *cobra.Command, err error) error { return withCode(ExitUsage, err) })
	c.Flags().BoolVar(&records, "records", false, "also compare record contents (key, value, headers) in order")
	c.Flags().BoolVar(&asJSON, "json", false, "one JSON document")
	return c
}

// diffSide is one side of a partition comparison (JSON schema in README).
type diffSide struct {
	Path            string         `json:"path"`
	Batches         int64          `json:"batches"`
	Records         int64          `json:"records"`
	Histogram       string         `json:"histogram"`
	RecordsPerBatch map[string]int `json:"records_per_batch"`
}

type diffBatch struct {
	Index      int64 `json:"index"`
	BaseOffset int64 `json:"base_offset"`
	LastOffset int64 `json:"last_offset"`
	Records    int   `json:"records"`
}

type diffRecord struct {
	Offset  int64             `json:"offset"`
	Key     *string           `json:"key"`
	Value   *string           `json:"value"`
	Headers map[string]string `json:"headers,omitempty"`
	// hdrs are the headers in record order, duplicates and null values
	// kept, for the text output.
	hdrs []diffHeader
}

type diffHeader struct {
	key   string
	value *string
}

type diffPartition struct {
	Partition   string      `json:"partition"`
	A           *diffSide   `json:"a"` // null when absent on that side
	B           *diffSide   `json:"b"`
	LayoutEqual bool        `json:"layout_equal"`
	FirstBatchA *diffBatch  `json:"first_diverging_batch_a,omitempty"`
	FirstBatchB *diffBatch  `json:"first_diverging_batch_b,omitempty"`
	RecordsEq   *bool       `json:"records_equal,omitempty"`
	RecordIndex *int64      `json:"first_differing_record_index,omitempty"`
	RecordA     *diffRecord `json:"first_differing_record_a,omitempty"`
	RecordB     *diffRecord `json:"first_differing_record_b,omitempty"`
}

type diffDoc struct {
	Equal      bool            `json:"equal"`
	Partitions []diffPartition `json:"partitions"`
}

func runDiff(w io.Writer, a, b string, records, asJSON bool) error {
	pa, err := segment.Partitions([]string{a})
	if err != nil {
		return withCode(ExitBadInput, err)
	}
	pb, err := segment.Partitions([]string{b})
	if err != nil {
		return withCode(ExitBadInput, err)
	}
	type pair struct {
		name string
		a, b *segment.Partition
	}
	var pairs []pair
	if len(pa) == 1 && len(pb) == 1 {
		name := pa[0].Name()
		if pb[0].Name() != name {
			name += " / " + pb[0].Name()
		}
		pairs = append(pairs, pair{name, &pa[0], &pb[0]})
	} else {
		idx := map[string]int{}
		for i := range pa {
			idx[pa[i].Name()] = len(pairs)
			pairs = append(pairs, pair{name: pa[i].Name(), a: &pa[i]})
		}
		for i := range pb {
			if j, ok := idx[pb[i].Name()]; ok {
				pairs[j].b = &pb[i]
				continue
			}
			pairs = append(pairs, pair{name: pb[i].Name(), b: &pb[i]})
		}
		slices.SortStableFunc(pairs, func(x, y pair) int {
			return cmpPartition(x.a, x.b, y.a, y.b)
		})
	}
	doc := diffDoc{Equal: true}
	for _, p := range pairs {
		d, err := diffPair(p.name, p.a, p.b, records)
		if err != nil {
			return withCode(ExitBadInput, err)
		}
		if !d.LayoutEqual || (d.RecordsEq != nil && !*d.RecordsEq) {
			doc.Equal = false
		}
		doc.Partitions = append(doc.Partitions, *d)
	}
	if asJSON {
		enc := json.NewEncoder(w)
		if err := enc.Encode(doc); err != nil {
			return err
		}
	} else if err := printDiff(w, &doc, records); err != nil {
		return err
	}
	if !doc.Equal {
		return silentExit(ExitFindings)
	}
	return nil
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

func side(p *segment.Partition, s *segment.Stats) *diffSide {
	d := &diffSide{Path: p.Dir, Batches: s.Batches, Records: s.Records, Histogram: report.Histogram(s.RecordsPerBatch), RecordsPerBatch: map[string]int{}}
	if len(p.Segments) == 1 {
		d.Path = p.Segments[0].Path
	}
	for k, v := range s.RecordsPerBatch {
		d.RecordsPerBatch[strconv.Itoa(k)] = v
	}
	return d
}

func diffPair(name string, a, b *segment.Partition, records bool) (*diffPartition, error) {
	d := &diffPartition{Partition: name}
	c := &segment.Counter{}
	var sa, sb *segment.Stats
	var err error
	if a != nil {
		if sa, err = c.CountPartition(a); err != nil {
			return nil, err
		}
		d.A = side(a, sa)
	}
	if b != nil {
		if sb, err = c.CountPartition(b); err != nil {
			return nil, err
		}
		d.B = side(b, sb)
	}
	if a == nil || b == nil {
		return d, nil // present on one side only: differs
	}
	// Walk both batch sequences to the first batch that differs.
	ia, ib := segment.NewIter(a), segment.NewIter(b)
	defer ia.Close()
	defer ib.Close()
	d.LayoutEqual = true
	for i := int64(0); ; i++ {
		okA, okB := ia.NextBatch(), ib.NextBatch()
		if err := errors.Join(ia.Err(), ib.Err()); err != nil {
			return nil, err
		}
		if !okA && !okB {
			break
		}
		var ba, bb *diffBatch
		if okA {
			x := ia.Batch()
			ba = &diffBatch{i, x.BaseOffset, x.LastOffset, x.Records}
		}
		if okB {
			x := ib.Batch()
			bb = &diffBatch{i, x.BaseOffset, x.LastOffset, x.Records}
		}
		if ba == nil || bb == nil || *ba != *bb {
			d.LayoutEqual = false
			d.FirstBatchA, d.FirstBatchB = ba, bb
			break
		}
	}
	if records {
		eq, err := diffRecords(d, a, b)
		if err != nil {
			return nil, err
		}
		d.RecordsEq = &eq
	}
	return d, nil
}

func diffRecords(d *diffPartition, a, b *segment.Partition) (bool, error) {
	ia, ib := segment.NewIter(a), segment.NewIter(b)
	defer ia.Close()
	defer ib.Close()
	for i := int64(0); ; i++ {
		okA, okB := ia.NextRecord(), ib.NextRecord()
		if err := errors.Join(ia.Err(), ib.Err()); err != nil {
			return false, err
		}
		if !okA && !okB {
			return true, nil
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
		d.RecordIndex = &i
		d.RecordA, d.RecordB = jsonRecord(ra), jsonRecord(rb)
		return false, nil
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

func strPtr(b []byte) *string {
	if b == nil {
		return nil
	}
	s := string(b)
	return &s
}

func jsonRecord(r *segment.Record) *diffRecord {
	if r == nil {
		return nil
	}
	out := &diffRecord{Offset: r.Offset, Key: strPtr(r.Key), Value: strPtr(r.Value)}
	if len(r.Headers) > 0 {
		out.Headers = map[string]string{}
		out.hdrs = make([]diffHeader, 0, len(r.Headers))
		for _, h := range r.Headers {
			out.Headers[string(h.Key)] = string(h.Value)
			out.hdrs = append(out.hdrs, diffHeader{string(h.Key), strPtr(h.Value)})
		}
	}
	return out
}

func showBytes(p *string) string {
	if p == nil {
		return "null"
	}
	s := *p
	if len(s) > 60 {
		s = s[:60] + "..."
	}
	return strconv.Quote(s)
}

func printDiff(w io.Writer, doc *diffDoc, records bool) error {
	for i, p := range doc.Partitions {
		if i > 0 {
			fmt.Fprintln(w)
		}
		fmt.Fprintf(w, "== %s\n", p.Partition)
		tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
		col := func(s *diffSide, f func(*diffSide) string) string {
			if s == nil {
				return "(absent)"
			}
			return f(s)
		}
		fmt.Fprintf(tw, "\tA\tB\n")
		fmt.Fprintf(tw, "path\t%s\t%s\n", col(p.A, func(s *diffSide) string { return s.Path }), col(p.B, func(s *diffSide) string { return s.Path }))
		fmt.Fprintf(tw, "batches\t%s\t%s\n", col(p.A, func(s *diffSide) string { return strconv.FormatInt(s.Batches, 10) }), col(p.B, func(s *diffSide) string { return strconv.FormatInt(s.Batches, 10) }))
		fmt.Fprintf(tw, "records\t%s\t%s\n", col(p.A, func(s *diffSide) string { return strconv.FormatInt(s.Records, 10) }), col(p.B, func(s *diffSide) string { return strconv.FormatInt(s.Records, 10) }))
		fmt.Fprintf(tw, "histogram\t%s\t%s\n", col(p.A, func(s *diffSide) string { return s.Histogram }), col(p.B, func(s *diffSide) string { return s.Histogram }))
		// The histograms side by side, one row per record count.
		keys := map[int]bool{}
		for _, s := range []*diffSide{p.A, p.B} {
			if s != nil {
				for k := range s.RecordsPerBatch {
					n, _ := strconv.Atoi(k)
					keys[n] = true
				}
			}
		}
		ks := slices.Sorted(maps.Keys(keys))
		slices.Reverse(ks)
		for _, k := range ks {
			get := func(s *diffSide) string {
				if s == nil {
					return "-"
				}
				return strconv.Itoa(s.RecordsPerBatch[strconv.Itoa(k)])
			}
			fmt.Fprintf(tw, "  %d records/batch\t%s\t%s\n", k, get(p.A), get(p.B))
		}
		if err := tw.Flush(); err != nil {
			return err
		}
		switch {
		case p.A == nil || p.B == nil:
			fmt.Fprintln(w, "layout: differs (partition on one side only)")
		case p.LayoutEqual:
			fmt.Fprintln(w, "layout: equal")
		default:
			fmt.Fprintf(w, "layout: differs from batch #%d: A %s, B %s\n", firstIndex(p.FirstBatchA, p.FirstBatchB), batchText(p.FirstBatchA), batchText(p.FirstBatchB))
		}
		if records && p.RecordsEq != nil {
			if *p.RecordsEq {
				fmt.Fprintln(w, "records: equal")
			} else {
				fmt.Fprintf(w, "records: differ from record #%d: A %s, B %s\n", *p.RecordIndex, recordText(p.RecordA), recordText(p.RecordB))
			}
		}
	}
	if len(doc.Partitions) > 0 {
		fmt.Fprintln(w)
	}
	if doc.Equal {
		fmt.Fprintln(w, "equal")
	} else {
		fmt.Fprintln(w, "differ")
	}
	return nil
}

func firstIndex(a, b *diffBatch) int64 {
	if a != nil {
		return a.Index
	}
	return b.Index
}

func batchText(b *diffBatch) string {
	if b == nil {
		return "(no more batches)"
	}
	return fmt.Sprintf("offsets %d..%d (%d records)", b.BaseOffset, b.LastOffset, b.Records)
}

func recordText(r *diffRecord) string {
	if r == nil {
		return "(no more records)"
	}
	s := fmt.Sprintf("offset %d key %s value %s", r.Offset, showBytes(r.Key), showBytes(r.Value))
	if len(r.hdrs) > 0 {
		s += " headers " + headersText(r.hdrs, maxShownHeaders)
	}
	return s
}

// maxShownHeaders bounds the headers recordText lists per record.
const maxShownHeaders = 10

// headersText lists headers in record order as ["k"="v", "k2"=null], at
// most max of them, each key and value quoted and cut like showBytes.
func headersText(hs []diffHeader, max int) string {
	var b strings.Builder
	b.WriteByte('[')
	for i, h := range hs {
		if i > 0 {
			b.WriteString(", ")
		}
		if i == max {
			fmt.Fprintf(&b, "(+%d more)", len(hs)-max)
			break
		}
		b.WriteString(showBytes(&h.key))
		b.WriteByte('=')
		b.WriteString(showBytes(h.value))
	}
	b.WriteByte(']')
	return b.String()
}
