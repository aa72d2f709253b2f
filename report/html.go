package report

import (
	"fmt"
	"html"
	"io"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/kseg/kseg/internal/explain"
	"github.com/kseg/kseg/segment"
)

// HTMLOptions tune the HTML report.
type HTMLOptions struct {
	Title     string
	BatchSize int       // producer batch.size for the fill line (0: none)
	Generated time.Time // shown in the footer; zero leaves it out
	Version   string
}

const css = `
*{box-sizing:border-box}
body{font:14px/1.4 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;margin:0;padding:16px 24px;color:#1b1f24;background:#fff}
h1{font-size:22px;margin:0 0 4px}h2{font-size:18px;margin:28px 0 8px;border-bottom:2px solid #d0d7de;padding-bottom:4px}
h3{font-size:15px;margin:0 0 6px}h4{font-size:13px;margin:14px 0 2px;color:#444}
.meta{color:#57606a;font-size:12px}
.runs{display:grid;grid-template-columns:repeat(auto-fit,minmax(420px,1fr));gap:16px}
.figs{display:grid;grid-template-columns:repeat(auto-fill,minmax(360px,1fr));gap:4px 18px}
.fig{min-width:0}.cell table{display:block;overflow-x:auto;max-width:100%}figure{margin:0}
.cell{border:1px solid #d0d7de;border-radius:6px;padding:10px 12px;min-width:0}
svg.chart{width:100%;height:auto;display:block}
svg .plot{fill:#f6f8fa;stroke:#d0d7de}svg .grid{stroke:#e1e4e8}
svg text{font-size:11px;fill:#57606a}svg .axis{font-size:12px;fill:#24292f}
svg .bar{fill:#0072B2}svg .bar:hover{fill:#D55E00}svg .val{font-size:10px;fill:#24292f}
svg circle.point{fill-opacity:.8}svg [data-chart=size] circle.point,svg[data-chart=size] circle.point{fill:#0072B2}
svg[data-chart=time] circle.point{fill:#009E73}
svg .fill-line{stroke:#D55E00;stroke-dasharray:6 4;stroke-width:1.5}
svg .finding{fill:#d1242f;stroke:#fff;stroke-width:.8}
svg .inbar{fill:#fff;font-size:12px}svg .note{font-size:11px;fill:#24292f}
figcaption{font-size:12px;color:#57606a;margin:2px 0 4px}
table{border-collapse:collapse;font-size:12px;margin:4px 0 8px;width:100%}
th,td{border:1px solid #d0d7de;padding:2px 6px;text-align:left;vertical-align:top}
th{background:#f6f8fa;font-weight:600}td.n{text-align:right;font-variant-numeric:tabular-nums}
.sev-error,.sev-critical{color:#d1242f;font-weight:600}.sev-warning{color:#9a6700}
.empty{color:#57606a;font-style:italic}
code{font-size:12px}
svg .band-outer{fill:#0072B2;fill-opacity:.12}svg .band{fill:#0072B2;fill-opacity:.3}
svg .median{fill:none;stroke:#0072B2;stroke-width:1.5;stroke-dasharray:5 3}
svg[data-chart=envelope] circle.point{fill:#E69F00}svg[data-chart=envelope] circle.outside{fill:#d1242f;stroke:#fff;stroke-width:.5}
table.matrix{width:auto}table.matrix td,table.matrix th{padding:4px 10px}
`

// WriteHTML writes the self-contained report page: inline CSS and SVG, no
// scripts, nothing fetched.
func WriteHTML(w io.Writer, runs []Run, opt HTMLOptions) error {
	var sb strings.Builder
	title := opt.Title
	if title == "" {
		names := make([]string, len(runs))
		for i, r := range runs {
			names[i] = r.Name
		}
		title = "kseg report: " + strings.Join(names, ", ")
	}
	e := html.EscapeString
	fmt.Fprintf(&sb, "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><meta name=\"viewport\" content=\"width=device-width,initial-scale=1\">"+
		"<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src 'unsafe-inline'; img-src data:\">"+
		"<title>%s</title><style>%s%s</style></head><body>\n", e(title), css, explainCSS(runs))
	fmt.Fprintf(&sb, "<h1>%s</h1>\n<p class=\"meta\">", e(title))
	for i, r := range runs {
		if i > 0 {
			sb.WriteString(" · ")
		}
		fmt.Fprintf(&sb, "run <b>%s</b>: <code>%s</code>", e(r.Name), e(r.Path))
	}
	if opt.BatchSize > 0 {
		fmt.Fprintf(&sb, " · batch.size %d", opt.BatchSize)
	}
	sb.WriteString("</p>\n")

	// Overview: every run's count lines.
	sb.WriteString("<h2 id=\"overview\">Overview</h2>\n<table class=\"overview\"><tr><th>run</th><th>partition</th><th>batches</th><th>records</th><th>records per batch</th><th>avg bytes</th>")
	if opt.BatchSize > 0 {
		sb.WriteString("<th>fill</th>")
	}
	sb.WriteString("<th>codecs</th><th>ratio</th><th>audit findings</th></tr>\n")
	for _, r := range runs {
		for i := range r.Partitions {
			pd := &r.Partitions[i]
			s := pd.Stats
			fmt.Fprintf(&sb, "<tr data-run=\"%s\" data-partition=\"%s\"><td>%s</td><td><a href=\"#p-%s\">%s</a></td><td class=n>%d</td><td class=n>%d</td><td>%s</td><td class=n>%.0f</td>",
				e(r.Name), e(pd.Name), e(r.Name), e(anchor(pd.Name)), e(pd.Name), s.Batches, s.Records, e(clip(segment.FormatHistogram(s.RecordsPerBatch), 80)), s.AvgBytes())
			if opt.BatchSize > 0 {
				fmt.Fprintf(&sb, "<td class=n>%.3f</td>", s.Fill(opt.BatchSize))
			}
			fmt.Fprintf(&sb, "<td>%s</td><td class=n>%s</td><td>%s</td></tr>\n", e(codecText(s.Codecs)), ratioText(s.Ratio()), e(auditCell(pd)))
		}
	}
	sb.WriteString("</table>\n")

	// A sweep: one matrix of its settings before the runs.
	sweepMatrices(&sb, runs)

	// One section per partition name, runs side by side.
	var names []string
	seen := map[string]bool{}
	for _, r := range runs {
		for _, pd := range r.Partitions {
			if !seen[pd.Name] {
				seen[pd.Name] = true
				names = append(names, pd.Name)
			}
		}
	}
	slices.Sort(names)
	for _, name := range names {
		fmt.Fprintf(&sb, "<h2 id=\"p-%s\">%s</h2>\n<div class=\"runs\">\n", e(anchor(name)), e(name))
		for _, r := range runs {
			for i := range r.Partitions {
				if r.Partitions[i].Name == name {
					partitionCell(&sb, r.Name, &r.Partitions[i], opt)
				}
			}
		}
		sb.WriteString("</div>\n")
	}
	sb.WriteString("<p class=\"meta\">Generated by kseg")
	if opt.Version != "" {
		sb.WriteString(" " + e(opt.Version))
	}
	if !opt.Generated.IsZero() {
		sb.WriteString(" at " + opt.Generated.UTC().Format(time.RFC3339))
	}
	sb.WriteString(". Counts come from batch headers as in <code>kseg count --detail</code>; sequences and findings from <code>kseg audit</code>.</p>\n</body></html>\n")
	_, err := io.WriteString(w, sb.String())
	return err
}

func anchor(s string) string {
	return strings.Map(func(r rune) rune {
		if r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-' || r == '_' || r == '.' {
			return r
		}
		return '_'
	}, s)
}

func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	i := strings.LastIndexByte(s[:n], ' ')
	if i < 0 {
		i = n
	}
	return s[:i] + " …"
}

func codecText(m map[string]int64) string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.SortFunc(keys, func(a, b string) int { return codecRank(a) - codecRank(b) })
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = fmt.Sprintf("%s:%d", k, m[k])
	}
	if len(parts) == 0 {
		return "-"
	}
	return strings.Join(parts, " ")
}

func ratioText(r float64) string {
	if r <= 0 {
		return "-"
	}
	return fmt.Sprintf("%.2f", r)
}

func auditCell(pd *PartitionData) string {
	switch {
	case pd.AuditErr != "":
		return "audit failed: " + pd.AuditErr
	case pd.Audit == nil:
		return "-"
	case pd.FindingsTotal == 0:
		return "none"
	}
	return findingCounts(pd.Audit.Summary.Findings)
}

func sampleCaption(pd *PartitionData, shown int, what string) string {
	if pd.Stride > 1 {
		return fmt.Sprintf("%d of %d batches shown (every %dth: more than %d batches)%s.", shown, pd.Stats.Batches, pd.Stride, MaxPoints, what)
	}
	return fmt.Sprintf("%d batches%s.", shown, what)
}

func partitionCell(sb *strings.Builder, run string, pd *PartitionData, opt HTMLOptions) {
	e := html.EscapeString
	s := pd.Stats
	fmt.Fprintf(sb, "<div class=\"cell\" data-run=\"%s\" data-partition=\"%s\">\n<h3>%s <span class=\"meta\">%s</span></h3>\n",
		e(run), e(pd.Name), e(run), e(pd.Dir))
	fmt.Fprintf(sb, "<p class=\"countline\"><code>%s</code></p>\n", e(CountLine(pd.Name, s.Batches, s.Records, s.RecordsPerBatch)))
	if s.Batches == 0 {
		sb.WriteString("<p class=\"empty\">No batches.</p></div>\n")
		return
	}

	fmt.Fprintf(sb, "<table class=\"detail\"><tr><th>batches</th><th>records</th><th>bytes</th><th>avg rec</th><th>min/max rec</th><th>avg bytes</th>")
	if opt.BatchSize > 0 {
		sb.WriteString("<th>fill</th>")
	}
	sb.WriteString("<th>control</th><th>first timestamp</th><th>span</th><th>producer ids</th></tr>\n")
	first, span := "-", "-"
	if s.MinTimestamp >= 0 {
		first = time.UnixMilli(s.MinTimestamp).UTC().Format("2006-01-02T15:04:05.000Z")
		span = (time.Duration(s.MaxTimestamp-s.MinTimestamp) * time.Millisecond).String()
	}
	fmt.Fprintf(sb, "<tr><td class=n>%d</td><td class=n>%d</td><td class=n>%d</td><td class=n>%.2f</td><td class=n>%d/%d</td><td class=n>%.0f</td>",
		s.Batches, s.Records, s.Bytes, s.AvgRecords(), s.MinRecords, s.MaxRecords, s.AvgBytes())
	if opt.BatchSize > 0 {
		fmt.Fprintf(sb, "<td class=n>%.3f</td>", s.Fill(opt.BatchSize))
	}
	fmt.Fprintf(sb, "<td class=n>%d</td><td>%s</td><td>%s</td><td>%s</td></tr></table>\n", s.ControlBatches, first, span, e(pidText(s.ProducerIDs)))
	explainTable(sb, pd)
	sb.WriteString("<div class=\"figs\">\n<div class=\"fig\">")
	// 0. the predicted band, for a log written by kseg produce --runs
	if pd.Envelope != nil {
		envelopeFigure(sb, pd)
		sb.WriteString("</div>\n<div class=\"fig\">")
	}
	// 1. records per batch
	bins := histogramBins(s.RecordsPerBatch)
	cap := fmt.Sprintf("Records per batch: %d bars, one per record count", len(bins))
	if len(bins) > 0 && len(bins) < len(s.RecordsPerBatch) {
		cap = fmt.Sprintf("Records per batch: %d record counts binned into %d bars", len(s.RecordsPerBatch), len(bins))
	}
	fmt.Fprintf(sb, "<figure><h4>Records per batch</h4>%s<figcaption>%s.</figcaption></figure>\n", histogramSVG(pd), cap)
	sb.WriteString("<table class=\"hist\"><tr><th>records per batch</th><th>batches</th></tr>")
	keys := make([]int, 0, len(s.RecordsPerBatch))
	for k := range s.RecordsPerBatch {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	slices.Reverse(keys)
	for i, k := range keys {
		if i == 30 {
			fmt.Fprintf(sb, "<tr><td colspan=2 class=empty>%d more record counts (see the Overview histogram)</td></tr>", len(keys)-i)
			break
		}
		fmt.Fprintf(sb, "<tr><td class=n>%d</td><td class=n>%d</td></tr>", k, s.RecordsPerBatch[k])
	}
	sb.WriteString("</table>\n")

	sb.WriteString("</div>\n<div class=\"fig\">")
	// 2. size along offsets
	fill := ""
	if opt.BatchSize > 0 {
		fill = fmt.Sprintf("; dashed line: batch.size %d, mean fill %.3f", opt.BatchSize, s.Fill(opt.BatchSize))
	}
	fmt.Fprintf(sb, "<figure><h4>Batch size by offset</h4>%s<figcaption>%s</figcaption></figure>\n", sizeSVG(pd, opt.BatchSize), e(sampleCaption(pd, len(pd.Points), fill)))
	fmt.Fprintf(sb, "<table><tr><th>min/avg/max batch bytes</th><th>first offset</th><th>last offset</th></tr><tr><td class=n>%d / %.0f / %d</td><td class=n>%d</td><td class=n>%d</td></tr></table>\n",
		pd.MinBytes, s.AvgBytes(), pd.MaxBytes, s.FirstOffset, s.LastOffset)

	sb.WriteString("</div>\n<div class=\"fig\">")
	// 3. over time
	tp := timePoints(pd)
	fmt.Fprintf(sb, "<figure><h4>Batches over time</h4>%s<figcaption>%s</figcaption></figure>\n", timeSVG(pd), e(sampleCaption(pd, len(tp), " with a timestamp; x is the batch's max timestamp, gaps are linger/send pauses")))
	if len(pd.Gaps) > 0 {
		sb.WriteString("<table class=\"gaps\"><tr><th>largest gaps</th><th>after offset</th></tr>")
		for _, g := range pd.Gaps {
			fmt.Fprintf(sb, "<tr><td class=n>%s</td><td class=n>%d</td></tr>", time.Duration(g.Millis)*time.Millisecond, g.AfterOffset)
		}
		sb.WriteString("</table>\n")
	}

	sb.WriteString("</div>\n<div class=\"fig\">")
	// 4. producer sequences + audit
	sp := seqPoints(pd)
	marks := pd.Marks
	seqCap := sampleCaption(pd, len(sp), " with a producer id and sequence")
	if pd.Audit != nil {
		seqCap += fmt.Sprintf(" Red triangles: %d audit finding(s) located at an offset.", len(marks))
	}
	fmt.Fprintf(sb, "<figure><h4>Producer sequences</h4>%s<figcaption>%s</figcaption></figure>\n", sequenceSVG(pd), e(seqCap))
	auditTables(sb, pd)

	sb.WriteString("</div>\n<div class=\"fig\">")
	// 5. codecs
	fmt.Fprintf(sb, "<figure><h4>Codec mix</h4>%s<figcaption>Batches per codec; ratio is uncompressed / compressed payload bytes of compressed batches.</figcaption></figure>\n", codecSVG(pd))
	sb.WriteString("<table class=\"codecs\"><tr><th>codec</th><th>batches</th></tr>")
	for _, k := range strings.Fields(codecText(s.Codecs)) {
		c, n, _ := strings.Cut(k, ":")
		fmt.Fprintf(sb, "<tr><td>%s</td><td class=n>%s</td></tr>", e(c), e(n))
	}
	fmt.Fprintf(sb, "<tr><td>compressed payload bytes</td><td class=n>%d</td></tr><tr><td>uncompressed</td><td class=n>%d</td></tr><tr><td>ratio</td><td class=n>%s</td></tr></table>\n",
		s.CompressedBytes, s.UncompressedBytes, ratioText(s.Ratio()))
	sb.WriteString("</div>\n</div>\n</div>\n")
}

func auditTables(sb *strings.Builder, pd *PartitionData) {
	e := html.EscapeString
	switch {
	case pd.AuditErr != "":
		fmt.Fprintf(sb, "<p class=\"sev-error\">audit failed: %s</p>\n", e(pd.AuditErr))
		return
	case pd.Audit == nil:
		return
	}
	a := &pd.Audit.Summary
	fmt.Fprintf(sb, "<table class=\"audit\"><tr><th>producers</th><th>idempotent batches</th><th>committed</th><th>aborted</th><th>open</th><th>compacted</th><th>findings</th></tr>"+
		"<tr><td class=n>%d</td><td class=n>%d</td><td class=n>%d</td><td class=n>%d</td><td class=n>%d</td><td>%v</td><td>%s</td></tr></table>\n",
		a.Producers, a.IdempotentBatches, a.Committed, a.Aborted, a.Open, a.Compacted, e(auditCell(pd)))
	if len(pd.Audit.Producers) > 0 {
		sb.WriteString("<table class=\"producers\"><tr><th>producer id</th><th>epoch</th><th>last sequence</th><th>last offset</th><th>batches</th></tr>")
		for i, p := range pd.Audit.Producers {
			if i == 20 {
				fmt.Fprintf(sb, "<tr><td colspan=5 class=empty>%d more producers</td></tr>", len(pd.Audit.Producers)-i)
				break
			}
			fmt.Fprintf(sb, "<tr><td class=n>%d</td><td class=n>%d</td><td class=n>%d</td><td class=n>%d</td><td class=n>%d</td></tr>", p.ID, p.Epoch, p.LastSequence, p.LastOffset, p.Batches)
		}
		sb.WriteString("</table>\n")
	}
	if n := len(pd.Audit.Findings); n > 0 {
		sb.WriteString("<table class=\"findings\"><tr><th>severity</th><th>finding</th></tr>")
		for i := range pd.Audit.Findings {
			f := &pd.Audit.Findings[i]
			fmt.Fprintf(sb, "<tr class=\"finding-row\" data-code=\"%s\"><td class=\"sev-%s\">%s</td><td>%s</td></tr>", e(string(f.Code)), f.Severity, f.Severity, e(findingLine(f)))
		}
		if more := pd.FindingsTotal - n; more > 0 {
			fmt.Fprintf(sb, "<tr><td colspan=2 class=empty>%d more findings: run kseg audit</td></tr>", more)
		}
		sb.WriteString("</table>\n")
	}
}

func pidText(p []int64) string {
	if len(p) == 0 {
		return "-"
	}
	parts := make([]string, 0, 5)
	for i, v := range p {
		if i == 4 {
			parts = append(parts, fmt.Sprintf("(+%d more)", len(p)-i))
			break
		}
		parts = append(parts, strconv.FormatInt(v, 10))
	}
	return strings.Join(parts, " ")
}

// explainCSS colours points by cut when any partition was explained.
func explainCSS(runs []Run) string {
	for _, r := range runs {
		for _, pd := range r.Partitions {
			if pd.Cuts != nil {
				return cutCSS()
			}
		}
	}
	return ""
}

// explainTable is the inferred settings of the partition's producers and
// its cut counts, the legend of the coloured points.
func explainTable(sb *strings.Builder, pd *PartitionData) {
	if pd.Cuts == nil {
		return
	}
	e := html.EscapeString
	counts := map[string]int{}
	for _, c := range pd.Cuts {
		counts[c]++
	}
	sb.WriteString("<table class=\"explain\"><tr><th>cut (point colour)</th><th>batches</th></tr>")
	for _, c := range explain.Cuts {
		if n := counts[c]; n > 0 {
			fmt.Fprintf(sb, "<tr><td class=\"cut-%s\">&#9679; %s</td><td class=n>%d</td></tr>", c, c, n)
		}
	}
	sb.WriteString("</table>\n<table class=\"settings\"><tr><th>producer</th><th>batch.size</th><th>linger.ms</th><th>compression</th><th>sync</th><th>partitioner</th><th>idempotence</th></tr>\n")
	for _, p := range pd.Explained {
		s := &p.Settings
		comp := orNotEnough(s.Compression)
		if s.Ratio > 0 {
			comp += fmt.Sprintf(" (ratio %.3f)", s.Ratio)
		}
		fmt.Fprintf(sb, "<tr><td class=n>%s</td><td>%s</td><td>%s</td><td>%s</td><td>%s</td><td>%s</td><td>%s</td></tr>\n",
			e(explainPID(p.ProducerID)), e(intervalShort(s.BatchSize, "B")), e(intervalShort(s.LingerMs, "ms")), e(comp),
			e(boolText(s.Sync)), e(orNotEnough(s.Partitioner)), e(boolText(s.Idempotence)))
	}
	sb.WriteString("</table>\n")
}
