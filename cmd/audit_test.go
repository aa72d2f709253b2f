package cmd

import (
	"encoding/json"
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
		code int
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
