package index

import (
	"errors"

	"github.com/kseg/kseg/located"
)

// Sentinel errors, usable with errors.Is on anything this package returns.
var (
	// ErrCorruptIndex: an index failed a structural or sanity check
	// (Kafka's CorruptIndexException).
	ErrCorruptIndex = errors.New("corrupt index")
	// ErrCorruptSnapshot: a producer snapshot is unreadable
	// (Kafka's CorruptSnapshotException). ErrBadCRC and ErrUnknownVersion
	// errors from snapshots also match this.
	ErrCorruptSnapshot = errors.New("corrupt producer snapshot")
	// ErrBadCRC: a stored checksum does not match the computed one.
	ErrBadCRC = errors.New("checksum mismatch")
	// ErrTruncated: the data ends before a structure it announces.
	ErrTruncated = errors.New("truncated")
	// ErrUnknownVersion: a version field holds a value Kafka rejects.
	ErrUnknownVersion = errors.New("unknown version")
	// ErrMalformed: a field holds a value its structure cannot have (a
	// negative producer-snapshot entry count).
	ErrMalformed = errors.New("malformed")
	// ErrTooLarge: a file is larger than kseg reads of its kind
	// (MaxSnapshotSize); not a corruption, a refusal.
	ErrTooLarge = errors.New("too large")
	// ErrBadName: a file or directory name does not follow Kafka's scheme.
	ErrBadName = errors.New("bad file name")
)

// Error is the error type returned by the decoders: kseg's one located
// error (file when known, byte offset or -1, cause).
type Error = located.Error

// KafkaError is a cause whose text is exactly what Kafka itself reports
// for the same condition, so a kafka-dump-log compatible tool can print
// Msg verbatim. Exception is the simple name of the Java exception class
// Kafka throws (CorruptIndexException, CorruptSnapshotException,
// KafkaException). Kind is the sentinel it matches.
type KafkaError struct {
	Exception string
	Msg       string
	Kind      error
}

func (e *KafkaError) Error() string { return e.Msg }
func (e *KafkaError) Unwrap() error { return e.Kind }

// KafkaMessage returns the Kafka-compatible message carried by err, if any.
func KafkaMessage(err error) (string, bool) {
	var ke *KafkaError
	if errors.As(err, &ke) {
		return ke.Msg, true
	}
	return "", false
}

// multiKind lets one cause match two sentinels (e.g. ErrCorruptSnapshot
// and ErrBadCRC).
type multiKind struct {
	msg   string
	kinds []error
}

func (m *multiKind) Error() string   { return m.msg }
func (m *multiKind) Unwrap() []error { return m.kinds }

func kinds(msg string, k ...error) error { return &multiKind{msg: msg, kinds: k} }

func errAt(file string, off int64, err error) error {
	return &Error{File: file, Offset: off, Err: err}
}
