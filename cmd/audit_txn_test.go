package cmd

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/kseg/kseg/internal/audit"
	"github.com/kseg/kseg/internal/collect"
	"github.com/kseg/kseg/segment"
)

// fakeCoordinators answers for every partition as a cluster that knows
// none of its producers' transactions, at a fixed time.
type fakeCoordinators struct{ asked []string }

func (f *fakeCoordinators) Transactions(_ context.Context, dir string, _ []int64) (audit.TxnView, bool, error) {
	f.asked = append(f.asked, dir)
	return audit.TxnView{Topic: "txn", Partition: 0, Now: time.UnixMilli(1_900_000_000_000),
		Leader: map[int64]audit.LeaderProducer{16: {LastTimestamp: 1_795_976_788_826}}}, true, nil
}

// openTxnDir is the oracle's txn-0 log cut before its last COMMIT marker:
// producer 16's last transaction is open.
func openTxnDir(t *testing.T) string {
	t.Helper()
	b, err := os.ReadFile("../testdata/segments/txn/txn-0/00000000000000000000.log")
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(t.TempDir(), "txn-0")
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "00000000000000000000.log"), b[:1172], 0o644); err != nil {
		t.Fatal(err)
	}
	return dir
}

// The HTML report's audit and kseg audit ask the same coordinators and
// show the same txn-* findings.
func TestReportAndAuditJudgeTransactionsAlike(t *testing.T) {
	dir := openTxnDir(t)
	type finding struct{ Code, Severity, Message string }
	txnFindings := func(fs []finding) []string {
		var out []string
		for _, f := range fs {
			if f.Code == string(audit.TxnUnknownToCoordinator) || f.Code == string(audit.TxnPastTimeout) {
				out = append(out, f.Code+" "+f.Severity+" "+f.Message)
			}
		}
		sort.Strings(out)
		return out
	}

	auditCoord := &fakeCoordinators{}
	var out bytes.Buffer
	err := runAudit(segment.Partitions, auditCoord, []string{dir}, audit.Options{}, 1, true, audit.Error+1, &out)
	if err != nil {
		t.Fatal(err)
	}
	var fromAudit, fromReport []finding
	for _, line := range strings.Split(strings.TrimSpace(out.String()), "\n") {
		var f finding
		if err := json.Unmarshal([]byte(line), &f); err != nil {
			t.Fatalf("%v: %s", err, line)
		}
		fromAudit = append(fromAudit, f)
	}

	reportCoord := &fakeCoordinators{}
	runs, err := collect.ResolveRuns([]string{dir})
	if err != nil {
		t.Fatal(err)
	}
	if err := collect.Runs(runs, collect.Options{Audit: true, Walk: segment.Partitions, Coordinators: reportCoord}); err != nil {
		t.Fatal(err)
	}
	pd := runs[0].Partitions[0]
	if pd.AuditErr != "" {
		t.Fatal(pd.AuditErr)
	}

	for _, f := range pd.Audit.Findings {
		fromReport = append(fromReport, finding{string(f.Code), f.Severity.String(), f.Message})
	}
	a, r := txnFindings(fromAudit), txnFindings(fromReport)
	if len(a) != 2 || strings.Join(a, "\n") != strings.Join(r, "\n") {
		t.Fatalf("kseg audit's txn findings:\n%s\nthe report's:\n%s", strings.Join(a, "\n"), strings.Join(r, "\n"))
	}
	if len(auditCoord.asked) != 1 || len(reportCoord.asked) != 1 || auditCoord.asked[0] != reportCoord.asked[0] {
		t.Fatalf("coordinators asked about %v (audit) and %v (report)", auditCoord.asked, reportCoord.asked)
	}
}
