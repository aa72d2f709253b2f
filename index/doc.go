// Package index decodes the non-log files a Kafka broker keeps in a
// partition directory: the offset index (.index), the time index
// (.timeindex), the aborted-transaction index (.txnindex) and the
// producer state snapshot (.snapshot); it writes the text files a broker
// keeps beside them (leader-epoch-checkpoint, partition.metadata), which
// kseg never reads. It also parses Kafka's file and directory names.
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
//
// # What an importer can rely on
//
//   - Indexes: OffsetIndex, TimeIndex and TxnIndex (Open* on a path, New*
//     over an io.ReaderAt), each with Iter (an Iterator that stops where
//     Kafka stops) and SanityCheck, the first two also with Entry and
//     Lookup (Kafka's binary search); Decode* reads one entry and the entry
//     types encode themselves back (AppendTo).
//   - Producer snapshots: ReadSnapshotFile, ParseSnapshot and Snapshot
//     (MarshalBinary/UnmarshalBinary round-trip the file).
//   - Text files: AppendLeaderEpochCheckpoint (EpochEntry) and
//     PartitionMetadata.AppendTo, in the broker's formats.
//   - Names: ParseSegmentName and SegmentName (FileKind, SuffixState),
//     ParsePartitionDir and ParsePartitionDirFull (DirState),
//     FormatBaseOffset, BaseOffsetFromName and the KRaft snapshot names.
//   - Errors: a failure at a place is a *located.Error (Error here) whose
//     cause is one of the sentinels (ErrCorruptIndex, ErrTruncated, ...)
//     for errors.Is; KafkaMessage recovers Kafka's own wording of it
//     (a *KafkaError).
//
// kseg's importable packages are batch, segment, index, content and
// located. Packages under github.com/kseg/kseg/internal/ and kseg's own
// command packages (cmd, report, producer) are not promised to importers
// and change with the tool.
package index
