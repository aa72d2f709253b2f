package report

import (
	"bytes"
	"fmt"
	"io"
	"strings"
	"testing"

	"github.com/kseg/kseg/internal/audit"
	"github.com/kseg/kseg/internal/spill"
)

// TestAuditTextSpills: AuditText writes the table of every partition
// first, then each partition's compacted line and finding lines in
// partition order, also when the lines went past the memory limit into
// the temporary file.
func TestAuditTextSpills(t *testing.T) {
	var results []*audit.Result
	var lines []string
	for p := range 3 {
		r := &audit.Result{Summary: audit.Summary{Partition: fmt.Sprintf("t-%d", p), Findings: map[audit.Code]int{}, BySeverity: map[string]int{}}}
		if p == 1 {
			r.Summary.Compacted, r.Summary.CompactedReason = true, "--compacted given"
			lines = append(lines, "t-1: compacted (--compacted given)")
		}
		for i := range 4000 * p {
			f := audit.Finding{Code: audit.SequenceGap, Severity: audit.Error, Partition: r.Summary.Partition, File: "/data/" + r.Summary.Partition + "/00000000000000000000.log",
				Position: int64(i), BatchCount: 1, Message: strings.Repeat("m", 200) + fmt.Sprint(i)}
			r.Findings = append(r.Findings, f)
			lines = append(lines, findingLine(&f))
		}
		r.Summary.Findings[audit.SequenceGap] = len(r.Findings)
		results = append(results, r)
	}
	var out bytes.Buffer
	held := spill.New(1 << 20)
	defer held.Close()
	at := NewAuditText(&out, held, Boxes)
	for _, r := range results {
		if err := at.Add(r); err != nil {
			t.Fatal(err)
		}
	}
	if !held.Spilled() {
		t.Fatalf("%d bytes of lines stayed in memory", held.Size())
	}
	if out.Len() != 0 {
		t.Fatalf("%d bytes written before the table", out.Len())
	}
	if err := at.Flush(); err != nil {
		t.Fatal(err)
	}
	got := out.String()
	table, body, ok := strings.Cut(got, "┘\n")
	if !ok || !strings.Contains(table, "t-0") || !strings.Contains(table, "sequence-gap=8000") {
		t.Fatalf("table:\n%s", table)
	}
	if body != strings.Join(lines, "\n")+"\n" {
		t.Errorf("finding lines differ: %d bytes, want %d", len(body), len(strings.Join(lines, "\n"))+1)
	}
	var again bytes.Buffer
	if err := auditTable(&again, results); err != nil || again.String() != got {
		t.Errorf("a second AuditText differs from the first (%v)", err)
	}
}

// auditTable writes the results through one AuditText.
func auditTable(w io.Writer, results []*audit.Result) error {
	t := NewAuditText(w, new(bytes.Buffer), Boxes)
	for _, r := range results {
		if err := t.Add(r); err != nil {
			return err
		}
	}
	return t.Flush()
}
