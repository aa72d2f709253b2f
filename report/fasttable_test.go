package report

import (
	"bytes"
	"math/rand/v2"
	"strings"
	"testing"
)

// TestPlainTableDrawsAsTablewriter: the plain path draws tables of plain
// cells byte for byte as tablewriter does, in both styles; other cells go
// to tablewriter.
func TestPlainTableDrawsAsTablewriter(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	words := []string{"", "-", "0", "yes", "no", "12345678901", "orders-0", "a b", "duplicate-sequence=3, sequence-gap=12", "x|y", "+", strings.Repeat("w", 70)}
	headers := [][]string{
		{"partition", "segments", "batches", "producers", "committed", "aborted", "open", "compacted", "findings"},
		{"a", "bb", "c d"},
	}
	for n := range 200 {
		h := headers[n%len(headers)]
		tab := plainTable{header: h}
		for range 1 + rng.IntN(6) {
			r := make([]string, len(h))
			for i := range r {
				r[i] = words[rng.IntN(len(words))]
			}
			tab.rows = append(tab.rows, r)
		}
		if !tab.plain() {
			t.Fatalf("%v: not plain", tab.rows)
		}
		for _, style := range []TableStyle{ASCII, Boxes} {
			var got, want bytes.Buffer
			if err := tab.render(&got, style); err != nil {
				t.Fatal(err)
			}
			tw := newTable(&want, style)
			tw.Header(anys(tab.header)...)
			for _, r := range tab.rows {
				tw.Append(anys(r)...)
			}
			tw.Render()
			if got.String() != want.String() {
				t.Fatalf("style %d:\n%s\ntablewriter:\n%s", style, got.String(), want.String())
			}
		}
	}
	for _, c := range []string{" lead", "trail ", "tab\t", "é", "中文"} {
		if plainCell(c) {
			t.Errorf("%q counted plain", c)
		}
	}
}
