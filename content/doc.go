// Package content renders the key and value of one record the way
// kafka-dump-log (DumpLogSegments, Kafka 4.4) prints them after "key:" and
// "payload:": the plain decoders (StringDecoder, IntegerDecoder, ...), the
// --offsets-decoder for __consumer_offsets, the --transaction-log-decoder
// for __transaction_state, the --share-group-state-decoder for
// __share_group_state and the --remote-log-metadata-decoder for
// __remote_log_metadata (which prints the Java objects' toString, not JSON); and the values of KRaft control records
// (LeaderChange, SnapshotHeader, SnapshotFooter, KRaftVersion, KRaftVoters)
// as printControlRecord shows them.
//
// The coordinator, metadata and control record decoders read Kafka's
// generated-message encoding through one small schema
// interpreter and write compact JSON with Jackson's escaping rules
// (as kafka-dump-log prints it). Decode errors that the Java tool
// turns into an "Error at offset ..." key are returned as a key string, the
// same way; errors that crash the Java tool come back as a *CrashError.
//
// The package depends on no other kseg package except internal/varint,
// the varint decoder it shares with package batch.
package content
