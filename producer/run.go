package producer

import (
	"crypto/sha256"
	"encoding/base64"
	"encoding/binary"

	"github.com/kseg/kseg/internal/atomicfile"
)

// ErrOutputExists matches the error returned when the output directory
// exists and is not empty and force is not set.
var ErrOutputExists = atomicfile.ErrExists

// Result is what a run wrote.
type Result struct {
	Dir        string
	TopicID    string
	Partitions []PartitionStats
	Faults     []InjectedFault
}

// TopicID derives the topic's 22-character base64url Uuid from the seed
// and topic name, so that output is reproducible. Like Uuid.randomUuid it
// never starts with '-'.
func TopicID(seed uint64, topic string) string {
	for i := uint64(0); ; i++ {
		h := sha256.New()
		var b [16]byte
		binary.BigEndian.PutUint64(b[:8], seed)
		binary.BigEndian.PutUint64(b[8:], i)
		h.Write([]byte("kseg topic id\x00"))
		h.Write(b[:])
		h.Write([]byte(topic))
		sum := h.Sum(nil)[:16]
		sum[6] = sum[6]&0x0f | 0x40 // version 4, as java.util.UUID.randomUUID
		sum[8] = sum[8]&0x3f | 0x80
		id := base64.RawURLEncoding.EncodeToString(sum)
		if id[0] != '-' {
			return id
		}
	}
}

// Run models the producer for cfg and writes the partition directories
// into out, which must not exist or be empty unless force is set. The
// directory is built beside out and renamed into place, so out never holds
// a partial result.
func Run(cfg Config, out string, force bool) (*Result, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	var res *Result
	err := atomicfile.WriteDir(out, force, func(tmp string) error {
		var err error
		res, err = Write(cfg, tmp)
		return err
	})
	if err != nil {
		return nil, err
	}
	res.Dir = out
	return res, nil
}

// Write runs the model and writes the partition directories into dir,
// which must exist. It does not do the atomic placement; Run does.
func Write(cfg Config, dir string) (*Result, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	res := &Result{Dir: dir, TopicID: TopicID(cfg.Seed, cfg.Topic)}
	writers := make([]*partitionWriter, cfg.Partitions)
	fail := func(err error) (*Result, error) {
		for _, w := range writers {
			if w != nil {
				w.abort()
			}
		}
		return nil, err
	}
	for p := range writers {
		w, err := newPartitionWriter(&cfg, dir, p)
		if err != nil {
			return fail(err)
		}
		writers[p] = w
	}
	inj := newInjector(cfg.Inject, writers)
	s := newSim(&cfg, inj.append)
	if err := s.run(); err != nil {
		return fail(err)
	}
	if err := inj.finish(); err != nil {
		return fail(err)
	}
	for _, w := range writers {
		if err := w.close(res.TopicID); err != nil {
			return fail(err)
		}
		res.Partitions = append(res.Partitions, w.stats)
	}
	res.Faults = inj.done
	if len(cfg.Inject) > 0 {
		if err := writeFaults(dir, cfg.Topic, res.Faults); err != nil {
			return fail(err)
		}
	}
	return res, nil
}
