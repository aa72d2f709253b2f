package cmd

import (
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// kseg report --whatif draws, per topic, the log, the replay under the
// original settings and one band per setting, with the same numbers as
// kseg whatif --json; longer linger.ms puts fewer batches in the band.
func TestReportWhatif(t *testing.T) {
	root := modRoot(t)
	log := filepath.Join(root, "testdata", "explain-oracle", "e-none-l5-i200")
	out := filepath.Join(t.TempDir(), "whatif.html")
	stdout, stderr, code := runKseg(t, "report", "-q", "--no-audit", "--was", "linger.ms=5", "--whatif", "linger.ms=20", "--whatif", "linger.ms=100,batch.size=65536", "--whatif-runs", "40", "--out", out, log)
	if code != 0 {
		t.Fatalf("exit %d: %s%s", code, stdout, stderr)
	}
	b, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	page := string(b)
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
		_, stderr, code := runKseg(t, append(args, log)...)
		if code != ExitUsage || !strings.Contains(stderr, tc.want) {
			t.Errorf("%q: exit %d, stderr %q; want exit 2 naming %q", tc.args, code, stderr, tc.want)
		}
	}
}
