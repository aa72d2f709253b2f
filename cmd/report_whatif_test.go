package cmd

import (
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// reportWhatifPage runs kseg report on testdata/explain-oracle/name with
// args and returns the page.
func reportWhatifPage(t *testing.T, name string, args ...string) string {
	t.Helper()
	out := filepath.Join(t.TempDir(), "whatif.html")
	log := filepath.Join(modRoot(t), "testdata", "explain-oracle", name)
	args = append(append([]string{"report", "-q", "--no-audit"}, args...), "--out", out, log)
	stdout, stderr, code := runKseg(t, args...)
	if code != 0 {
		t.Fatalf("exit %d: %s%s", code, stdout, stderr)
	}
	b, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// Original settings that are not the log's: the page warns above the
// chart, as kseg whatif does, and its self-check is the replay's.
func TestReportWhatifSelfCheckWarning(t *testing.T) {
	page := reportWhatifPage(t, "e-s3-b4096-l5-i200", "--was", "linger.ms=5", "--was", "batch.size=1024", "--whatif", "linger.ms=20", "--whatif-runs", "20")
	if !strings.Contains(page, `<p class="sev-warning">warning: the replay misses the log&#39;s own batch count`) {
		t.Errorf("no self-check warning on the page")
	}
	m := regexp.MustCompile(`self-check ([+-]\d+\.\d)% batches`).FindStringSubmatch(page)
	if m == nil || m[1] == "+0.0" || m[1] == "-0.0" {
		t.Errorf("self-check %v: want the replay's miss, not the fit's", m)
	}
}

// kseg report --whatif draws, per topic, the log, the replay under the
// original settings and one band per setting, with the same numbers as
// kseg whatif --json; longer linger.ms puts fewer batches in the band.
func TestReportWhatif(t *testing.T) {
	page := reportWhatifPage(t, "e-none-l5-i200", "--was", "linger.ms=5", "--whatif", "linger.ms=20", "--whatif", "linger.ms=100,batch.size=65536", "--whatif-runs", "40")
	if !strings.Contains(page, `data-whatif="e-none-l5-i200"`) || !strings.Contains(page, `data-chart="whatif"`) {
		t.Fatal("no what-if section")
	}
	// the table rows: settings, p50 batches
	rows := regexp.MustCompile(`<tr><td>([^<]+)</td><td class=n>(\d+)</td>`).FindAllStringSubmatch(page, -1)
	p50 := map[string]int{}
	for _, r := range rows {
		n, _ := strconv.Atoi(r[2])
		p50[r[1]] = n
	}
	if strings.Contains(page, "warning: the replay misses") {
		t.Errorf("the log's own settings, yet a self-check warning")
	}
	if p50["the log"] != 25 {
		t.Errorf("the log: %d batches, want 25 (%v)", p50["the log"], p50)
	}
	a, b2 := p50["linger.ms=20"], p50["linger.ms=100,batch.size=65536"]
	if a == 0 || b2 == 0 || b2 >= a || a >= 25 {
		t.Errorf("bands: linger.ms=20 %d, linger.ms=100 %d; want fewer batches the longer linger.ms, both under the log's 25 (%v)", a, b2, p50)
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--was", "linger.ms=5"}, "--was needs --whatif"},
		{[]string{"--whatif", "linger.ms=soon"}, `linger.ms="soon"`},
		{[]string{"--whatif", "linger.ms"}, "KEY=VALUE"},
		{[]string{"--whatif", "linger.ms=20", "--whatif-runs", "0"}, "--whatif-runs"},
	} {
		args := append([]string{"report", "-q", "--out", filepath.Join(t.TempDir(), "x.html")}, tc.args...)
		_, stderr, code := runKseg(t, append(args, filepath.Join(modRoot(t), "testdata", "explain-oracle", "e-none-l5-i200"))...)
		if code != ExitUsage || !strings.Contains(stderr, tc.want) {
			t.Errorf("%q: exit %d, stderr %q; want exit 2 naming %q", tc.args, code, stderr, tc.want)
		}
	}
}
