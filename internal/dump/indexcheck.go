package dump

// Index checks against the log, as kafka-dump-log's --verify-index-only and
// kseg's own lookup check do: the batch an index entry points at and the
// records a time index entry promises. They read the log through package
// segment's stream and render nothing.

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/kseg/kseg/batch"
	"github.com/kseg/kseg/internal/rfile"
	"github.com/kseg/kseg/segment"
)

// indexedBatch is the log entry an index entry leads to.
type indexedBatch struct {
	Pos    int64
	Size   int64
	Magic  int8
	Header batch.Header // v2 only
	// BaseOffset and LastOffset as Kafka's index checks read them: for a
	// legacy entry both are the message's own offset (a wrapper's is that
	// of its last inner message), nothing is decompressed.
	BaseOffset, LastOffset int64
}

// indexLog is the .log beside an index, opened for checks.
type indexLog struct {
	name string // the log beside it: errors in its bytes are located there
	f    *os.File
	size int64
	br   batch.BatchReader
	dec  batch.Decompressor
	raw  []byte
	// kafka words errors as kafka-dump-log's exceptions (--files).
	kafka bool
}

// companion is the file beside name with the same base offset and the
// given suffix (".log", ".index").
func companion(name, suffix string) string {
	base := filepath.Base(name)
	prefix, _, _ := strings.Cut(base, ".")
	abs, err := filepath.Abs(name)
	if err != nil {
		abs = name
	}
	return filepath.Join(filepath.Dir(abs), prefix+suffix)
}

// ErrMissingLog: an index was dumped without the .log beside it, against
// which it is checked.
var ErrMissingLog = errors.New("index without its .log")

// missingLogError is Kafka's NoSuchFileException for an index's log; it
// matches ErrMissingLog and the cause from opening the log. Kafka's
// exception name is kept in its form (kafka); kseg's forms say it plainly.
type missingLogError struct {
	log   string
	cause error
	kafka bool
}

func (e *missingLogError) Error() string {
	if e.kafka {
		return "java.nio.file.NoSuchFileException: " + e.log + " (an index cannot be checked without its .log)"
	}
	return "no such file: " + e.log + " (an index cannot be checked without its .log)"
}
func (e *missingLogError) Unwrap() []error { return []error{ErrMissingLog, e.cause} }

// openIndexLog opens the companion .log of the index file name. Kafka crashes
// with NoSuchFileException when it is missing; the error says so, in
// Kafka's words when kafka is set (--files).
func openIndexLog(name string, maxDecompressed int, kafka bool) (*indexLog, error) {
	p := companion(name, ".log")
	// rfile, not os.Open: a FIFO named like the .log would block the open.
	f, info, err := rfile.OpenInfo(p)
	if errors.Is(err, rfile.ErrNotRegular) {
		return nil, &segment.Error{File: p, Offset: -1, Err: err}
	}
	if err != nil {
		return nil, &segment.Error{File: name, Offset: -1, Err: &missingLogError{p, err, kafka}}
	}
	if info.Dir {
		f.Close()
		return nil, &segment.Error{File: p, Offset: -1, Err: segment.ErrIsDirectory}
	}
	l := &indexLog{name: filepath.Join(filepath.Dir(name), filepath.Base(p)), f: f, size: info.Size, kafka: kafka}
	l.dec.Max = maxDecompressed
	l.br.Decompressor.Max = maxDecompressed
	return l, nil
}

// Close closes the log.
func (l *indexLog) Close() error { return l.f.Close() }

// Size is the log's size in bytes.
func (l *indexLog) Size() int64 { return l.size }

// Name is the log's path, beside the index as the user named it.
func (l *indexLog) Name() string { return l.name }

// stream frames the log from pos to end (a slice, as Kafka's
// FileRecords.slice), with positions relative to pos.
func (l *indexLog) stream(pos, end int64, block int) *segment.Stream {
	return segment.NewStream(segment.Source{Name: l.name, R: io.NewSectionReader(l.f, pos, end-pos), Size: end - pos},
		segment.Options{BlockSize: block, MaxDecompressed: l.dec.Max, LenientTail: true}) // a slice may end anywhere
}

// streamErr is a slice's error with its offset made absolute in the log:
// the stream counts from the start of the slice.
func (l *indexLog) streamErr(pos int64, err error) error {
	var le *segment.Error
	if errors.As(err, &le) && le.File == l.name && le.Offset >= 0 {
		return &segment.Error{File: l.name, Offset: pos + le.Offset, Err: le.Err}
	}
	return err
}

func (l *indexLog) sliceError(pos int64) error {
	return &segment.Error{File: l.name, Offset: pos, Err: fmt.Errorf("Slice from position %d exceeds end position of the log (%d bytes)", pos, l.size)}
}

func (l *indexLog) entry(pos int64, b *segment.Batch) (*indexedBatch, error) {
	e := &indexedBatch{Pos: pos + b.Pos, Size: b.Size, Magic: b.Magic, Header: b.Header}
	if !b.IsLegacy() {
		e.BaseOffset, e.LastOffset = b.Header.BaseOffset, b.Header.LastOffset()
		return e, nil
	}
	raw, err := b.Bytes()
	if err != nil {
		return nil, l.streamErr(pos, err)
	}
	m, err := batch.ParseLegacy(raw)
	if err != nil {
		return nil, segment.Locate(l.name, e.Pos, err)
	}
	e.BaseOffset, e.LastOffset = m.Offset, m.Offset
	return e, nil
}

// BatchAt frames the first entry in [pos, pos+window) as
// fileRecords.slice(pos, window).batches().iterator().next() does.
func (l *indexLog) BatchAt(pos int64, window int) (*indexedBatch, error) {
	if pos > l.size {
		return nil, l.sliceError(pos)
	}
	end := pos + int64(window)
	if end > l.size || end < pos {
		end = l.size
	}
	st := l.stream(pos, end, 4096)
	if !st.Next() {
		if err := st.Err(); err != nil {
			return nil, l.streamErr(pos, err)
		}
		msg := "no whole batch at the indexed position"
		if l.kafka {
			msg = "java.util.NoSuchElementException: " + msg
		}
		return nil, &segment.Error{File: l.name, Offset: pos, Err: errors.New(msg)}
	}
	return l.entry(pos, st.Batch())
}

// FirstEnding frames the log from pos to its end (all of it, as Kafka
// collects every batch first) and returns the first batch whose last
// offset is at least target, with its bytes; nil when there is none.
func (l *indexLog) FirstEnding(pos, target int64) (*indexedBatch, []byte, error) {
	if pos > l.size {
		return nil, nil, l.sliceError(pos)
	}
	st := l.stream(pos, l.size, 0)
	var found *indexedBatch
	for st.Next() {
		if found != nil {
			continue
		}
		e, err := l.entry(pos, st.Batch())
		if err != nil {
			return nil, nil, err
		}
		if e.LastOffset >= target {
			raw, err := st.Batch().Bytes()
			if err != nil {
				return nil, nil, l.streamErr(pos, err)
			}
			found = e
			l.raw = append(l.raw[:0], raw...)
		}
	}
	if err := st.Err(); err != nil {
		return nil, nil, l.streamErr(pos, err)
	}
	return found, bytes.Clone(l.raw), nil
}

// MaxRecordTimestamp is the largest record timestamp in the batch (raw is
// its bytes), what a time index entry must equal.
func (l *indexLog) MaxRecordTimestamp(e *indexedBatch, raw []byte) (int64, error) {
	maxTs := batch.NoTimestamp
	if e.Magic < batch.MagicV2 {
		w, err := batch.ParseLegacy(raw)
		if err != nil {
			return 0, segment.Locate(l.name, e.Pos, err)
		}
		var it batch.LegacyIter
		if err := it.Open(&w, &l.dec); err != nil {
			return 0, segment.Locate(l.name, e.Pos, err)
		}
		for it.Next() {
			maxTs = max(maxTs, it.Message().Timestamp)
		}
		return maxTs, nil
	}
	h := &e.Header
	if err := l.br.Open(raw, h); err != nil {
		return 0, segment.Locate(l.name, e.Pos, err)
	}
	var rec batch.Record
	for {
		ok, err := l.br.Next(&rec)
		if err != nil {
			return 0, segment.Locate(l.name, e.Pos, err)
		}
		if !ok {
			return maxTs, nil
		}
		ts := h.BaseTimestamp + rec.TimestampDelta
		if h.TimestampType() == batch.LogAppendTime {
			ts = h.MaxTimestamp
		}
		maxTs = max(maxTs, ts)
	}
}

// lookupHolds is kseg's own check for an entry whose batch's last offset
// is not the indexed one (Kafka's strict mismatch): the broker only needs
// a batch to start at the position with a base offset at or below the
// indexed offset. Entries a follower wrote (one per multi-batch append,
// before Kafka 4.0) satisfy it.
func lookupHolds(indexedOffset int64, b *indexedBatch) bool { return b.BaseOffset <= indexedOffset }
