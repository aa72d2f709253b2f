// Package content renders the key and value of one record the way
// kafka-dump-log (DumpLogSegments, Kafka 4.4) prints them after "key:" and
// "payload:": the plain decoders (StringDecoder, IntegerDecoder, ...), the
// --offsets-decoder for __consumer_offsets, the --transaction-log-decoder
// for __transaction_state, the --share-group-state-decoder for
// __share_group_state and the --remote-log-metadata-decoder for
// __remote_log_metadata (which prints the Java objects' toString, not
// JSON); and the values of KRaft control records (LeaderChange,
// SnapshotHeader, SnapshotFooter, KRaftVersion, KRaftVoters) as
// printControlRecord shows them.
//
// The coordinator, metadata and control record decoders read Kafka's
// generated-message encoding through one small schema
// interpreter and write compact JSON with Jackson's escaping rules
// (as kafka-dump-log prints it). Decode errors that the Java tool
// turns into an "Error at offset ..." key are returned as a key string, the
// same way; errors that crash the Java tool come back as a *CrashError.
//
// # What an importer can rely on
//
//   - Parser, made by NewStringParser (kafka-dump-log's decoder class
//     names, or kseg's short names) or the New*Parser of each internal
//     topic, turns one record's key and value into a Result; parsers that
//     also implement Appender write into a caller's buffer, and Clone gives
//     another goroutine a parser of its own (Cloner).
//   - AppendControlRecord renders a KRaft control record's value;
//     DecodeRemoteLogMetadata decodes a __remote_log_metadata value into a
//     RemoteLogEvent for code that reasons about remote segments.
//   - JavaString, AppendJavaString and AppendJSONString: bytes as Java's
//     String sees them, and JSON strings with Jackson's escaping.
//   - Errors: *UnknownDecoderError for a decoder name kafka-dump-log does
//     not know, *CrashError for input the Java tool dies on.
//
// The package depends on no other kseg package except internal/varint,
// the varint decoder it shares with package batch.
//
// kseg's importable packages are batch, segment, index, content and
// located. Packages under github.com/kseg/kseg/internal/ and kseg's own
// command packages (cmd, report, producer) are not promised to importers
// and change with the tool.
package content
