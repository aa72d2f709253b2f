package index

import (
	"bytes"
	"errors"
	"fmt"
	"strconv"

	"github.com/kseg/kseg/internal/rfile"
)

// The broker's checkpoint files, read back: leader-epoch-checkpoint in a
// partition directory and the offset checkpoints of a log directory
// (replication-offset-checkpoint: high watermarks,
// recovery-point-offset-checkpoint, log-start-offset-checkpoint). All have
// Kafka's generic checkpoint format (CheckpointFile): a version line (0), an
// entry count line, then one entry per line, fields separated by
// whitespace.

// MaxCheckpointSize is the largest checkpoint file kseg reads: 16 MiB, far
// above any broker's (an offset checkpoint has one short line per partition
// of its log directory). A larger file is refused before it is read, with
// an error matching ErrTooLarge.
const MaxCheckpointSize = 16 << 20

// ErrCorruptCheckpoint: a checkpoint file does not follow the format (Kafka
// reads it with "Malformed line in checkpoint file" or a count mismatch).
var ErrCorruptCheckpoint = errors.New("corrupt checkpoint file")

// OffsetCheckpointVersion is the version of the log directory's offset
// checkpoint files.
const OffsetCheckpointVersion = 0

// CheckpointOffset is one line of an offset checkpoint: "<topic> <partition> <offset>".
type CheckpointOffset struct {
	Topic     string
	Partition int32
	Offset    int64
}

// ParseLeaderEpochCheckpoint reads a leader-epoch-checkpoint's bytes. Errors
// are located (file name, byte offset of the line) and match
// ErrCorruptCheckpoint, ErrUnknownVersion or ErrTruncated.
func ParseLeaderEpochCheckpoint(name string, b []byte) ([]EpochEntry, error) {
	var out []EpochEntry
	err := parseCheckpoint(name, b, LeaderEpochCheckpointVersion, 2, func(f [][]byte) error {
		epoch, err := strconv.ParseInt(string(f[0]), 10, 32)
		if err != nil || epoch < 0 {
			return fmt.Errorf("epoch %q", f[0])
		}
		off, err := strconv.ParseInt(string(f[1]), 10, 64)
		if err != nil || off < 0 {
			return fmt.Errorf("start offset %q", f[1])
		}
		out = append(out, EpochEntry{Epoch: int32(epoch), StartOffset: off})
		return nil
	})
	return out, err
}

// ParseOffsetCheckpoint reads an offset checkpoint's bytes
// (replication-offset-checkpoint, recovery-point-offset-checkpoint,
// log-start-offset-checkpoint). Errors as ParseLeaderEpochCheckpoint's.
func ParseOffsetCheckpoint(name string, b []byte) ([]CheckpointOffset, error) {
	var out []CheckpointOffset
	err := parseCheckpoint(name, b, OffsetCheckpointVersion, 3, func(f [][]byte) error {
		p, err := strconv.ParseInt(string(f[1]), 10, 32)
		if err != nil || p < 0 {
			return fmt.Errorf("partition %q", f[1])
		}
		off, err := strconv.ParseInt(string(f[2]), 10, 64)
		if err != nil {
			return fmt.Errorf("offset %q", f[2])
		}
		out = append(out, CheckpointOffset{Topic: string(f[0]), Partition: int32(p), Offset: off})
		return nil
	})
	return out, err
}

// ReadLeaderEpochCheckpoint reads the file at path (at most
// MaxCheckpointSize bytes; regular files only).
func ReadLeaderEpochCheckpoint(path string) ([]EpochEntry, error) {
	b, err := readCheckpoint(path)
	if err != nil {
		return nil, err
	}
	return ParseLeaderEpochCheckpoint(path, b)
}

// ReadOffsetCheckpoint reads the offset checkpoint at path (at most
// MaxCheckpointSize bytes; regular files only).
func ReadOffsetCheckpoint(path string) ([]CheckpointOffset, error) {
	b, err := readCheckpoint(path)
	if err != nil {
		return nil, err
	}
	return ParseOffsetCheckpoint(path, b)
}

func readCheckpoint(path string) ([]byte, error) {
	b, err := rfile.ReadFile(path, MaxCheckpointSize)
	if err != nil {
		if errors.Is(err, rfile.ErrTooLarge) {
			return nil, errAt(path, MaxCheckpointSize, fmt.Errorf("checkpoint %w: %w (index.MaxCheckpointSize)", ErrTooLarge, err))
		}
		return nil, errAt(path, -1, err)
	}
	return b, nil
}

// parseCheckpoint walks Kafka's checkpoint format: the version line must be
// version, the count line a count the entries then match exactly, each
// entry fields whitespace-separated fields handed to entry.
func parseCheckpoint(name string, b []byte, version int, fields int, entry func([][]byte) error) error {
	pos := 0
	line := func() ([]byte, int, bool) {
		if pos >= len(b) {
			return nil, pos, false
		}
		start := pos
		i := bytes.IndexByte(b[pos:], '\n')
		if i < 0 {
			pos = len(b)
			return b[start:], start, true
		}
		pos += i + 1
		return bytes.TrimSuffix(b[start:pos-1], []byte{'\r'}), start, true
	}
	l, at, ok := line()
	if !ok {
		return errAt(name, 0, fmt.Errorf("%w: empty file: %w", ErrCorruptCheckpoint, ErrTruncated))
	}
	v, err := strconv.Atoi(string(bytes.TrimSpace(l)))
	if err != nil {
		return errAt(name, int64(at), fmt.Errorf("%w: version line %q", ErrCorruptCheckpoint, l))
	}
	if v != version {
		return errAt(name, int64(at), fmt.Errorf("%w: checkpoint version %d (Kafka writes %d): %w", ErrCorruptCheckpoint, v, version, ErrUnknownVersion))
	}
	l, at, ok = line()
	if !ok {
		return errAt(name, int64(at), fmt.Errorf("%w: no entry count: %w", ErrCorruptCheckpoint, ErrTruncated))
	}
	n, err := strconv.ParseInt(string(bytes.TrimSpace(l)), 10, 32)
	if err != nil || n < 0 {
		return errAt(name, int64(at), fmt.Errorf("%w: entry count %q", ErrCorruptCheckpoint, l))
	}
	for i := int64(0); i < n; i++ {
		l, at, ok = line()
		if !ok {
			return errAt(name, int64(at), fmt.Errorf("%w: %d entries announced, %d found: %w", ErrCorruptCheckpoint, n, i, ErrTruncated))
		}
		f := bytes.Fields(l)
		if len(f) != fields {
			return errAt(name, int64(at), fmt.Errorf("%w: malformed line %q (want %d fields)", ErrCorruptCheckpoint, l, fields))
		}
		if err := entry(f); err != nil {
			return errAt(name, int64(at), fmt.Errorf("%w: malformed line %q: %v", ErrCorruptCheckpoint, l, err))
		}
	}
	for {
		l, at, ok = line()
		if !ok {
			return nil
		}
		if len(bytes.TrimSpace(l)) > 0 {
			return errAt(name, int64(at), fmt.Errorf("%w: more than the %d entries announced", ErrCorruptCheckpoint, n))
		}
	}
}
