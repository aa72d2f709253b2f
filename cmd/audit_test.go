package cmd

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestAuditExitCodes drives kseg audit over a clean log and one with an
// injected duplicate: --fail-on decides the exit status.
func TestAuditExitCodes(t *testing.T) {
	root := t.TempDir()
	clean, dup := filepath.Join(root, "clean"), filepath.Join(root, "dup")
	for _, a := range [][]string{
		{"produce", "--out", clean, "--records", "500", "--batch-size", "1024"},
		{"produce", "--out", dup, "--records", "500", "--batch-size", "1024", "--inject", "duplicate@3"},
	} {
		if _, stderr, code := runKseg(t, a...); code != 0 {
			t.Fatalf("%v: %s", a, stderr)
		}
	}
	tests := []struct {
		args []string
		code ExitCode
	}{
		{[]string{"audit", clean}, ExitOK},
		{[]string{"audit", "--fail-on", "info", clean}, ExitOK},
		{[]string{"audit", dup}, ExitFindings},
		{[]string{"audit", "--fail-on", "error", dup}, ExitFindings},
		{[]string{"audit", "--json", dup}, ExitFindings},
		{[]string{"audit"}, ExitUsage},
		{[]string{"audit", "--fail-on", "fatal", clean}, ExitUsage},
		{[]string{"audit", "--no-such-flag", clean}, ExitUsage},
		{[]string{"audit", filepath.Join(root, "missing")}, ExitBadInput},
	}
	for _, tt := range tests {
		stdout, stderr, code := runKseg(t, tt.args...)
		if code != tt.code {
			t.Errorf("%v: exit %d, want %d\n%s%s", tt.args, code, tt.code, stdout, stderr)
		}
	}
	stdout, _, _ := runKseg(t, "audit", dup)
	if !strings.Contains(stdout, "duplicate-sequence=1") || !strings.Contains(stdout, "ERROR   duplicate-sequence kseg-ref-0 ") {
		t.Errorf("table output:\n%s", stdout)
	}
}

// TestAuditJSONSchema checks the NDJSON lines: findings first, then one
// summary per partition, with the documented snake_case keys.
func TestAuditJSONSchema(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "gap")
	if _, stderr, code := runKseg(t, "produce", "--out", dir, "--records", "500", "--batch-size", "1024", "--partitions", "2", "--inject", "gap@4"); code != 0 {
		t.Fatal(stderr)
	}
	stdout, _, code := runKseg(t, "audit", "--json", dir)
	if code != ExitFindings {
		t.Fatalf("exit %d", code)
	}
	lines := strings.Split(strings.TrimSpace(stdout), "\n")
	findingKeys := []string{"type", "code", "severity", "partition", "producer_id", "producer_epoch", "file", "position",
		"last_file", "last_position", "first_offset", "last_offset", "related_offset", "base_sequence", "last_sequence",
		"count", "batch_count", "message"}
	summaryKeys := []string{"type", "partition", "dir", "segments", "batches", "records", "log_start_offset", "log_end_offset",
		"producers", "idempotent_batches", "non_idempotent_batches", "transactions_committed", "transactions_aborted",
		"transactions_open", "compacted", "txnindexes", "snapshots", "findings", "findings_by_severity"}
	var kinds []string
	for _, l := range lines {
		var m map[string]any
		if err := json.Unmarshal([]byte(l), &m); err != nil {
			t.Fatalf("%q: %v", l, err)
		}
		kind, _ := m["type"].(string)
		kinds = append(kinds, kind)
		keys := summaryKeys
		if kind == "finding" {
			keys = findingKeys
			if m["code"] != "sequence-gap" || m["severity"] != "error" {
				t.Errorf("finding %v", m)
			}
		}
		for _, k := range keys {
			if _, ok := m[k]; !ok {
				t.Errorf("%s line lacks %q: %s", kind, k, l)
			}
		}
	}
	if got := strings.Join(kinds, ","); got != "summary,finding,summary" && got != "finding,summary,summary" {
		t.Errorf("line kinds %s", got)
	}
}

// TestAuditDetail: a restored copy of a segment beside the original is
// one segment-overlap finding; --detail lists its batches, in the table
// and as a "batches" array in JSON, and only then.
func TestAuditDetail(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "logs")
	if _, stderr, code := runKseg(t, "produce", "--out", dir, "--records", "500", "--batch-size", "1024"); code != 0 {
		t.Fatal(stderr)
	}
	part := filepath.Join(dir, "kseg-ref-0")
	b, err := os.ReadFile(filepath.Join(part, "00000000000000000000.log"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(part, "00000000000000000005.log"), b, 0o644); err != nil {
		t.Fatal(err)
	}
	finding := func(args ...string) map[string]any {
		stdout, _, code := runKseg(t, append([]string{"audit", "--json"}, args...)...)
		if code != ExitFindings {
			t.Fatalf("exit %d:\n%s", code, stdout)
		}
		lines := strings.Split(strings.TrimSpace(stdout), "\n")
		if len(lines) != 2 {
			t.Fatalf("want one finding and a summary:\n%s", stdout)
		}
		var m map[string]any
		if err := json.Unmarshal([]byte(lines[0]), &m); err != nil {
			t.Fatal(err)
		}
		if m["code"] != "segment-overlap" || m["severity"] != "error" {
			t.Fatalf("finding %v", m)
		}
		return m
	}
	if m := finding(part); m["batches"] != nil {
		t.Errorf("batches without --detail: %v", m["batches"])
	}
	m := finding("--detail", part)
	n, _ := m["batch_count"].(float64)
	if bs, _ := m["batches"].([]any); n < 2 || len(bs) != int(n) {
		t.Errorf("batch_count %v, %d batches listed", m["batch_count"], len(bs))
	}
	stdout, _, _ := runKseg(t, "audit", "--detail", part)
	if got := strings.Count(stdout, "\n        "+filepath.Join(part, "00000000000000000005.log")+"@"); got != int(n) {
		t.Errorf("%d detail lines, want %v:\n%s", got, n, stdout)
	}
}
