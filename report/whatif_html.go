package report

import (
	"fmt"
	"html"
	"strings"

	"github.com/kseg/kseg/producer"
)

// WhatifTopic is one topic's what-if on the report page (kseg report
// --whatif): the log's batch count, the replay under the original settings
// and the predicted band under each setting asked for.
type WhatifTopic struct {
	Topic      string
	Was        string // the original settings, and whether explain inferred them
	Fit        string // the sender fitted to the log
	Warning    string // why the predictions are not to be trusted, if they are not
	Note       string // where the replay ended, when the log passed the records whatif reads
	LogBatches int64
	LogRPB     float64 // the log's records per batch
	Replay     WhatifBand
	Settings   []WhatifBand
}

// WhatifBand is one row of the what-if chart: a setting's batch counts
// over the runs, records per batch and produce requests.
type WhatifBand struct {
	Label    string
	Batches  producer.Quantiles
	RPB      producer.FloatQuantiles
	Requests int
}

// whatifSection writes a run's what-if: a chart of the topic's batch count
// (the log a diamond, the replay and each setting a band from p5 to p95
// with the median marked and whiskers to min and max) and its table.
func whatifSection(sb *strings.Builder, runName string, ts []WhatifTopic) {
	e := html.EscapeString
	for _, t := range ts {
		fmt.Fprintf(sb, "<div class=\"cell\" data-whatif=\"%s\"><h3>What if: %s <span class=\"meta\">(run %s)</span></h3>\n", e(t.Topic), e(t.Topic), e(runName))
		fmt.Fprintf(sb, "<p class=\"meta\">%s · %s</p>\n", e(t.Was), e(t.Fit))
		if t.Warning != "" {
			fmt.Fprintf(sb, "<p class=\"sev-warning\">warning: %s</p>\n", e(t.Warning))
		}
		if t.Note != "" {
			fmt.Fprintf(sb, "<p class=\"meta\">note: %s</p>\n", e(t.Note))
		}
		sb.WriteString(whatifSVG(&t))
		sb.WriteString("<table><tr><th>settings</th><th>batches p50</th><th>p5–p95</th><th>min–max</th><th>records per batch p50 [p5–p95]</th><th>requests p50</th></tr>\n")
		fmt.Fprintf(sb, "<tr><td>the log</td><td class=n>%d</td><td></td><td></td><td class=n>%.1f</td><td></td></tr>\n", t.LogBatches, t.LogRPB)
		for _, b := range append([]WhatifBand{t.Replay}, t.Settings...) {
			fmt.Fprintf(sb, "<tr><td>%s</td><td class=n>%d</td><td class=n>%d–%d</td><td class=n>%d–%d</td><td class=n>%.1f [%.1f–%.1f]</td><td class=n>%d</td></tr>\n",
				e(b.Label), b.Batches.P50, b.Batches.P5, b.Batches.P95, b.Batches.Min, b.Batches.Max, b.RPB.P50, b.RPB.P5, b.RPB.P95, b.Requests)
		}
		sb.WriteString("</table></div>\n")
	}
}

func whatifSVG(t *WhatifTopic) string {
	rows := append([]WhatifBand{t.Replay}, t.Settings...)
	hi := float64(t.LogBatches)
	for _, b := range rows {
		hi = max(hi, float64(b.Batches.Max))
	}
	ticks := intTicks(niceTicks(0, max(hi, 1), 5))
	if len(ticks) > 1 {
		for step := ticks[1] - ticks[0]; ticks[len(ticks)-1] < hi; {
			ticks = append(ticks, ticks[len(ticks)-1]+step)
		}
	}
	hi = max(hi, ticks[len(ticks)-1])
	const left, width, rowH = 200.0, 560.0, 26.0
	height := rowH*float64(len(rows)+1) + 34
	x := scale{lo: 0, hi: hi, a: left, b: left + width - 20}
	var sb strings.Builder
	fmt.Fprintf(&sb, "<figure><svg class=\"chart\" data-chart=\"whatif\" viewBox=\"0 0 %d %d\" role=\"img\"><title>batches under each setting</title>\n", int(left+width), int(height))
	fmt.Fprintf(&sb, "<rect class=\"plot\" x=\"%s\" y=\"4\" width=\"%s\" height=\"%s\"/>\n", f1(left), f1(width-20), f1(rowH*float64(len(rows)+1)))
	for _, v := range ticks {
		fmt.Fprintf(&sb, "<line class=\"grid\" x1=\"%s\" x2=\"%s\" y1=\"4\" y2=\"%s\"/><text x=\"%s\" y=\"%s\" text-anchor=\"middle\">%s</text>\n",
			f1(x.at(v)), f1(x.at(v)), f1(4+rowH*float64(len(rows)+1)), f1(x.at(v)), f1(height-16), fmtNum(v))
	}
	fmt.Fprintf(&sb, "<text class=\"axis\" x=\"%s\" y=\"%s\" text-anchor=\"middle\">batches (the topic's total)</text>\n", f1(left+width/2), f1(height-2))
	e := html.EscapeString
	y := 4 + rowH/2
	fmt.Fprintf(&sb, "<text class=\"axis\" x=\"%s\" y=\"%s\" text-anchor=\"end\">the log</text>", f1(left-6), f1(y+4))
	lx := x.at(float64(t.LogBatches))
	fmt.Fprintf(&sb, "<path class=\"whatif-log\" d=\"M%s %sl6 6l-6 6l-6 -6z\"><title>the log: %d batches</title></path>\n", f1(lx), f1(y-6), t.LogBatches)
	for i, b := range rows {
		y = 4 + rowH*float64(i+1) + rowH/2
		cls := "whatif-band"
		if i == 0 {
			cls = "whatif-replay"
		}
		q := b.Batches
		fmt.Fprintf(&sb, "<text x=\"%s\" y=\"%s\" text-anchor=\"end\">%s</text>", f1(left-6), f1(y+4), e(clip(b.Label, 34)))
		fmt.Fprintf(&sb, "<g class=\"%s\"><title>%s: p50 %d, p5–p95 %d–%d, min–max %d–%d</title>", cls, e(b.Label), q.P50, q.P5, q.P95, q.Min, q.Max)
		fmt.Fprintf(&sb, "<line x1=\"%s\" x2=\"%s\" y1=\"%s\" y2=\"%s\"/>", f1(x.at(float64(q.Min))), f1(x.at(float64(q.Max))), f1(y), f1(y))
		fmt.Fprintf(&sb, "<rect x=\"%s\" y=\"%s\" width=\"%s\" height=\"14\"/>", f1(x.at(float64(q.P5))), f1(y-7), f1(max(1.5, x.at(float64(q.P95))-x.at(float64(q.P5)))))
		fmt.Fprintf(&sb, "<line class=\"p50\" x1=\"%s\" x2=\"%s\" y1=\"%s\" y2=\"%s\"/></g>\n", f1(x.at(float64(q.P50))), f1(x.at(float64(q.P50))), f1(y-9), f1(y+9))
	}
	fmt.Fprintf(&sb, "<line class=\"whatif-logline\" x1=\"%s\" x2=\"%s\" y1=\"4\" y2=\"%s\"/>\n", f1(lx), f1(lx), f1(4+rowH*float64(len(rows)+1)))
	sb.WriteString("</svg><figcaption>The log's batch count (diamond and dotted line), the replay of its records under the original settings with the sender fitted to it (grey), and each setting's prediction: p5–p95 box, median tick, min–max whiskers.</figcaption></figure>\n")
	return sb.String()
}

const whatifCSS = `svg .whatif-log{fill:#D55E00}svg .whatif-logline{stroke:#D55E00;stroke-dasharray:2 3}
svg .whatif-band line,svg .whatif-replay line{stroke:#24292f}svg .whatif-band rect{fill:#0072B2;fill-opacity:.45}
svg .whatif-replay rect{fill:#8c959f;fill-opacity:.5}svg .p50{stroke-width:2.5}
`
