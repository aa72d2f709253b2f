package report

import (
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/kseg/kseg/producer"
	"github.com/kseg/kseg/segment"
)

// envelopeCase is a log of 37 batches against 20 simulated runs of up to
// 84 batches whose p5–p95 band equals min–max (too few runs for the
// nearest-rank percentiles to leave the extremes).
func envelopeCase(coincide bool) *PartitionData {
	pe := &producer.PartitionEnvelope{Batches: producer.Quantiles{Min: 30, P5: 31, P50: 40, P95: 70, Max: 84}}
	for range 84 {
		q := producer.Quantiles{Min: 0, P5: 0, P50: 60, P95: 143, Max: 143}
		if !coincide {
			q.P5, q.P95 = 20, 120
		}
		pe.Band = append(pe.Band, q)
	}
	pd := &PartitionData{Name: "t-0", Stats: &segment.Stats{Batches: 37}, Stride: 1, Envelope: pe, Runs: 20}
	for range 37 {
		pd.Points = append(pd.Points, BatchPoint{Records: 50})
	}
	return pd
}

// The x axis spans the log's own batches, not the longest run's: the log's
// last batch sits at the plot's right edge, no tick reads past it and the
// band is not drawn beyond it.
func TestEnvelopeXAxisIsTheLogs(t *testing.T) {
	pd := envelopeCase(true)
	svg := envelopeSVG(pd)
	right := f1(float64(padL + plotW - 4))
	last := regexp.MustCompile(`data-batch="36" data-records="50" cx="([0-9.]+)"`).FindStringSubmatch(svg)
	if last == nil || last[1] != right {
		t.Errorf("log's last batch (36) at cx %v, want the right edge %s", last, right)
	}
	for _, tk := range ticks(svg) {
		if v, _ := strconv.Atoi(tk); v > 36 {
			t.Errorf("x tick %s past the log's 37 batches", tk)
		}
	}
	for _, m := range regexp.MustCompile(`(\d+\.\d),\d+\.\d`).FindAllStringSubmatch(svg, -1) {
		if v, _ := strconv.ParseFloat(m[1], 64); v > float64(padL+plotW-4)+0.05 {
			t.Fatalf("band point at x %s, past the plot's right edge %s", m[1], right)
		}
	}
	c := envelopeCaption(pd)
	if !strings.Contains(c, "this log's 37 batches") || !strings.Contains(c, "the runs had 30–84") {
		t.Errorf("caption does not say the x extent and the runs' batch counts: %q", c)
	}
}

// When p5–p95 equals min–max at every position the dark band draws exactly
// on the light one; the caption says so. When they differ it does not, and
// the light band has an edge of its own to tell it apart.
func TestEnvelopeBandsCoincideCaption(t *testing.T) {
	if c := envelopeCaption(envelopeCase(true)); !strings.Contains(c, "coincide at every position") {
		t.Errorf("coinciding bands, caption silent: %q", c)
	}
	if c := envelopeCaption(envelopeCase(false)); strings.Contains(c, "coincide") || strings.Contains(c, "share their") {
		t.Errorf("distinct bands, caption says they coincide: %q", c)
	}
	if !strings.Contains(css, "svg .band-outer{fill:#0072B2;fill-opacity:.1;stroke:") {
		t.Error("min–max band has no edge of its own")
	}
}
