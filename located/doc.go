// Package located is kseg's one error type for a failure at a place in a
// file: every command's errors carry it, so errors.As recovers the file and
// the byte offset whatever package failed, and the cause stays reachable
// for errors.Is (batch, index and segment sentinels).
//
// # What an importer can rely on
//
// Error (File, Offset, Err) and At, which wraps an error at a place unless
// it already has one (the innermost place is the precise one). A cause
// that knows its position inside the span its decoder was handed
// implements Relative, so the message names the absolute offset once.
// segment.Error and index.Error are aliases of Error.
//
// kseg's importable packages are batch, segment, index, content and
// located. Packages under github.com/kseg/kseg/internal/ and kseg's own
// command packages (cmd, report, producer) are not promised to importers
// and change with the tool.
package located
