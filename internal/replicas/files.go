package replicas

import (
	"errors"
	"io/fs"
	"path/filepath"

	"github.com/kseg/kseg/index"
	"github.com/kseg/kseg/segment"
)

// The checkpoint files a copy's facts come from: leader-epoch-checkpoint in
// the partition directory, the offset checkpoints in the log directory
// above it.
const (
	EpochCheckpointFile   = "leader-epoch-checkpoint"
	HighWatermarkFile     = "replication-offset-checkpoint"
	RecoveryPointFile     = "recovery-point-offset-checkpoint"
	LogStartOffsetFile    = "log-start-offset-checkpoint"
	epochCheckpointSource = "leader-epoch-checkpoint"
)

// FileInput is the copy held in partition directory p, named name: its
// segments, its leader-epoch-checkpoint and its log directory's
// checkpoints for it, where present. A checkpoint that exists but cannot
// be read is an error (located: file and byte offset).
func FileInput(name string, p *segment.Partition) (Input, error) {
	in := Input{Name: name, Part: p, LogStart: -1, HighWatermark: -1, RecoveryPoint: -1, LogEnd: -1, Broker: -1}
	cp, err := index.ReadLeaderEpochCheckpoint(filepath.Join(p.Dir, EpochCheckpointFile))
	switch {
	case err == nil:
		in.Checkpoint, in.CheckpointFrom = cp, epochCheckpointSource
		if in.Checkpoint == nil {
			in.Checkpoint = []index.EpochEntry{}
		}
	case !errors.Is(err, fs.ErrNotExist):
		return in, err
	}
	if p.Partition < 0 {
		return in, nil
	}
	logDir := filepath.Dir(p.Dir)
	for _, f := range []struct {
		name string
		dst  *int64
	}{{LogStartOffsetFile, &in.LogStart}, {HighWatermarkFile, &in.HighWatermark}, {RecoveryPointFile, &in.RecoveryPoint}} {
		entries, err := index.ReadOffsetCheckpoint(filepath.Join(logDir, f.name))
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return in, err
		}
		for _, e := range entries {
			if e.Topic == p.Topic && e.Partition == p.Partition {
				*f.dst = e.Offset
			}
		}
	}
	return in, nil
}
