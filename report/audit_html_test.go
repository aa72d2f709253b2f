package report

import (
	"strings"
	"testing"

	"github.com/kseg/kseg/internal/audit"
)

// The audit summary of a partition is a two-column table, one figure a
// row, so it fits the partition's cell: seven columns side by side were
// clipped ("compac").
func TestAuditSummaryFits(t *testing.T) {
	r := &audit.Result{}
	r.Summary.Producers, r.Summary.Compacted = 2, true
	var sb strings.Builder
	auditTables(&sb, &PartitionData{Name: "t-0", Audit: r})
	out := sb.String()
	table, _, _ := strings.Cut(out, "</table>")
	for _, row := range strings.Split(table, "</tr>") {
		if n := strings.Count(row, "<td") + strings.Count(row, "<th"); row != "" && n > 2 {
			t.Errorf("a row of %d cells: %s", n, row)
		}
	}
	for _, want := range []string{"<td>producers</td><td class=n>2</td>", "<td>compacted</td><td>yes</td>"} {
		if !strings.Contains(table, want) {
			t.Errorf("no %q in\n%s", want, table)
		}
	}
}
