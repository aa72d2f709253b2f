package cmd

import (
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

var updateReplicas = flag.Bool("update-replicas", false, "rewrite cmd/testdata/replicas/*.golden")

// The copies under testdata/replicas were written by a real Kafka 4.4.0
// cluster (oracle/regen/replicas.sh). The goldens are kseg's own output,
// guarding the rendering; what the output must say is checked against
// Kafka's truth in internal/replicas (TestUncleanMatchesKafka) and live in
// CI (oracle/ci/replicas.sh).
func TestReplicasCLI(t *testing.T) {
	fx := "../testdata/replicas/"
	three := func(pre, suf string) []string {
		return []string{fx + pre + "/n1" + suf, fx + pre + "/n2" + suf, fx + pre + "/n3" + suf}
	}
	for _, tc := range []struct {
		name string
		args []string
		code ExitCode
	}{
		{"unclean-before", three("unclean/before", "/rep-0"), ExitFindings},
		{"unclean-after", three("unclean/after", "/rep-0"), ExitOK},
		{"clean", three("clean", ""), ExitOK},
		{"restore", three("restore", ""), ExitOK},
		{"retention", three("retention", ""), ExitOK},
	} {
		for _, format := range []string{"text", "json"} {
			t.Run(tc.name+"-"+format, func(t *testing.T) {
				args := append([]string{"replicas", "--format", format}, tc.args...)
				out, errOut, code := runKseg(t, args...)
				if code != tc.code {
					t.Fatalf("exit %d, want %d\n%s%s", code, tc.code, out, errOut)
				}
				ext := ".txt"
				if format == "json" {
					ext = ".ndjson"
					for _, l := range strings.Split(strings.TrimSpace(out), "\n") {
						var m map[string]any
						if err := json.Unmarshal([]byte(l), &m); err != nil || m["type"] == nil {
							t.Fatalf("not an NDJSON line with a type: %s (%v)", l, err)
						}
					}
				}
				golden := filepath.Join("testdata", "replicas", tc.name+ext)
				if *updateReplicas {
					os.MkdirAll(filepath.Dir(golden), 0o755)
					if err := os.WriteFile(golden, []byte(out), 0o644); err != nil {
						t.Fatal(err)
					}
				}
				want, err := os.ReadFile(golden)
				if err != nil {
					t.Fatalf("%v (run with -update-replicas)", err)
				}
				if out != string(want) {
					t.Errorf("output differs from %s:\n%s", golden, out)
				}
			})
		}
	}
}

// TestReplicasOnlyOnAreTheVanished: the NDJSON only_on lines of the old
// leader against the unclean leader are the batches missing from its copy
// after it rejoined (as kseg replicas itself lists the old leader's copy
// before against after, its own truncation).
func TestReplicasOnlyOnAreTheVanished(t *testing.T) {
	fx := "../testdata/replicas/unclean/"
	lines := func(args ...string) []map[string]any {
		out, errOut, _ := runKseg(t, append([]string{"replicas", "--json"}, args...)...)
		if errOut != "" {
			t.Fatal(errOut)
		}
		var ms []map[string]any
		for _, l := range strings.Split(strings.TrimSpace(out), "\n") {
			var m map[string]any
			json.Unmarshal([]byte(l), &m)
			ms = append(ms, m)
		}
		return ms
	}
	onlyOn := func(ms []map[string]any, copy string) (runs []string) {
		for _, m := range ms {
			if m["type"] == "only_on" && m["copy"] == copy {
				b, _ := json.Marshal([]any{m["first_offset"], m["last_offset"], m["epoch"], m["producer_id"], m["records"], m["batches"]})
				runs = append(runs, string(b))
			}
		}
		return runs
	}
	n1 := fx + "before/n1/rep-0"
	vsLeader := onlyOn(lines(n1, fx+"before/n3/rep-0"), n1)
	vanished := onlyOn(lines(n1, fx+"after/n1/rep-0"), n1)
	if len(vsLeader) == 0 || strings.Join(vsLeader, " ") != strings.Join(vanished, " ") {
		t.Fatalf("only on n1 against the unclean leader: %v; vanished from n1: %v", vsLeader, vanished)
	}
}

func TestReplicasUsage(t *testing.T) {
	fx := "../testdata/replicas/"
	for _, tc := range []struct {
		args []string
		code ExitCode
		msg  string
	}{
		{[]string{"replicas"}, ExitUsage, "replicas needs"},
		{[]string{"replicas", fx + "clean/n1"}, ExitUsage, "only one copy"},
		{[]string{"replicas", fx + "clean/n1", fx + "nope"}, ExitBadInput, "nope"},
		{[]string{"replicas", "--format", "xml", fx + "clean/n1", fx + "clean/n2"}, ExitUsage, "xml"},
		{[]string{"replicas", "--from", "5", fx + "clean/n1", fx + "clean/n2"}, ExitUsage, "--from and --to do not apply"},
	} {
		_, errOut, code := runKseg(t, tc.args...)
		if code != tc.code || !strings.Contains(errOut, tc.msg) {
			t.Errorf("%v: exit %d, %q; want %d with %q", tc.args, code, errOut, tc.code, tc.msg)
		}
	}
}

// Log directories of brokers holding different partitions: the shared ones
// are compared, the others named on stderr.
func TestReplicasLogDirs(t *testing.T) {
	fx := "../testdata/replicas/"
	d1, d2 := t.TempDir(), t.TempDir()
	for _, c := range [][2]string{{fx + "clean/n1/clean-0", d1}, {fx + "restore/n1/restore-0", d1}, {fx + "clean/n2/clean-0", d2}} {
		if err := os.CopyFS(filepath.Join(c[1], filepath.Base(c[0])), os.DirFS(c[0])); err != nil {
			t.Fatal(err)
		}
	}
	out, errOut, code := runKseg(t, "replicas", d1, d2)
	if code != ExitOK || !strings.Contains(out, "partition clean-0: 2 copies") || strings.Contains(out, "restore-0") ||
		!strings.Contains(errOut, "partition restore-0 has one copy") {
		t.Fatalf("exit %d\n%s%s", code, out, errOut)
	}
}
