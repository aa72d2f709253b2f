package cmd

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/kseg/kseg/report"
)

// cells splits a report page (source or browser DOM) into its partition
// cells, keyed by "run/partition"; each value is the cell's markup.
func cells(t *testing.T, page string) map[string]string {
	t.Helper()
	re := regexp.MustCompile(`<div class="cell" data-run="([^"]*)" data-partition="([^"]*)">`)
	idx := re.FindAllStringSubmatchIndex(page, -1)
	out := map[string]string{}
	for i, m := range idx {
		end := len(page)
		if i+1 < len(idx) {
			end = idx[i+1][0]
		}
		out[page[m[2]:m[3]]+"/"+page[m[4]:m[5]]] = page[m[0]:end]
	}
	return out
}

// chart returns the markup of the cell's <svg data-chart=kind>.
func chart(cell, kind string) string {
	i := strings.Index(cell, `data-chart="`+kind+`"`)
	if i < 0 {
		return ""
	}
	j := strings.Index(cell[i:], "</svg>")
	if j < 0 {
		return cell[i:]
	}
	return cell[i : i+j]
}

var barRE = regexp.MustCompile(`<rect class="bar" data-records="([^"]*)" data-batches="(\d+)"`)

// bars maps data-records to data-batches of a histogram chart.
func bars(svg string) map[string]int {
	m := map[string]int{}
	for _, b := range barRE.FindAllStringSubmatch(svg, -1) {
		n, _ := strconv.Atoi(b[2])
		m[b[1]] += n
	}
	return m
}

// countJSONFor runs kseg count --json on path and returns the objects by name.
func countJSONFor(t *testing.T, path string) map[string]report.CountObject {
	t.Helper()
	out, errOut, code := runKseg(t, "count", "--json", path)
	if code != 0 {
		t.Fatalf("kseg count --json %s: exit %d: %s", path, code, errOut)
	}
	m := map[string]report.CountObject{}
	dec := json.NewDecoder(strings.NewReader(out))
	for dec.More() {
		var o report.CountObject
		if err := dec.Decode(&o); err != nil {
			t.Fatal(err)
		}
		m[o.Name] = o
	}
	return m
}

// checkReportPage checks a page (source or the browser's DOM) against kseg
// count: one cell per partition; histogram bars equal to count's
// records_per_batch; one size point per batch; time and sequence points
// no more than the batches, each carrying the right attributes.
func checkReportPage(t *testing.T, page, run string, want map[string]report.CountObject) {
	t.Helper()
	cs := cells(t, page)
	if len(cs) != len(want) {
		t.Errorf("%d partition cells, want %d (kseg count)", len(cs), len(want))
	}
	for name, o := range want {
		cell, ok := cs[run+"/"+name]
		if !ok {
			t.Errorf("no cell for %s/%s", run, name)
			continue
		}
		got := bars(chart(cell, "histogram"))
		wantBars := map[string]int{}
		for k, v := range o.RecordsPerBatch {
			wantBars[k] = v
		}
		if fmt.Sprint(got) != fmt.Sprint(wantBars) {
			t.Errorf("%s: bars %v, want %v (count: %s)", name, got, wantBars, o.Histogram)
		}
		pts := strings.Count(chart(cell, "size"), `<circle class="point"`)
		if int64(pts) != min(o.Batches, 2000) {
			t.Errorf("%s: %d size points, want %d", name, pts, o.Batches)
		}
		for _, kind := range []string{"time", "sequence"} {
			if n := strings.Count(chart(cell, kind), `<circle class="point"`); int64(n) > o.Batches || (kind == "time" && o.MinTimestamp >= 0 && n == 0) {
				t.Errorf("%s: %d %s points for %d batches", name, n, kind, o.Batches)
			}
		}
		if n := strings.Count(chart(cell, "codec"), `<rect class="codec"`); n != len(o.Codecs) {
			t.Errorf("%s: %d codec segments, want %d", name, n, len(o.Codecs))
		}
		if !strings.Contains(cell, "<code>"+strings.ReplaceAll(fmt.Sprintf("%s: %d batches, %d records, records per batch: %s", name, o.Batches, o.Records, o.Histogram), "&", "&amp;")+"</code>") {
			t.Errorf("%s: count line missing from the cell", name)
		}
	}
}

func writeSeedReport(t *testing.T) (string, string) {
	t.Helper()
	root := modRoot(t)
	seed := filepath.Join(root, "testdata", "segments", "seed")
	out := filepath.Join(t.TempDir(), "seed.html")
	stdout, stderr, code := runKseg(t, "report", "--batch-size", "1024", "--out", out, seed)
	if code != 0 {
		t.Fatalf("kseg report: exit %d: %s%s", code, stdout, stderr)
	}
	if stderr != "" {
		t.Errorf("stderr not a terminal, yet: %q", stderr)
	}
	return seed, out
}

func TestReportHTML(t *testing.T) {
	seed, out := writeSeedReport(t)
	b, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	page := string(b)
	want := countJSONFor(t, seed)
	checkReportPage(t, page, "seed", want)

	// The seed article's own figure: u05-small-0 is 8x25.
	small := cells(t, page)["seed/u05-small-0"]
	if got := bars(chart(small, "histogram")); len(got) != 1 || got["8"] != 25 {
		t.Errorf("u05-small-0 bars %v, want one bar 8 records x 25 batches", got)
	}
	if !strings.Contains(chart(small, "size"), `class="fill-line" data-batch-size="1024"`) {
		t.Error("no batch.size fill line")
	}

	// Self-contained: no scripts, no external references.
	stripped := strings.ReplaceAll(page, `xmlns="http://www.w3.org/2000/svg"`, "")
	for _, bad := range []string{"<script", "http://", "https://", " src=", "@import", "url("} {
		if strings.Contains(stripped, bad) {
			t.Errorf("page contains %q", bad)
		}
	}

	// Refuses to overwrite; --force replaces atomically.
	_, stderr, code := runKseg(t, "report", "--out", out, seed)
	if code != ExitUsage || !strings.Contains(stderr, "--force") {
		t.Errorf("overwrite without --force: exit %d, %q", code, stderr)
	}
	if _, _, code := runKseg(t, "report", "--force", "--out", out, seed); code != 0 {
		t.Errorf("--force: exit %d", code)
	}
	left, _ := filepath.Glob(filepath.Join(filepath.Dir(out), ".*tmp-*"))
	if len(left) > 0 {
		t.Errorf("temporary files left: %v", left)
	}
}

// A directory of log directories is one run per sub-directory, side by side.
func TestReportRuns(t *testing.T) {
	root := modRoot(t)
	sweep := t.TempDir()
	for _, r := range []string{"u05-small-0", "u05-sync-0"} {
		dst := filepath.Join(sweep, "run-"+r, r)
		if err := os.MkdirAll(dst, 0o755); err != nil {
			t.Fatal(err)
		}
		src := filepath.Join(root, "testdata", "segments", "seed", r, "00000000000000000000.log")
		b, err := os.ReadFile(src)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dst, "00000000000000000000.log"), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	out := filepath.Join(t.TempDir(), "r.html")
	if _, stderr, code := runKseg(t, "report", "--out", out, sweep); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	b, _ := os.ReadFile(out)
	cs := cells(t, string(b))
	for _, k := range []string{"run-u05-small-0/u05-small-0", "run-u05-sync-0/u05-sync-0"} {
		if _, ok := cs[k]; !ok {
			t.Errorf("no cell %s; have %d cells", k, len(cs))
		}
	}
	if got := bars(chart(cs["run-u05-sync-0/u05-sync-0"], "histogram")); got["1"] != 200 || len(got) != 1 {
		t.Errorf("u05-sync-0 bars %v, want 1x200", got)
	}
}

// modRoot is the module root (tests run in cmd/).
func modRoot(t *testing.T) string {
	t.Helper()
	wd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	return filepath.Dir(wd)
}

const chromium = "/usr/bin/chromium"

// TestReportBrowser loads the seed report in headless Chromium with no
// network (proxy to a closed port, every host unresolvable, and the page's
// own Content-Security-Policy, which turns any fetch into a console
// message): the DOM must hold the same bars and points as the source, the
// console must stay silent, and a screenshot is written to $KSEG_ARTIFACTS
// (or the test's temporary directory).
func TestReportBrowser(t *testing.T) {
	if _, err := os.Stat(chromium); err != nil {
		t.Skip("no " + chromium + " (apt-get install chromium)")
	}
	seed, page := writeSeedReport(t)
	want := countJSONFor(t, seed)
	artifacts := os.Getenv("KSEG_ARTIFACTS")
	if artifacts == "" {
		artifacts = t.TempDir()
	} else if err := os.MkdirAll(artifacts, 0o755); err != nil {
		t.Fatal(err)
	}
	shot := filepath.Join(artifacts, "report-seed.png")
	os.Remove(shot)
	base := func() []string {
		return []string{"--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
			"--disable-background-networking", "--disable-component-update", "--disable-sync",
			"--user-data-dir=" + t.TempDir(), "--enable-logging=stderr", "--v=0",
			"--proxy-server=127.0.0.1:9", "--host-resolver-rules=MAP * ~NOTFOUND"}
	}
	run := func(args ...string) (string, string) {
		t.Helper()
		cmd := exec.Command(chromium, append(base(), args...)...)
		var out, errb bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &errb
		done := make(chan error, 1)
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		go func() { done <- cmd.Wait() }()
		select {
		case err := <-done:
			if err != nil {
				t.Fatalf("chromium %v: %v\n%s", args, err, errb.String())
			}
		case <-time.After(2 * time.Minute):
			cmd.Process.Kill()
			t.Fatalf("chromium %v: no result in 2 minutes", args)
		}
		for _, line := range strings.Split(errb.String(), "\n") {
			if strings.Contains(line, "Uncaught") || strings.Contains(line, ":CONSOLE") {
				t.Errorf("browser console: %s", line)
			}
		}
		return out.String(), errb.String()
	}
	url := "file://" + page
	dom, _ := run("--dump-dom", url)
	if !strings.Contains(dom, "</svg>") {
		t.Fatalf("DOM has no SVG: %.300s", dom)
	}
	checkReportPage(t, dom, "seed", want)
	run("--screenshot="+shot, "--window-size=1200,2000", url)
	st, err := os.Stat(shot)
	if err != nil {
		t.Fatalf("no screenshot: %v", err)
	}
	png, _ := os.ReadFile(shot)
	if st.Size() < 10000 || !bytes.HasPrefix(png, []byte("\x89PNG")) {
		t.Errorf("screenshot %s: %d bytes, not a page", shot, st.Size())
	}
	t.Logf("screenshot: %s (%d bytes)", shot, st.Size())
}

// A partition with more findings than the page lists: the table shows the
// first ones and counts the rest, the chart marks every located one, and
// both agree with kseg audit.
func TestReportBoundsFindings(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "p")
	args := []string{"produce", "--records", "400", "--value-size", "10", "--sync", "--out", dir}
	for b := 3; b < 330; b += 5 { // a gap every fifth batch: 66 findings that do not merge
		args = append(args, "--inject", fmt.Sprintf("gap@%d", b))
	}
	if _, stderr, code := runKseg(t, args...); code != 0 {
		t.Fatalf("produce: exit %d: %s", code, stderr)
	}
	stdout, _, _ := runKseg(t, "audit", "--json", dir)
	var sum struct {
		Findings map[string]int `json:"findings"`
	}
	lines := strings.Split(strings.TrimSpace(stdout), "\n")
	if err := json.Unmarshal([]byte(lines[len(lines)-1]), &sum); err != nil {
		t.Fatalf("audit summary: %v", err)
	}
	total := sum.Findings["sequence-gap"]
	if total <= 50 {
		t.Fatalf("audit found %d gaps; the test needs more than the page lists", total)
	}
	out := filepath.Join(t.TempDir(), "r.html")
	if _, stderr, code := runKseg(t, "report", "--out", out, dir); code != 0 {
		t.Fatalf("report: exit %d: %s", code, stderr)
	}
	b, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	page := string(b)
	if got := strings.Count(page, `class="finding-row"`); got != 50 {
		t.Errorf("%d finding rows, want 50", got)
	}
	if want := fmt.Sprintf("%d more findings: run kseg audit", total-50); !strings.Contains(page, want) {
		t.Errorf("page lacks %q", want)
	}
	if want := fmt.Sprintf("Red triangles: %d audit finding(s)", total); !strings.Contains(page, want) {
		t.Errorf("page lacks %q", want)
	}
}
