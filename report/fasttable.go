package report

import (
	"bufio"
	"io"
	"strings"
	"unicode/utf8"
)

// plainTable draws what newTable's tablewriter table draws for the same
// header and rows, for tables whose cells are all plain (see plainCell):
// a table of 10,000 partitions (audit's summaries) cost tablewriter 40%
// of the whole run, this a few milliseconds. Anything else is left to
// tablewriter, which measures wide characters, trims and expands tabs.
type plainTable struct {
	header []string
	rows   [][]string
}

// plainCell is a cell tablewriter prints as it is: printable ASCII, no
// space at either end.
func plainCell(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c > 0x7e {
			return false
		}
	}
	return s == "" || (s[0] != ' ' && s[len(s)-1] != ' ')
}

// plain tells that every cell (and header) is plain and there is a row.
func (t *plainTable) plain() bool {
	if len(t.rows) == 0 {
		return false
	}
	for _, h := range t.header {
		if !plainCell(h) {
			return false
		}
	}
	for _, r := range t.rows {
		if len(r) != len(t.header) {
			return false
		}
		for _, c := range r {
			if !plainCell(c) {
				return false
			}
		}
	}
	return true
}

// tableSymbols are the corners, joints and lines of a style: top left,
// top joint, top right, middle left, middle joint, middle right, bottom
// left, bottom joint, bottom right, horizontal line, vertical line.
func tableSymbols(style TableStyle) [11]string {
	if style == Boxes {
		return [11]string{"┌", "┬", "┐", "├", "┼", "┤", "└", "┴", "┘", "─", "│"}
	}
	return [11]string{"+", "+", "+", "+", "+", "+", "+", "+", "+", "-", "|"}
}

// render writes the table as tablewriter would: header centred and in
// capitals, cells left-aligned, one space of padding, rules above and
// below the header and at the end.
func (t *plainTable) render(w io.Writer, style TableStyle) error {
	sym := tableSymbols(style)
	widths := make([]int, len(t.header))
	header := make([]string, len(t.header))
	for i, h := range t.header {
		header[i] = strings.ToUpper(h)
		widths[i] = len(header[i])
	}
	for _, r := range t.rows {
		for i, c := range r {
			widths[i] = max(widths[i], len(c))
		}
	}
	bw := bufio.NewWriterSize(w, 64<<10)
	rule := func(l, j, r string) {
		bw.WriteString(l)
		for i, n := range widths {
			if i > 0 {
				bw.WriteString(j)
			}
			for range n + 2 {
				bw.WriteString(sym[9])
			}
		}
		bw.WriteString(r)
		bw.WriteByte('\n')
	}
	var spaces = strings.Repeat(" ", max(0, maxInts(widths))+2)
	row := func(cells []string, centre bool) {
		for i, c := range cells {
			bw.WriteString(sym[10])
			pad := widths[i] - utf8.RuneCountInString(c)
			left := 0
			if centre {
				left = pad / 2
			}
			bw.WriteString(spaces[:1+left])
			bw.WriteString(c)
			bw.WriteString(spaces[:1+pad-left])
		}
		bw.WriteString(sym[10])
		bw.WriteByte('\n')
	}
	rule(sym[0], sym[1], sym[2])
	row(header, true)
	rule(sym[3], sym[4], sym[5])
	for _, r := range t.rows {
		row(r, false)
	}
	rule(sym[6], sym[7], sym[8])
	return bw.Flush()
}

func maxInts(v []int) int {
	m := 0
	for _, x := range v {
		m = max(m, x)
	}
	return m
}

// renderTable draws t: itself when its cells are plain, else through
// tablewriter.
func renderTable(w io.Writer, style TableStyle, t *plainTable) error {
	if t.plain() {
		return t.render(w, style)
	}
	tw := newTable(w, style)
	tw.Header(anys(t.header)...)
	for _, r := range t.rows {
		if err := tw.Append(anys(r)...); err != nil {
			return err
		}
	}
	return tw.Render()
}

func anys(s []string) []any {
	a := make([]any, len(s))
	for i, v := range s {
		a[i] = v
	}
	return a
}
