// Package report renders kseg's findings for people and machines: text,
// tables, NDJSON and the HTML page with its SVG charts. Its renderers are
// handed plain values (the results of the audit, explain, diff and the
// producer model, segment statistics, and for the HTML page the Runs that
// internal/collect gathers); they run no analysis and open no input of
// their own, and take from the analysis packages only their types and
// names.
//
// report is kseg's own and not promised to importers.
package report
