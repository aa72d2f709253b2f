// Package index decodes the non-log files a Kafka broker keeps in a
// partition directory: the offset index (.index), the time index
// (.timeindex), the aborted-transaction index (.txnindex), the producer
// state snapshot (.snapshot), the text checkpoint files
// (leader-epoch-checkpoint and the log-directory offset checkpoints) and
// partition.metadata. It also parses Kafka's file and directory names.
//
// Byte layouts and message texts follow Kafka's index, snapshot and
// checkpoint classes. Where Kafka's behaviour on odd input matters to
// kafka-dump-log (the zero-padding stop rule, the warm/hot binary search,
// the sanity-check messages), it is reproduced exactly, including quirks.
//
// The package is self-contained: it knows nothing of record batches.
// Index readers work over an io.ReaderAt and read in large blocks, so a
// 10 MiB preallocated index costs one buffer, not one allocation per entry.
// No decoder panics on any input, and no allocation is sized by a count
// read from the file without first checking it against the bytes present.
package index
