package report

import (
	"io"
	"os"
	"strings"

	"github.com/olekukonko/tablewriter"
	"github.com/olekukonko/tablewriter/tw"
)

// TableStyle is how kseg's text tables (count --detail, audit) are drawn.
type TableStyle int

const (
	// ASCII draws with +, - and |: what a pipe, a file, a log or a
	// terminal in the C locale shows as written.
	ASCII TableStyle = iota
	// Boxes draws with box-drawing characters, for a UTF-8 terminal.
	Boxes
)

// TableStyleFor is the style of tables written to w: Boxes when w is a
// terminal and the locale is UTF-8, else ASCII. cmd asks it of the
// command's standard output before wrapping it in a buffer.
func TableStyleFor(w io.Writer) TableStyle {
	f, ok := w.(*os.File)
	if ok && isTerminal(f) && utf8Locale(os.Getenv) {
		return Boxes
	}
	return ASCII
}

// utf8Locale tells whether the locale's character set is UTF-8: the first
// of LC_ALL, LC_CTYPE and LANG that is set decides, as in POSIX; none set
// is the C locale.
func utf8Locale(getenv func(string) string) bool {
	for _, k := range []string{"LC_ALL", "LC_CTYPE", "LANG"} {
		if v := getenv(k); v != "" {
			v = strings.ToLower(v)
			return strings.Contains(v, "utf-8") || strings.Contains(v, "utf8")
		}
	}
	return false
}

// newTable is a tablewriter table on w drawn in style.
func newTable(w io.Writer, style TableStyle) *tablewriter.Table {
	if style == Boxes {
		return tablewriter.NewWriter(w)
	}
	return tablewriter.NewTable(w, tablewriter.WithSymbols(tw.NewSymbols(tw.StyleASCII)))
}
