package report

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/kseg/kseg/internal/audit"
)

// AuditText writes kseg audit's text, one summary row per partition, then
// the findings of each partition, one line each; it is handed one
// partition at a time. The table of summaries comes first, so the finding
// lines wait in held until Flush writes the table and them.
type AuditText struct {
	w     io.Writer
	style TableStyle
	t     plainTable
	body  Held
	bw    *bufio.Writer // on body, made once: a 64 KiB buffer per partition was most of the allocation at 10,000
}

// Held keeps the finding lines until the table is written: the caller
// chooses where they wait (kseg audit: memory up to a limit, then a
// temporary file it removes), so the renderer opens no file.
type Held interface {
	io.Writer
	io.WriterTo
}

// NewAuditText starts an audit's text output to w, holding the finding
// lines in held; the table is drawn in style.
func NewAuditText(w io.Writer, held Held, style TableStyle) *AuditText {
	header := []string{"partition", "segments", "batches", "producers", "committed", "aborted", "open", "compacted", "findings"}
	return &AuditText{w: w, style: style, t: plainTable{header: header}, body: held, bw: bufio.NewWriterSize(held, 64<<10)}
}

// Add adds a partition: its row and its finding lines.
func (a *AuditText) Add(r *audit.Result) error {
	s := &r.Summary
	compacted := "no"
	if s.Compacted {
		compacted = "yes"
	}
	a.t.rows = append(a.t.rows, []string{s.Partition, strconv.Itoa(s.Segments), strconv.FormatInt(s.Batches, 10),
		strconv.Itoa(s.Producers), strconv.FormatInt(s.Committed, 10), strconv.FormatInt(s.Aborted, 10),
		strconv.FormatInt(s.Open, 10), compacted, findingCounts(s.Findings)})
	w := a.bw
	if s.Compacted {
		fmt.Fprintf(w, "%s: compacted (%s)\n", s.Partition, s.CompactedReason)
	}
	// w's first error sticks: Flush returns it.
	err := r.Each(func(f *audit.Finding) error {
		w.WriteString(findingLine(f))
		w.WriteByte('\n')
		for j := range f.Batches {
			w.WriteString(batchDetailLine(&f.Batches[j]))
			w.WriteByte('\n')
		}
		return nil
	})
	if err != nil {
		return err
	}
	return w.Flush()
}

// Flush writes the table, then every partition's finding lines.
func (a *AuditText) Flush() error {
	if err := renderTable(a.w, a.style, &a.t); err != nil {
		return err
	}
	_, err := a.body.WriteTo(a.w)
	return err
}

// batchDetailLine is one batch of a finding over several (audit --detail),
// indented under it: file@position offsets first..last: message
func batchDetailLine(d *audit.BatchDetail) string {
	return fmt.Sprintf("        %s@%d offsets %d..%d: %s", d.File, d.Position, d.FirstOffset, d.LastOffset, d.Message)
}

// findingCounts renders "code=n, ..." in code order, or "-".
func findingCounts(m map[audit.Code]int) string {
	var parts []string
	for _, c := range audit.Codes {
		if n := m[c]; n > 0 {
			parts = append(parts, fmt.Sprintf("%s=%d", c, n))
		}
	}
	if len(parts) == 0 {
		return "-"
	}
	return strings.Join(parts, ", ")
}

// findingLine is one finding as a line of text:
// SEVERITY code partition file@position: message
// A finding over several batches shows where the last one is too:
// file@first..last, or file@first..lastfile@last across segments.
func findingLine(f *audit.Finding) string {
	loc := fmt.Sprintf("%s@%d", f.File, f.Position)
	if f.BatchCount > 1 {
		switch {
		case f.LastFile != "" && f.LastFile != f.File:
			loc += fmt.Sprintf("..%s@%d", f.LastFile, f.LastPosition)
		case f.LastPosition != f.Position:
			loc += fmt.Sprintf("..%d", f.LastPosition)
		}
	}
	return fmt.Sprintf("%-7s %s %s %s: %s", strings.ToUpper(f.Severity.String()), f.Code, f.Partition, loc, f.Message)
}

// auditFindingJSON and auditSummaryJSON fix the NDJSON schema: a "type"
// field first, then the fields of audit.Finding / audit.Summary.
type auditFindingJSON struct {
	Type string `json:"type"`
	*audit.Finding
}

type auditSummaryJSON struct {
	Type string `json:"type"`
	*audit.Summary
	Findings   map[audit.Code]int `json:"findings"`
	BySeverity map[string]int     `json:"findings_by_severity"`
}

// AuditJSONPartition writes one partition of kseg audit's NDJSON: one
// {"type":"finding",...} line per finding, then one {"type":"summary",...}
// line.
func AuditJSONPartition(w io.Writer, r *audit.Result) error {
	enc := json.NewEncoder(w)
	err := r.Each(func(f *audit.Finding) error {
		return enc.Encode(auditFindingJSON{Type: "finding", Finding: f})
	})
	if err != nil {
		return err
	}
	s := auditSummaryJSON{Type: "summary", Summary: &r.Summary, Findings: map[audit.Code]int{}, BySeverity: map[string]int{}}
	for c, n := range r.Summary.Findings {
		s.Findings[c] = n
	}
	for k, n := range r.Summary.BySeverity {
		s.BySeverity[k] = n
	}
	return enc.Encode(s)
}
