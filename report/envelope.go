package report

import (
	"fmt"
	"html"
	"slices"
	"strings"

	"github.com/kseg/kseg/producer"
)

// maxBandPoints is how many batch positions the envelope chart draws at
// most; longer bands are thinned to every k-th position.
const maxBandPoints = 500

// envelopeSpan is how many batch positions the envelope chart shows: this
// log's own (non-control) batches, or the median run's when the log has
// none. The band of longer runs is cut there: a run of twice the log's
// batches would otherwise squeeze the log's dots into the left of the chart.
func envelopeSpan(pd *PartitionData) int {
	n := 0
	if pd.Stats != nil {
		n = int(pd.Stats.Batches - pd.Stats.ControlBatches)
	}
	if n <= 0 && pd.Envelope != nil {
		n = pd.Envelope.Batches.P50
	}
	return max(n, 1)
}

// envelopeSVG draws the predicted records per batch of a partition by batch
// position (light band min–max, dark band p5–p95, dashed median over the
// simulated runs) with this log's batches on top as dots. The x axis spans
// envelopeSpan positions.
func envelopeSVG(pd *PartitionData) string {
	pe := pd.Envelope
	var sb strings.Builder
	n := envelopeSpan(pd)
	band := pe.Band[:min(len(pe.Band), n)]
	ymax := 1.0
	for _, q := range band {
		ymax = max(ymax, float64(q.Max))
	}
	for _, p := range pd.Points {
		ymax = max(ymax, float64(p.Records))
	}
	x := scale{0, float64(max(n-1, 1)), padL + 4, padL + plotW - 4}
	yt := intTicks(niceTicks(0, ymax, 4))
	y := scale{0, max(ymax, yt[len(yt)-1]), padT + plotH, padT}
	var xt []float64
	for _, t := range intTicks(niceTicks(0, float64(max(n-1, 1)), 6)) {
		if t <= float64(max(n-1, 1)) {
			xt = append(xt, t)
		}
	}
	svgOpen(&sb, "envelope", pd.Name+" predicted records per batch", x, y, xt, yt, "batch (position in the log)", "records", nil)
	step := max(1, (len(band)+maxBandPoints-1)/maxBandPoints)
	var idx []int
	for k := 0; k < len(band); k += step {
		idx = append(idx, k)
	}
	if len(band) > 0 && idx[len(idx)-1] != len(band)-1 {
		idx = append(idx, len(band)-1)
	}
	poly := func(class string, lo, hi func(producer.Quantiles) int) {
		if len(idx) == 0 {
			return
		}
		var pts []string
		for _, k := range idx {
			pts = append(pts, f1(x.at(float64(k)))+","+f1(y.at(float64(hi(band[k])))))
		}
		for i := len(idx) - 1; i >= 0; i-- {
			k := idx[i]
			pts = append(pts, f1(x.at(float64(k)))+","+f1(y.at(float64(lo(band[k])))))
		}
		fmt.Fprintf(&sb, `<polygon class="%s" points="%s"/>`, class, strings.Join(pts, " "))
	}
	poly("band-outer", func(q producer.Quantiles) int { return q.Min }, func(q producer.Quantiles) int { return q.Max })
	poly("band", func(q producer.Quantiles) int { return q.P5 }, func(q producer.Quantiles) int { return q.P95 })
	if len(idx) > 0 {
		var pts []string
		for _, k := range idx {
			pts = append(pts, f1(x.at(float64(k)))+","+f1(y.at(float64(band[k].P50))))
		}
		fmt.Fprintf(&sb, `<polyline class="median" points="%s"/>`, strings.Join(pts, " "))
	}
	pos := int64(0)
	for _, p := range pd.Points {
		if p.Control {
			continue
		}
		out := pos >= int64(len(pe.Band)) || int(p.Records) < pe.Band[pos].Min || int(p.Records) > pe.Band[pos].Max
		class := "point"
		if out {
			class = "point outside"
		}
		fmt.Fprintf(&sb, `<circle class="%s" data-batch="%d" data-records="%d" cx="%s" cy="%s" r="2.5"/>`,
			class, pos, p.Records, f1(x.at(float64(pos))), f1(y.at(float64(p.Records))))
		pos += pd.Stride
	}
	sb.WriteString("</svg>")
	return sb.String()
}

// envelopeCaption says what the envelope chart shows: its x extent against
// the runs' batch counts, and when the p5–p95 band draws on top of the
// min–max one (nearest-rank p5 is the minimum below 21 runs at a position,
// p95 the maximum below 20), that only one band shows.
func envelopeCaption(pd *PartitionData) string {
	pe := pd.Envelope
	n := envelopeSpan(pd)
	band := pe.Band[:min(len(pe.Band), n)]
	s := fmt.Sprintf("Records per batch by position over %d simulated runs: dark band p5–p95, light band (dotted edge) min–max, dashed line the median; dots: this log's batches (red: outside min–max).", pd.Runs)
	loEq, hiEq := len(band) > 0, len(band) > 0
	for _, q := range band {
		loEq = loEq && q.P5 == q.Min
		hiEq = hiEq && q.P95 == q.Max
	}
	switch {
	case loEq && hiEq:
		s += fmt.Sprintf(" With %d runs p5–p95 and min–max coincide at every position (nearest-rank p5 is the minimum below 21 runs at a position, p95 the maximum below 20 or on ties), so only one band shows; more --runs can separate them.", pd.Runs)
	case loEq:
		s += fmt.Sprintf(" With %d runs p5 equals min at every position (nearest-rank p5 is the minimum below 21 runs a position): the bands share their lower edge.", pd.Runs)
	case hiEq:
		s += fmt.Sprintf(" With %d runs p95 equals max at every position: the bands share their upper edge.", pd.Runs)
	}
	if pd.Stats != nil && pd.Stats.Batches-pd.Stats.ControlBatches > 0 {
		s += fmt.Sprintf(" The x axis spans this log's %d batches", n)
	} else {
		s += fmt.Sprintf(" The x axis spans the median run's %d batches", n)
	}
	if pe.Batches.Max > n {
		s += fmt.Sprintf("; the runs had %d–%d (median %d), the band past batch %d is not drawn", pe.Batches.Min, pe.Batches.Max, pe.Batches.P50, n-1)
	}
	return s + "."
}

// envelopeFigure is the envelope chart with its caption and table.
func envelopeFigure(sb *strings.Builder, pd *PartitionData) {
	pe := pd.Envelope
	q := pe.Batches
	fmt.Fprintf(sb, "<figure><h4>Predicted layout</h4>%s<figcaption>%s</figcaption></figure>\n", envelopeSVG(pd), html.EscapeString(envelopeCaption(pd)))
	fmt.Fprintf(sb, "<table class=\"envelope\"><tr><th>batches here</th><th>predicted min</th><th>p5</th><th>p50</th><th>p95</th><th>max</th><th>percentile</th></tr>"+
		"<tr><td class=n>%d</td><td class=n>%d</td><td class=n>%d</td><td class=n>%d</td><td class=n>%d</td><td class=n>%d</td><td class=n>%.0f</td></tr></table>\n",
		pd.Stats.Batches, q.Min, q.P5, q.P50, q.P95, q.Max, producer.Percentile(pe.BatchCounts, int(pd.Stats.Batches)))
}

// cellStats is one sweep cell: total batches and records per batch over
// the partitions, per simulated run (or the log's own when there is no
// envelope).
type cellStats struct {
	batches []int
	rpb     []float64
}

func runCell(r *Run) cellStats {
	var c cellStats
	if env := r.Envelope; env != nil {
		for i := range env.Runs {
			l := &env.Runs[i]
			b, n := 0, int64(0)
			for p := range l.Partitions {
				b += l.Batches(p)
				n += l.Records(p)
			}
			c.batches = append(c.batches, b)
			c.rpb = append(c.rpb, ratio(n, b))
		}
		return c
	}
	b, n := int64(0), int64(0)
	for i := range r.Partitions {
		b += r.Partitions[i].Stats.Batches
		n += r.Partitions[i].Stats.Records
	}
	c.batches = []int{int(b)}
	c.rpb = []float64{ratio(n, int(b))}
	return c
}

func ratio(n int64, b int) float64 {
	if b == 0 {
		return 0
	}
	return float64(n) / float64(b)
}

// median is the nearest-rank median (the lower one for an even count).
func median[T int | float64](xs []T) (med, lo, hi T) {
	s := slices.Clone(xs)
	slices.Sort(s)
	return s[(len(s)-1)/2], s[0], s[len(s)-1]
}

func (c cellStats) html() string {
	if len(c.batches) == 0 {
		return `<span class="empty">-</span>`
	}
	b, blo, bhi := median(c.batches)
	r, rlo, rhi := median(c.rpb)
	if len(c.batches) == 1 {
		return fmt.Sprintf("<b>%d</b> batches<br>%.1f rec/batch", b, r)
	}
	return fmt.Sprintf("<b>%d</b> batches <span class=\"meta\">(%d–%d)</span><br>%.1f rec/batch <span class=\"meta\">(%.1f–%.1f)</span>", b, blo, bhi, r, rlo, rhi)
}

// sweepMatrices writes one matrix per sweep among runs: rows the first
// swept setting (per base run), columns the combinations of the others;
// each cell the median batch count and records per batch with the range
// over the simulated runs.
func sweepMatrices(sb *strings.Builder, runs []Run) {
	var plans []*producer.SweepPlan
	for _, r := range runs {
		if r.Sweep != nil && !slices.Contains(plans, r.Sweep) {
			plans = append(plans, r.Sweep)
		}
	}
	e := html.EscapeString
	for i, plan := range plans {
		byName := map[string]*Run{}
		for j := range runs {
			if runs[j].Sweep == plan {
				byName[runs[j].Name] = &runs[j]
			}
		}
		if len(plan.Axes) == 0 {
			continue
		}
		var rows, cols []string
		rowOf := func(pt producer.SweepPoint) string {
			v := plan.Axes[0].Flag + "=" + pt.Values[0]
			if pt.Base != "" {
				v = pt.Base + " " + v
			}
			return v
		}
		colOf := func(pt producer.SweepPoint) string {
			var parts []string
			for k := 1; k < len(plan.Axes); k++ {
				parts = append(parts, plan.Axes[k].Flag+"="+pt.Values[k])
			}
			if len(parts) == 0 {
				return "layout"
			}
			return strings.Join(parts, ", ")
		}
		cell := map[[2]string]string{}
		for _, pt := range plan.Points {
			r, c := rowOf(pt), colOf(pt)
			if !slices.Contains(rows, r) {
				rows = append(rows, r)
			}
			if !slices.Contains(cols, c) {
				cols = append(cols, c)
			}
			if run := byName[pt.Name]; run != nil {
				cell[[2]string{r, c}] = fmt.Sprintf("<td class=\"cell-sweep\" data-run=\"%s\"><a href=\"#p-%s\">%s</a></td>", e(run.Name), e(anchor(firstPartition(run))), runCell(run).html())
			}
		}
		var names []string
		for _, ax := range plan.Axes {
			names = append(names, ax.Flag)
		}
		axes := "Rows: " + plan.Axes[0].Flag
		if len(names) > 1 { // a one-setting sweep has one column, its layout
			axes += "; columns: " + strings.Join(names[1:], " × ")
		}
		fmt.Fprintf(sb, "<h2 id=\"sweep-%d\">Sweep: %s</h2>\n<p class=\"meta\">%s. Each cell: the median total batch count and records per batch over the partitions, with the range over the simulated runs (kseg produce --runs).</p>\n",
			i, e(strings.Join(names, " × ")), e(axes))
		fmt.Fprintf(sb, "<table class=\"matrix\"><tr><th>%s</th>", e(plan.Axes[0].Flag))
		for _, c := range cols {
			fmt.Fprintf(sb, "<th>%s</th>", e(c))
		}
		sb.WriteString("</tr>\n")
		for _, r := range rows {
			fmt.Fprintf(sb, "<tr><th>%s</th>", e(r))
			for _, c := range cols {
				if v, ok := cell[[2]string{r, c}]; ok {
					sb.WriteString(v)
				} else {
					sb.WriteString("<td class=\"empty\">not in this report</td>")
				}
			}
			sb.WriteString("</tr>\n")
		}
		sb.WriteString("</table>\n")
	}
}

func firstPartition(r *Run) string {
	if len(r.Partitions) == 0 {
		return ""
	}
	return r.Partitions[0].Name
}
