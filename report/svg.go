package report

import (
	"fmt"
	"html"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/kseg/kseg/batch"
	"github.com/kseg/kseg/internal/explain"
)

// Chart geometry: every chart is drawn in this viewBox and scales to the
// width of its column.
const (
	chartW, chartH = 600, 220
	padL, padR     = 62, 14
	padT, padB     = 14, 40
	plotW          = chartW - padL - padR
	plotH          = chartH - padT - padB
	maxBars        = 60 // distinct record counts above this are binned
)

// palette colours producers and codecs (colour-blind friendly, Okabe-Ito).
var palette = []string{"#0072B2", "#E69F00", "#009E73", "#CC79A7", "#56B4E9", "#D55E00", "#F0E442", "#000000"}

type scale struct{ lo, hi, a, b float64 } // data [lo,hi] -> pixels [a,b]

func (s scale) at(v float64) float64 {
	if s.hi == s.lo {
		return (s.a + s.b) / 2
	}
	return s.a + (v-s.lo)/(s.hi-s.lo)*(s.b-s.a)
}

func f1(v float64) string { return strconv.FormatFloat(v, 'f', 1, 64) }

// niceTicks returns about n round values covering [lo, hi].
func niceTicks(lo, hi float64, n int) []float64 {
	if hi <= lo {
		return []float64{lo}
	}
	raw := (hi - lo) / float64(n)
	mag := math.Pow(10, math.Floor(math.Log10(raw)))
	step := mag
	for _, m := range []float64{1, 2, 5, 10} {
		if m*mag >= raw {
			step = m * mag
			break
		}
	}
	var out []float64
	for v := math.Ceil(lo/step) * step; v <= hi+step*1e-9; v += step {
		out = append(out, v)
	}
	return out
}

// intTicks keeps the whole-number ticks (offsets, milliseconds).
func intTicks(t []float64) []float64 {
	out := t[:0:0]
	for _, v := range t {
		if v == math.Floor(v) {
			out = append(out, v)
		}
	}
	return out
}

func fmtNum(v float64) string {
	a := math.Abs(v)
	switch {
	case a >= 1e9:
		return strconv.FormatFloat(v/1e9, 'g', 3, 64) + "G"
	case a >= 1e6:
		return strconv.FormatFloat(v/1e6, 'g', 3, 64) + "M"
	case a >= 1e4:
		return strconv.FormatFloat(v/1e3, 'g', 3, 64) + "k"
	}
	return strconv.FormatFloat(v, 'g', 4, 64)
}

// svgOpen starts a chart with axes, ticks and axis titles.
func svgOpen(sb *strings.Builder, kind, title string, x, y scale, xt, yt []float64, xlabel, ylabel string, xfmt func(float64) string) {
	fmt.Fprintf(sb, `<svg class="chart" data-chart="%s" viewBox="0 0 %d %d" role="img" aria-label="%s" xmlns="http://www.w3.org/2000/svg">`,
		kind, chartW, chartH, html.EscapeString(title))
	fmt.Fprintf(sb, `<rect class="plot" x="%d" y="%d" width="%d" height="%d"/>`, padL, padT, plotW, plotH)
	for _, t := range yt {
		py := y.at(t)
		fmt.Fprintf(sb, `<line class="grid" x1="%d" x2="%d" y1="%s" y2="%s"/><text class="tick" x="%d" y="%s" text-anchor="end">%s</text>`,
			padL, padL+plotW, f1(py), f1(py), padL-4, f1(py+4), fmtNum(t))
	}
	if xfmt == nil {
		xfmt = fmtNum
	}
	for _, t := range xt {
		px := x.at(t)
		fmt.Fprintf(sb, `<text class="tick" x="%s" y="%d" text-anchor="middle">%s</text>`, f1(px), padT+plotH+14, html.EscapeString(xfmt(t)))
	}
	fmt.Fprintf(sb, `<text class="axis" x="%d" y="%d" text-anchor="middle">%s</text>`, padL+plotW/2, chartH-6, html.EscapeString(xlabel))
	fmt.Fprintf(sb, `<text class="axis" transform="translate(12 %d) rotate(-90)" text-anchor="middle">%s</text>`, padT+plotH/2, html.EscapeString(ylabel))
}

// bin is one bar of the histogram: batches with lo..hi records.
type bin struct {
	lo, hi  int
	batches int
}

func histogramBins(m map[int]int) []bin {
	keys := make([]int, 0, len(m))
	for k, n := range m {
		if n > 0 {
			keys = append(keys, k)
		}
	}
	slices.Sort(keys)
	if len(keys) <= maxBars {
		out := make([]bin, len(keys))
		for i, k := range keys {
			out[i] = bin{k, k, m[k]}
		}
		return out
	}
	lo, hi := keys[0], keys[len(keys)-1]
	width := (hi - lo + maxBars) / maxBars
	out := make([]bin, 0, maxBars)
	for _, k := range keys {
		b := (k - lo) / width
		s := lo + b*width
		if len(out) == 0 || out[len(out)-1].lo != s {
			out = append(out, bin{s, min(s+width-1, hi), 0})
		}
		out[len(out)-1].batches += m[k]
	}
	return out
}

// Approximate widths of a character of the chart's tick (11px) and value
// (10px) labels, in viewBox units: enough to keep labels from overlapping.
const tickCharW, valCharW = 6.5, 6.0

// logRatio: when the tallest bar is this many times the shortest, the
// histogram's y axis is logarithmic, so that the short bars stay visible.
const logRatio = 50

// histogramSVG draws the records-per-batch histogram, one bar per record
// count (or per range of counts when there are many). When one count
// dominates (logRatio) the y axis is logarithmic; x labels are thinned to
// what fits the slots, and the bars' values are drawn where they fit.
func histogramSVG(pd *PartitionData) string {
	bins := histogramBins(pd.Stats.RecordsPerBatch)
	var sb strings.Builder
	ymax, ymin := 1, 0
	for _, b := range bins {
		ymax = max(ymax, b.batches)
		if ymin == 0 || b.batches < ymin {
			ymin = b.batches
		}
	}
	logY := ymin > 0 && ymax >= logRatio*ymin
	var y scale
	var yt []float64
	ylabel := "batches"
	height := func(v int) float64 { return float64(v) }
	if logY {
		// log10 of the count, from 0.5 batches (so a bar of 1 has height).
		top := math.Ceil(math.Log10(float64(ymax)))
		for e := 0.0; e <= top; e++ {
			yt = append(yt, e)
		}
		y = scale{math.Log10(0.5), top, padT + plotH, padT}
		ylabel = "batches (log scale)"
		height = func(v int) float64 { return math.Log10(float64(v)) }
	} else {
		yt = intTicks(niceTicks(0, float64(ymax), 4))
		y = scale{0, max(float64(ymax), yt[len(yt)-1]), padT + plotH, padT}
	}
	x := scale{0, float64(max(len(bins), 1)), padL, padL + plotW}
	if !logY {
		svgOpen(&sb, "histogram", pd.Name+" records per batch", x, y, nil, yt, "records per batch", ylabel, nil)
	} else {
		svgOpen(&sb, "histogram", pd.Name+" records per batch", x, y, nil, nil, "records per batch", ylabel, nil)
		for _, t := range yt { // 1, 10, 100, ... batches
			py := y.at(t)
			fmt.Fprintf(&sb, `<line class="grid" x1="%d" x2="%d" y1="%s" y2="%s"/><text class="tick" x="%d" y="%s" text-anchor="end">%s</text>`,
				padL, padL+plotW, f1(py), f1(py), padL-4, f1(py+4), fmtNum(math.Pow(10, t)))
		}
	}
	slot := float64(plotW) / float64(max(len(bins), 1))
	bw := max(slot*0.8, 1)
	labels := make([]string, len(bins))
	widest := 1
	for i, b := range bins {
		labels[i] = strconv.Itoa(b.lo)
		if b.hi != b.lo {
			labels[i] += "-" + strconv.Itoa(b.hi)
		}
		widest = max(widest, len(labels[i]))
	}
	// every: label one bin in every, so that labels are a gap apart.
	every := max(1, int(math.Ceil((float64(widest)*tickCharW+4)/slot)))
	for i, b := range bins {
		px := x.at(float64(i)) + (slot-bw)/2
		py := y.at(height(b.batches))
		label := labels[i]
		fmt.Fprintf(&sb, `<rect class="bar" data-records="%s" data-batches="%d" x="%s" y="%s" width="%s" height="%s"><title>%s records: %d batches</title></rect>`,
			label, b.batches, f1(px), f1(py), f1(bw), f1(float64(padT+plotH)-py), label, b.batches)
		if i%every == 0 {
			fmt.Fprintf(&sb, `<text class="tick" x="%s" y="%d" text-anchor="middle">%s</text>`, f1(px+bw/2), padT+plotH+14, label)
		}
		if v := strconv.Itoa(b.batches); len(bins) <= 20 && float64(len(v))*valCharW <= slot {
			fmt.Fprintf(&sb, `<text class="val" x="%s" y="%s" text-anchor="middle">%s</text>`, f1(px+bw/2), f1(py-3), v)
		}
	}
	sb.WriteString("</svg>")
	return sb.String()
}

// offsetScale spans the partition's offsets.
func offsetScale(pd *PartitionData) (scale, []float64) {
	lo, hi := float64(max(pd.Stats.FirstOffset, 0)), float64(max(pd.Stats.LastOffset, 0))
	return scale{lo, hi, padL + 4, padL + plotW - 4}, intTicks(niceTicks(lo, hi, 6))
}

// sizeSVG draws each batch's size in bytes against its base offset, with
// the producer's batch.size as a dashed line when given.
func sizeSVG(pd *PartitionData, batchSize int) string {
	var sb strings.Builder
	x, xt := offsetScale(pd)
	ymax := float64(batchSize)
	for _, p := range pd.Points {
		ymax = max(ymax, float64(p.Bytes))
	}
	yt := niceTicks(0, max(ymax, 1), 4)
	y := scale{0, max(ymax, yt[len(yt)-1], 1), padT + plotH, padT}
	svgOpen(&sb, "size", pd.Name+" batch size by offset", x, y, xt, yt, "base offset", "batch bytes", nil)
	if batchSize > 0 {
		py := y.at(float64(batchSize))
		fmt.Fprintf(&sb, `<line class="fill-line" data-batch-size="%d" x1="%d" x2="%d" y1="%s" y2="%s"/><text class="note" x="%d" y="%s" text-anchor="end">batch.size %d</text>`,
			batchSize, padL, padL+plotW, f1(py), f1(py), padL+plotW-4, f1(py-4), batchSize)
	}
	for _, p := range pd.Points {
		fmt.Fprintf(&sb, `<circle class="point" data-offset="%d" data-bytes="%d"%s cx="%s" cy="%s" r="3"/>`,
			p.BaseOffset, p.Bytes, cutAttr(pd, p), f1(x.at(float64(p.BaseOffset))), f1(y.at(float64(p.Bytes))))
	}
	sb.WriteString("</svg>")
	return sb.String()
}

// timePoints are the sampled batches that carry a timestamp.
func timePoints(pd *PartitionData) []BatchPoint {
	var out []BatchPoint
	for _, p := range pd.Points {
		if p.MaxTimestamp >= 0 {
			out = append(out, p)
		}
	}
	return out
}

// timeUnit is the unit the time axis counts in for a span of spanMs
// milliseconds: ms up to 10 s, then s up to 10 min, min up to 3 h, then h,
// so that ticks read "20 40 60 min", not "2M 4M ms".
func timeUnit(spanMs float64) (name string, ms float64) {
	switch {
	case spanMs >= 3*3600e3:
		return "h", 3600e3
	case spanMs >= 10*60e3:
		return "min", 60e3
	case spanMs >= 10e3:
		return "s", 1e3
	}
	return "ms", 1
}

// timeSVG draws batches over time: x the batch's max timestamp (after the
// partition's first, in the unit timeUnit picks), y its record count.
// Linger gaps are empty stretches between columns of points.
func timeSVG(pd *PartitionData) string {
	var sb strings.Builder
	pts := timePoints(pd)
	t0 := float64(max(pd.Stats.MinTimestamp, 0))
	spanMs := float64(max(pd.Stats.MaxTimestamp-pd.Stats.MinTimestamp, 0))
	unit, perUnit := timeUnit(spanMs)
	span := spanMs / perUnit
	x := scale{0, span, padL + 4, padL + plotW - 4}
	xt := niceTicks(0, span, 6)
	if unit == "ms" {
		xt = intTicks(xt)
	}
	ymax := 1.0
	for _, p := range pts {
		ymax = max(ymax, float64(p.Records))
	}
	yt := intTicks(niceTicks(0, ymax, 4))
	y := scale{0, max(ymax, yt[len(yt)-1]), padT + plotH, padT}
	svgOpen(&sb, "time", pd.Name+" batches over time", x, y, xt, yt, unit+" after first batch (max timestamp)", "records", nil)
	for _, p := range pts {
		rel := (float64(p.MaxTimestamp) - t0) / perUnit
		fmt.Fprintf(&sb, `<circle class="point" data-ts="%d" data-records="%d"%s cx="%s" cy="%s" r="3"/>`,
			p.MaxTimestamp, p.Records, cutAttr(pd, p), f1(x.at(rel)), f1(y.at(float64(p.Records))))
	}
	sb.WriteString("</svg>")
	return sb.String()
}

// seqPoints are the sampled data batches with a producer id and sequence.
func seqPoints(pd *PartitionData) []BatchPoint {
	var out []BatchPoint
	for _, p := range pd.Points {
		if p.ProducerID >= 0 && p.BaseSequence >= 0 && !p.Control {
			out = append(out, p)
		}
	}
	return out
}

// producerColors gives each producer id of the partition a colour.
func producerColors(pd *PartitionData) map[int64]string {
	m := map[int64]string{}
	for i, pid := range pd.Stats.ProducerIDs {
		m[pid] = palette[i%len(palette)]
	}
	return m
}

// sequenceSVG draws base sequence against base offset, one colour per
// producer id, with audit findings marked by red triangles.
func sequenceSVG(pd *PartitionData) string {
	var sb strings.Builder
	pts := seqPoints(pd)
	x, xt := offsetScale(pd)
	ymax := 1.0
	for _, p := range pts {
		ymax = max(ymax, float64(p.BaseSequence))
	}
	marks := pd.Marks
	for _, f := range marks {
		ymax = max(ymax, float64(f.BaseSequence))
	}
	yt := niceTicks(0, ymax, 4)
	y := scale{0, max(ymax, yt[len(yt)-1]), padT + plotH, padT}
	svgOpen(&sb, "sequence", pd.Name+" producer sequences", x, y, xt, yt, "base offset", "base sequence", nil)
	col := producerColors(pd)
	for _, p := range pts {
		fmt.Fprintf(&sb, `<circle class="point" data-pid="%d" data-offset="%d" data-seq="%d" cx="%s" cy="%s" r="3" fill="%s"/>`,
			p.ProducerID, p.BaseOffset, p.BaseSequence, f1(x.at(float64(p.BaseOffset))), f1(y.at(float64(p.BaseSequence))), col[p.ProducerID])
	}
	for _, f := range marks {
		px := x.at(float64(f.FirstOffset))
		py := float64(padT + 8)
		if f.BaseSequence >= 0 {
			py = y.at(float64(f.BaseSequence))
		}
		fmt.Fprintf(&sb, `<path class="finding" data-code="%s" data-severity="%s" data-offset="%d" d="M%s %sl5 9h-10z"><title>%s</title></path>`,
			html.EscapeString(string(f.Code)), f.Severity, f.FirstOffset, f1(px), f1(py-6), html.EscapeString(findingLine(&f)))
	}
	// legend
	for i, pid := range pd.Stats.ProducerIDs {
		if i == 6 {
			fmt.Fprintf(&sb, `<text class="note" x="%d" y="%d">+%d more</text>`, padL+8+i*90, padT+12, len(pd.Stats.ProducerIDs)-i)
			break
		}
		fmt.Fprintf(&sb, `<circle class="legend" cx="%d" cy="%d" r="4" fill="%s"/><text class="note" x="%d" y="%d">pid %d</text>`,
			padL+10+i*90, padT+8, col[pid], padL+17+i*90, padT+12, pid)
	}
	sb.WriteString("</svg>")
	return sb.String()
}

// codecSVG draws the codec mix as one stacked bar of batches, with the
// compression ratio.
func codecSVG(pd *PartitionData) string {
	var sb strings.Builder
	const h = 70
	fmt.Fprintf(&sb, `<svg class="chart" data-chart="codec" viewBox="0 0 %d %d" role="img" aria-label="%s" xmlns="http://www.w3.org/2000/svg">`,
		chartW, h, html.EscapeString(pd.Name+" codec mix"))
	s := pd.Stats
	codecs := make([]string, 0, len(s.Codecs))
	for k := range s.Codecs {
		codecs = append(codecs, k)
	}
	slices.SortFunc(codecs, func(a, b string) int { return codecRank(a) - codecRank(b) })
	px := float64(padL)
	for _, k := range codecs {
		n := s.Codecs[k]
		w := float64(plotW) * float64(n) / float64(max(s.Batches, 1))
		fmt.Fprintf(&sb, `<rect class="codec" data-codec="%s" data-batches="%d" x="%s" y="8" width="%s" height="26" fill="%s"><title>%s: %d batches</title></rect>`,
			k, n, f1(px), f1(w), palette[codecRank(k)%len(palette)], k, n)
		if w > 50 {
			fmt.Fprintf(&sb, `<text class="inbar" x="%s" y="26" text-anchor="middle">%s %d</text>`, f1(px+w/2), k, n)
		}
		px += w
	}
	ratio := "no compressed batches"
	if r := s.Ratio(); r > 0 {
		ratio = fmt.Sprintf("compression ratio %.2f (%d → %d payload bytes)", r, s.UncompressedBytes, s.CompressedBytes)
	}
	fmt.Fprintf(&sb, `<text class="note" data-ratio="%s" x="%d" y="54">%s</text>`, strconv.FormatFloat(s.Ratio(), 'f', 4, 64), padL, html.EscapeString(ratio))
	sb.WriteString("</svg>")
	return sb.String()
}

func codecRank(name string) int {
	for c := batch.Codec(0); c <= 4; c++ {
		if c.String() == name {
			return int(c)
		}
	}
	return 7
}

// cutAttr is a point's data-cut attribute when the report explains cuts.
func cutAttr(pd *PartitionData, p BatchPoint) string {
	if pd.Cuts == nil {
		return ""
	}
	if c, ok := pd.Cuts[p.BaseOffset]; ok {
		return ` data-cut="` + c + `"`
	}
	return ""
}

// cutColors colour the chart points by cut reason (Okabe-Ito).
var cutColors = []struct{ cut, color string }{
	{explain.CutSize, "#0072B2"}, {explain.CutLinger, "#E69F00"}, {explain.CutSync, "#009E73"},
	{explain.CutDrain, "#CC79A7"}, {explain.CutFlush, "#000000"}, {explain.CutLargeRecord, "#D55E00"},
	{explain.CutUnknown, "#999999"},
}

// cutCSS is added to the page when cuts are shown.
func cutCSS() string {
	var sb strings.Builder
	for _, c := range cutColors {
		fmt.Fprintf(&sb, "svg.chart circle.point[data-cut=%s]{fill:%s}.cut-%s{color:%s}", c.cut, c.color, c.cut, c.color)
	}
	return sb.String()
}
