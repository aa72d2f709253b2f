// Package batch decodes and encodes the bytes of Kafka record batches: the
// v2 RecordBatch with its records, legacy v0/v1 message sets, control
// records and the compression codecs. It knows nothing of files; package
// segment walks files and hands it byte slices.
//
// # What an importer can rely on
//
// Every exported name here is meant for use; where Kafka has the same
// operation, it does what Kafka's code does with the same bytes:
//
//   - Decoding: ParseHeader (ParseHeaderInto), BatchReader (the records
//     of complete v2 batches, one Record at a time, allocating nothing per
//     record), RecordReader, ParseLegacy, ParseLegacyHeader and
//     LegacyInner for v0/v1 messages, ParseControlKey and ParseEndTxnMarker
//     for control records, Varint and Varlong.
//   - Checking: ComputeCRC, ValidCRC, LegacyCRC, CRC32C, the same three
//     at a time (CRC32C3, ValidCRCs) and the producer sequence arithmetic
//     (SequenceAfter, SequenceDistance, IncrementSequence,
//     DecrementSequence).
//   - Encoding: Builder (one v2 batch, as MemoryRecordsBuilder builds it),
//     Compressor, AppendHeader, AppendRecord, the Set* functions that patch
//     a finished batch (and recompute its CRC), the size estimates and
//     AppendVarint/AppendVarlong.
//   - Errors: a failure inside a batch is a *FormatError, whose cause is one
//     of the sentinels (ErrTruncated, ErrCorrupt, ErrBadVarint, ...) for
//     errors.Is; Detail holds Kafka's wording where it has one.
//
// The decoders are fuzzed with arbitrary bytes: bad input is an error,
// never a panic, and decompression is capped (DefaultMaxDecompressed
// unless a Decompressor is told otherwise; ErrTooLarge past it).
//
// kseg's importable packages are batch, segment, index, content and
// located. Packages under github.com/kseg/kseg/internal/ and kseg's own
// command packages (cmd, report, producer) are not promised to importers
// and change with the tool.
package batch
