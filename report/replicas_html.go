package report

import (
	"fmt"
	"html"
	"strings"

	"github.com/kseg/kseg/index"
	"github.com/kseg/kseg/internal/replicas"
)

// replicaRow is one run's copy of a partition on the epoch time line.
type replicaRow struct {
	run string
	c   *replicas.Copy
}

// replicaRows are the copies of partition name the runs hold (kseg
// replicas compared them when two or more runs hold it).
func replicaRows(runs []Run, name string) ([]replicaRow, []replicas.Pair) {
	var rows []replicaRow
	var pairs []replicas.Pair
	for _, r := range runs {
		for i := range r.Partitions {
			pd := &r.Partitions[i]
			if pd.Name == name && pd.Replica != nil {
				rows = append(rows, replicaRow{r.Name, pd.Replica})
				pairs = append(pairs, pd.ReplicaPairs...)
			}
		}
	}
	return rows, pairs
}

// epochSpans are the offset ranges [from, to) of each epoch of h within
// [start, end).
func epochSpans(h []index.EpochEntry, start, end int64) [][3]int64 {
	var out [][3]int64
	for i, e := range h {
		from, to := max(e.StartOffset, start), end
		if i+1 < len(h) {
			to = min(h[i+1].StartOffset, end)
		}
		if to > from {
			out = append(out, [3]int64{int64(e.Epoch), from, to})
		}
	}
	return out
}

// replicaTimeline draws the copies of one partition on one offset axis: a
// bar per copy from its log start to its log end, coloured by leader epoch
// (the history Kafka reasons with: leader-epoch-checkpoint, else the
// batches), each divergence as a red line at its offset; the table under
// it has the same facts and each pair's verdict.
func replicaTimeline(sb *strings.Builder, rows []replicaRow, pairs []replicas.Pair) {
	if len(rows) < 2 {
		return
	}
	e := html.EscapeString
	lo, hi := rows[0].c.LogStart, rows[0].c.LogEnd
	for _, r := range rows {
		lo, hi = min(lo, r.c.LogStart), max(hi, r.c.LogEnd)
	}
	if hi <= lo {
		hi = lo + 1
	}
	const left, width, rowH, top = 150.0, 560.0, 26.0, 18.0
	x := func(o int64) float64 { return left + width*float64(o-lo)/float64(hi-lo) }
	h := top + rowH*float64(len(rows)) + 30
	fmt.Fprintf(sb, "<div class=\"replicas\"><h3>Copies: leader epochs along the offsets</h3>\n")
	fmt.Fprintf(sb, "<svg class=\"chart\" role=\"img\" aria-label=\"leader epochs of each copy\" viewBox=\"0 0 %d %d\" width=\"%d\" height=\"%d\">\n",
		int(left+width+20), int(h), int(left+width+20), int(h))
	for i, r := range rows {
		y := top + rowH*float64(i)
		fmt.Fprintf(sb, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"end\" font-size=\"11\">%s</text>\n", left-6, y+13, e(r.run))
		for _, s := range epochSpans(r.c.Epochs, r.c.LogStart, r.c.LogEnd) {
			x0, x1 := x(s[1]), x(s[2])
			fmt.Fprintf(sb, "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"16\" fill=\"%s\" data-epoch=\"%d\"><title>%s: epoch %d, offsets %d-%d</title></rect>\n",
				x0, y+2, max(x1-x0, 1), palette[int(s[0])%len(palette)], s[0], e(r.run), s[0], s[1], s[2]-1)
			if x1-x0 > 24 {
				fmt.Fprintf(sb, "<text x=\"%.1f\" y=\"%.1f\" font-size=\"10\" fill=\"#fff\">e%d</text>\n", x0+3, y+14, s[0])
			}
		}
	}
	for _, p := range pairs {
		if p.Status != replicas.StatusDiverged {
			continue
		}
		px := x(p.Offset)
		fmt.Fprintf(sb, "<line class=\"divergence\" x1=\"%.1f\" x2=\"%.1f\" y1=\"%.1f\" y2=\"%.1f\" stroke=\"#D55E00\" stroke-width=\"2\" stroke-dasharray=\"4 2\"><title>%s vs %s diverge at offset %d (last shared epoch %d): %s</title></line>\n",
			px, px, top-4, top+rowH*float64(len(rows)), e(p.A), e(p.B), p.Offset, p.Epoch, e(p.Cause))
	}
	ay := top + rowH*float64(len(rows)) + 14
	fmt.Fprintf(sb, "<text x=\"%.1f\" y=\"%.1f\" font-size=\"10\">%d</text><text x=\"%.1f\" y=\"%.1f\" font-size=\"10\" text-anchor=\"end\">%d</text><text x=\"%.1f\" y=\"%.1f\" font-size=\"10\" text-anchor=\"middle\">offset</text>\n",
		left, ay, lo, left+width, ay, hi, left+width/2, ay)
	sb.WriteString("</svg>\n<table><tr><th>copy</th><th>log start</th><th>log end</th><th>epochs (epoch@start offset)</th></tr>\n")
	for _, r := range rows {
		fmt.Fprintf(sb, "<tr><td>%s</td><td>%d</td><td>%d</td><td>%s (%s)</td></tr>\n", e(r.run), r.c.LogStart, r.c.LogEnd, e(epochsText(r.c.Epochs)), e(r.c.EpochsFrom))
	}
	sb.WriteString("</table>\n<ul class=\"pairs\">\n")
	for _, p := range pairs {
		switch p.Status {
		case replicas.StatusDiverged:
			fmt.Fprintf(sb, "<li class=\"diverged\">%s vs %s: diverge at offset %d, last shared epoch %d, Kafka truncates to %s: %s</li>\n",
				e(p.A), e(p.B), p.Offset, p.Epoch, offText(p.TruncateTo), e(p.Cause))
		case replicas.StatusBehind:
			fmt.Fprintf(sb, "<li>%s vs %s: agree up to offset %d; %s is behind (%s)</li>\n", e(p.A), e(p.B), p.BehindFrom, e(p.Behind), e(p.BehindCause))
		default:
			fmt.Fprintf(sb, "<li>%s vs %s: agree from offset %d</li>\n", e(p.A), e(p.B), p.CommonStart)
		}
	}
	sb.WriteString("</ul></div>\n")
}
