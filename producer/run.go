package producer

import (
	"crypto/sha256"
	"encoding/binary"

	"github.com/kseg/kseg/index"
	"github.com/kseg/kseg/internal/atomicfile"
)

// ErrOutputExists matches the error returned when the output directory
// exists and is not empty and force is not set, or force is set and the
// directory holds no OutputMarker (kseg did not write it).
var ErrOutputExists = atomicfile.ErrExists

// OutputMarker is the file every output directory holds; force replaces
// only a directory that holds it.
const OutputMarker = atomicfile.Marker

// Result is what a run wrote.
type Result struct {
	Dir        string
	TopicID    string
	Partitions []PartitionStats
	Faults     []InjectedFault
	// Batches is every batch in drain order with the model's cut reason
	// (empty from RunCounts).
	Batches []BatchCut
}

// topicID derives the topic's Uuid from the seed and topic name, so that
// output is reproducible. Like Uuid.randomUuid its 22-character base64url
// form never starts with '-'.
func topicID(seed uint64, topic string) index.Uuid {
	for i := uint64(0); ; i++ {
		h := sha256.New()
		var b [16]byte
		binary.BigEndian.PutUint64(b[:8], seed)
		binary.BigEndian.PutUint64(b[8:], i)
		h.Write([]byte("kseg topic id\x00"))
		h.Write(b[:])
		h.Write([]byte(topic))
		var id index.Uuid
		copy(id[:], h.Sum(nil))
		id[6] = id[6]&0x0f | 0x40 // version 4, as java.util.UUID.randomUUID
		id[8] = id[8]&0x3f | 0x80
		if id.String()[0] != '-' {
			return id
		}
	}
}

// Run models the producer for cfg and writes the partition directories
// into out, which must not exist or be empty unless force is set. The
// directory is built beside out and renamed into place, so out never holds
// a partial result.
func Run(cfg Config, out string, force bool) (*Result, error) {
	return run(cfg, out, force, true)
}

// RunCounts is Run without Result.Batches: what it holds does not grow
// with the batches written (a list of every batch is 48 bytes a batch,
// 100 MB for the two million batches of 10,000 keyed partitions).
func RunCounts(cfg Config, out string, force bool) (*Result, error) {
	return run(cfg, out, force, false)
}

func run(cfg Config, out string, force, cuts bool) (*Result, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	var res *Result
	err := atomicfile.WriteDir(out, force, func(tmp string) error {
		var err error
		res, err = write(cfg, tmp, cuts, nil)
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
	return write(cfg, dir, true, nil)
}

// write is Write, keeping Result.Batches when cuts is set, with the
// pending files' memory from pool (nil: a pool of writeBudget).
func write(cfg Config, dir string, cuts bool, pool *writePool) (*Result, error) {
	recs, err := prepare(&cfg)
	if err != nil {
		return nil, err
	}
	id := topicID(cfg.Seed, cfg.Topic)
	res := &Result{Dir: dir, TopicID: id.String()}
	writers := make([]*partitionWriter, cfg.Partitions)
	fail := func(err error) (*Result, error) {
		for _, w := range writers {
			if w != nil {
				w.abort()
			}
		}
		return nil, err
	}
	if pool == nil {
		pool = &writePool{budget: writeBudget}
	}
	for p := range writers {
		w, err := newPartitionWriter(&cfg, dir, p, pool)
		if err != nil {
			return fail(err)
		}
		writers[p] = w
	}
	inj := newInjector(cfg.Inject, writers)
	s := newSimWith(&cfg, inj.append, recs, nil)
	next := make([]int64, cfg.Partitions)
	hook := s.onDrain
	s.onDrain = func(d DrainedBatch) {
		if cuts {
			res.Batches = append(res.Batches, BatchCut{Partition: d.Partition, BaseOffset: next[d.Partition], Records: d.Records, Bytes: d.Bytes, Cut: d.Cut})
		}
		next[d.Partition] += int64(d.Records)
		if hook != nil {
			hook(d)
		}
	}
	if err := s.run(); err != nil {
		return fail(err)
	}
	if err := inj.finish(); err != nil {
		return fail(err)
	}
	for _, w := range writers {
		if err := w.close(id); err != nil {
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
