package report

import (
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/kseg/kseg/audit"
	"github.com/olekukonko/tablewriter"
)

// AuditTable writes one summary row per partition, then the findings of
// each partition, one line each.
func AuditTable(w io.Writer, results []*audit.Result) error {
	t := tablewriter.NewWriter(w)
	t.Header("partition", "segments", "batches", "producers", "committed", "aborted", "open", "compacted", "findings")
	for _, r := range results {
		s := &r.Summary
		compacted := "no"
		if s.Compacted {
			compacted = "yes"
		}
		if err := t.Append(s.Partition, strconv.Itoa(s.Segments), strconv.FormatInt(s.Batches, 10),
			strconv.Itoa(s.Producers), strconv.FormatInt(s.Committed, 10), strconv.FormatInt(s.Aborted, 10),
			strconv.FormatInt(s.Open, 10), compacted, findingCounts(s.Findings)); err != nil {
			return err
		}
	}
	if err := t.Render(); err != nil {
		return err
	}
	for _, r := range results {
		if r.Summary.Compacted {
			if _, err := fmt.Fprintf(w, "%s: compacted (%s)\n", r.Summary.Partition, r.Summary.CompactedReason); err != nil {
				return err
			}
		}
		for i := range r.Findings {
			f := &r.Findings[i]
			if _, err := fmt.Fprintln(w, FindingLine(f)); err != nil {
				return err
			}
			for j := range f.Batches {
				if _, err := fmt.Fprintln(w, batchDetailLine(&f.Batches[j])); err != nil {
					return err
				}
			}
		}
	}
	return nil
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

// FindingLine is one finding as a line of text:
// SEVERITY code partition file@position: message
// A finding over several batches shows where the last one is too:
// file@first..last, or file@first..lastfile@last across segments.
func FindingLine(f *audit.Finding) string {
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

// AuditJSON writes NDJSON: per partition, one {"type":"finding",...} line
// per finding, then one {"type":"summary",...} line.
func AuditJSON(w io.Writer, results []*audit.Result) error {
	enc := json.NewEncoder(w)
	for _, r := range results {
		for i := range r.Findings {
			if err := enc.Encode(auditFindingJSON{Type: "finding", Finding: &r.Findings[i]}); err != nil {
				return err
			}
		}
		s := auditSummaryJSON{Type: "summary", Summary: &r.Summary, Findings: map[audit.Code]int{}, BySeverity: map[string]int{}}
		for c, n := range r.Summary.Findings {
			s.Findings[c] = n
		}
		for k, n := range r.Summary.BySeverity {
			s.BySeverity[k] = n
		}
		if err := enc.Encode(s); err != nil {
			return err
		}
	}
	return nil
}
