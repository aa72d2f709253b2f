package index

import (
	"encoding/base64"
	"strconv"
)

// The broker's text files in a partition directory, as the reference
// producer writes them (docs/producer-model.md, Broker write path).
// checkpoint_read.go reads checkpoints back (kseg replicas).

// Checkpoint file versions Kafka writes.
const (
	LeaderEpochCheckpointVersion = 0
	PartitionMetadataVersion     = 0
)

// EpochEntry is one leader-epoch-checkpoint line: "<epoch> <startOffset>".
type EpochEntry struct {
	Epoch       int32
	StartOffset int64
}

// AppendLeaderEpochCheckpoint appends a leader-epoch-checkpoint in Kafka's
// generic checkpoint format (CheckpointFile.write): the version, the entry
// count, then one "<epoch> <startOffset>" line per entry, each line ending
// in "\n".
func AppendLeaderEpochCheckpoint(dst []byte, entries []EpochEntry) []byte {
	dst = strconv.AppendInt(dst, LeaderEpochCheckpointVersion, 10)
	dst = append(dst, '\n')
	dst = strconv.AppendInt(dst, int64(len(entries)), 10)
	dst = append(dst, '\n')
	for _, e := range entries {
		dst = strconv.AppendInt(dst, int64(e.Epoch), 10)
		dst = append(dst, ' ')
		dst = strconv.AppendInt(dst, e.StartOffset, 10)
		dst = append(dst, '\n')
	}
	return dst
}

// Uuid is a Kafka Uuid (topic id), 16 bytes big-endian.
type Uuid [16]byte

// String renders u like Kafka's Uuid.toString: unpadded base64url, 22 chars.
func (u Uuid) String() string { return base64.RawURLEncoding.EncodeToString(u[:]) }

// PartitionMetadata is partition.metadata.
type PartitionMetadata struct {
	Version int32
	TopicID Uuid
}

// AppendTo appends "version: 0\ntopic_id: <id>" with no trailing newline,
// exactly as the broker writes partition.metadata.
func (m PartitionMetadata) AppendTo(dst []byte) []byte {
	dst = append(dst, "version: "...)
	dst = strconv.AppendInt(dst, int64(m.Version), 10)
	dst = append(dst, "\ntopic_id: "...)
	return append(dst, m.TopicID.String()...)
}
