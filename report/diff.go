package report

import (
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/kseg/kseg/internal/diff"
	"github.com/kseg/kseg/segment"
)

// diffDoc is kseg diff --json (the schema is documented in docs/json.md).
type diffDoc struct {
	Equal      bool            `json:"equal"`
	Partitions []diffPartition `json:"partitions"`
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
	Headers map[string]string `json:"headers,omitempty"` // a null value is ""; the last of a repeated key wins
}

// DiffJSON writes res as one JSON document.
func DiffJSON(w io.Writer, res *diff.Result) error {
	doc := diffDoc{Equal: res.Equal}
	for i := range res.Partitions {
		p := &res.Partitions[i]
		d := diffPartition{Partition: p.Name, A: jsonSide(p.A), B: jsonSide(p.B), LayoutEqual: p.LayoutEqual,
			FirstBatchA: jsonBatch(p.FirstBatchA), FirstBatchB: jsonBatch(p.FirstBatchB)}
		if p.RecordsCompared {
			d.RecordsEq = &p.RecordsEqual
			if !p.RecordsEqual {
				d.RecordIndex = &p.FirstRecord
				d.RecordA, d.RecordB = jsonRecord(p.RecordA), jsonRecord(p.RecordB)
			}
		}
		doc.Partitions = append(doc.Partitions, d)
	}
	return json.NewEncoder(w).Encode(doc)
}

func jsonSide(s *diff.Side) *diffSide {
	if s == nil {
		return nil
	}
	d := &diffSide{Path: s.Path, Batches: s.Batches, Records: s.Records, Histogram: segment.FormatHistogram(s.RecordsPerBatch), RecordsPerBatch: map[string]int{}}
	for k, v := range s.RecordsPerBatch {
		d.RecordsPerBatch[strconv.Itoa(k)] = v
	}
	return d
}

func jsonBatch(b *diff.Batch) *diffBatch {
	if b == nil {
		return nil
	}
	return &diffBatch{b.Index, b.BaseOffset, b.LastOffset, b.Records}
}

func strPtr(b []byte) *string {
	if b == nil {
		return nil
	}
	s := string(b)
	return &s
}

func jsonRecord(r *diff.Record) *diffRecord {
	if r == nil {
		return nil
	}
	out := &diffRecord{Offset: r.Offset, Key: strPtr(r.Key), Value: strPtr(r.Value)}
	if len(r.Headers) > 0 {
		out.Headers = map[string]string{}
		for _, h := range r.Headers {
			out.Headers[h.Key] = string(h.Value)
		}
	}
	return out
}

// DiffText writes res for people: per partition both sides' counts and
// histograms side by side, where the layouts (and records) first differ,
// then "equal" or "differ".
func DiffText(w io.Writer, res *diff.Result) error {
	for i, p := range res.Partitions {
		if i > 0 {
			fmt.Fprintln(w)
		}
		fmt.Fprintf(w, "== %s\n", p.Name)
		tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
		row := func(label string, f func(*diff.Side) string) {
			col := func(s *diff.Side) string {
				if s == nil {
					return "(absent)"
				}
				return f(s)
			}
			fmt.Fprintf(tw, "%s\t%s\t%s\n", label, col(p.A), col(p.B))
		}
		fmt.Fprintf(tw, "\tA\tB\n")
		row("path", func(s *diff.Side) string { return s.Path })
		row("batches", func(s *diff.Side) string { return strconv.FormatInt(s.Batches, 10) })
		row("records", func(s *diff.Side) string { return strconv.FormatInt(s.Records, 10) })
		row("histogram", func(s *diff.Side) string { return segment.FormatHistogram(s.RecordsPerBatch) })
		// The histograms side by side, one row per record count.
		keys := map[int]bool{}
		for _, s := range []*diff.Side{p.A, p.B} {
			if s != nil {
				for k := range s.RecordsPerBatch {
					keys[k] = true
				}
			}
		}
		ks := slices.Sorted(maps.Keys(keys))
		slices.Reverse(ks)
		for _, k := range ks {
			get := func(s *diff.Side) string {
				if s == nil {
					return "-"
				}
				return strconv.Itoa(s.RecordsPerBatch[k])
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
		if p.RecordsCompared {
			if p.RecordsEqual {
				fmt.Fprintln(w, "records: equal")
			} else {
				fmt.Fprintf(w, "records: differ from record #%d: A %s, B %s\n", p.FirstRecord, recordText(p.RecordA), recordText(p.RecordB))
			}
		}
	}
	if len(res.Partitions) > 0 {
		fmt.Fprintln(w)
	}
	if res.Equal {
		fmt.Fprintln(w, "equal")
	} else {
		fmt.Fprintln(w, "differ")
	}
	return nil
}

func firstIndex(a, b *diff.Batch) int64 {
	if a != nil {
		return a.Index
	}
	return b.Index
}

func batchText(b *diff.Batch) string {
	if b == nil {
		return "(no more batches)"
	}
	return fmt.Sprintf("offsets %d..%d (%d records)", b.BaseOffset, b.LastOffset, b.Records)
}

// showBytes is showString(b); nil is null.
func showBytes(b []byte) string {
	if b == nil {
		return "null"
	}
	return showString(string(b))
}

// showString quotes s cut at 60 bytes.
func showString(s string) string {
	if len(s) > 60 {
		s = s[:60] + "..."
	}
	return strconv.Quote(s)
}

func recordText(r *diff.Record) string {
	if r == nil {
		return "(no more records)"
	}
	s := fmt.Sprintf("offset %d key %s value %s", r.Offset, showBytes(r.Key), showBytes(r.Value))
	if len(r.Headers) > 0 {
		s += " headers " + headersText(r.Headers, maxShownHeaders)
	}
	return s
}

// maxShownHeaders bounds the headers recordText lists per record.
const maxShownHeaders = 10

// headersText lists headers in record order as ["k"="v", "k2"=null], at
// most max of them, each key and value quoted and cut like showBytes.
func headersText(hs []diff.Header, max int) string {
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
		b.WriteString(showString(h.Key))
		b.WriteByte('=')
		b.WriteString(showBytes(h.Value))
	}
	b.WriteByte(']')
	return b.String()
}
