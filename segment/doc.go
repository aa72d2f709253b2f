// Package segment is the one place where bytes become batches: it frames
// any source (a file, a slice of one, fetched bytes, a remote object) into
// entries (v2 batches or legacy messages) exactly as Kafka's
// FileLogInputStream does, reading in large blocks and parsing headers
// inside the buffer, and hands every command the same Stream of them.
//
// # What an importer can rely on
//
//   - Framing: Stream (NewStream over a Source, or OpenFile) yields each
//     entry as a *Batch, with its file position, header and, on request,
//     its records (via package batch); Options choose CRC checking and
//     whether to step over corrupt regions (KeepGoing) instead of stopping.
//     Iter walks a whole partition, segment after segment, in constant
//     memory.
//   - Walking: Partitions turns command-line paths (log directories,
//     partition directories, segment files) into Partitions, each with its
//     Segments in base-offset order, as a broker would list them.
//   - Counting: Counter, CountPartitions and Stats, the batch layout read
//     from the headers; FormatHistogram and ParseHistogram write and read
//     its records-per-batch histogram ("8x25": 25 batches of 8 records).
//   - Errors: every failure carries its place as a *located.Error (Error
//     here); the causes are this package's sentinels (ErrRecordSize,
//     ErrNotLog, ...) and package batch's, for errors.Is.
//   - Extension: PartitionsVia takes a resolver for arguments that are not
//     local paths, and NewRemotePartition lets that resolver (one that reads
//     from a cluster or a remote store) make partitions whose segments supply
//     their own bytes (Segment.Open). There is no registry: the caller owns
//     its resolver and whatever clients it holds.
//
// Nothing outside this package frames bytes into entries; the scanner that
// does it is unexported.
//
// kseg's importable packages are batch, segment, index, content and
// located. Packages under github.com/kseg/kseg/internal/ and kseg's own
// command packages (cmd, report, producer) are not promised to importers
// and change with the tool.
package segment
