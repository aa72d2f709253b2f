package producer

import (
	"crypto/sha256"
	"encoding/base64"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
)

// ErrOutputExists is returned when the output directory exists and is not
// empty and Force is not set.
var ErrOutputExists = errors.New("output directory exists and is not empty")

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
	err := WriteAtomic(out, force, func(tmp string) error {
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

// WriteAtomic calls fill with a fresh temporary directory beside out and,
// if it succeeds, renames that directory to out. out must not exist or be
// empty unless force is set (then the old directory is replaced). On any
// failure the temporary directory is removed and out is untouched.
func WriteAtomic(out string, force bool, fill func(tmp string) error) error {
	if err := checkOutput(out, force); err != nil {
		return err
	}
	parent := filepath.Dir(filepath.Clean(out))
	if err := os.MkdirAll(parent, 0o755); err != nil {
		return err
	}
	tmp, err := os.MkdirTemp(parent, "."+filepath.Base(filepath.Clean(out))+".tmp-")
	if err != nil {
		return err
	}
	if err := fill(tmp); err != nil {
		os.RemoveAll(tmp)
		return err
	}
	if err := os.Chmod(tmp, 0o755); err != nil {
		os.RemoveAll(tmp)
		return err
	}
	if err := place(tmp, out, force); err != nil {
		os.RemoveAll(tmp)
		return err
	}
	return nil
}

func checkOutput(out string, force bool) error {
	fi, err := os.Stat(out)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	if !fi.IsDir() {
		return fmt.Errorf("%s: %w (it is a file)", out, ErrOutputExists)
	}
	if empty, err := isEmptyDir(out); err != nil {
		return err
	} else if !empty && !force {
		return fmt.Errorf("%s: %w (use --force to replace it)", out, ErrOutputExists)
	}
	return nil
}

func isEmptyDir(dir string) (bool, error) {
	f, err := os.Open(dir)
	if err != nil {
		return false, err
	}
	defer f.Close()
	_, err = f.Readdirnames(1)
	if err == io.EOF {
		return true, nil
	}
	return false, err
}

// place renames the finished tmp directory to out, moving an existing out
// aside first (force) and deleting it afterwards.
func place(tmp, out string, force bool) error {
	fi, err := os.Stat(out)
	if errors.Is(err, os.ErrNotExist) {
		return os.Rename(tmp, out)
	}
	if err != nil {
		return err
	}
	if empty, err := isEmptyDir(out); err == nil && empty && fi.IsDir() {
		if err := os.Remove(out); err != nil {
			return err
		}
		return os.Rename(tmp, out)
	}
	if !force {
		return fmt.Errorf("%s: %w", out, ErrOutputExists)
	}
	old := tmp + ".old"
	if err := os.Rename(out, old); err != nil {
		return err
	}
	if err := os.Rename(tmp, out); err != nil {
		os.Rename(old, out)
		return err
	}
	return os.RemoveAll(old)
}

// Write runs the model and writes the partition directories into dir,
// which must exist. It does not do the atomic placement; Run does.
func Write(cfg Config, dir string) (*Result, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	recs, err := loadRecords(&cfg)
	if err != nil {
		return nil, err
	}
	if cfg.Records < 0 {
		cfg.Records = recs.count()
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
	s := newSimWith(&cfg, inj.append, recs, nil)
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
