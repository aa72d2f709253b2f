package whatif

import "github.com/kseg/kseg/internal/explain"

// SetExplainBound lowers the bound of the explain run that infers the
// original settings, until the returned func restores it.
func SetExplainBound(maxBatches int) (restore func()) {
	old := explainOptions
	explainOptions = explain.Options{MaxBatches: maxBatches}
	return func() { explainOptions = old }
}

// SetMaxRecords lowers the records Read reads, until the returned func
// restores it.
func SetMaxRecords(n int64) (restore func()) {
	old := maxRecords
	maxRecords = n
	return func() { maxRecords = old }
}
