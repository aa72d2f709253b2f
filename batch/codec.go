package batch

import "fmt"

// Codec is a compression codec id from the attributes.
type Codec int8

const (
	CodecNone   Codec = 0
	CodecGzip   Codec = 1
	CodecSnappy Codec = 2
	CodecLZ4    Codec = 3
	CodecZstd   Codec = 4
)

// String is the lower-case name kafka-dump-log prints.
func (c Codec) String() string {
	switch c {
	case CodecNone:
		return "none"
	case CodecGzip:
		return "gzip"
	case CodecSnappy:
		return "snappy"
	case CodecLZ4:
		return "lz4"
	case CodecZstd:
		return "zstd"
	}
	return fmt.Sprintf("unknown(%d)", int8(c))
}

// Valid reports whether Kafka knows the codec id.
func (c Codec) Valid() bool { return c >= CodecNone && c <= CodecZstd }

// ParseCodec maps a codec name to its id.
func ParseCodec(name string) (Codec, error) {
	for c := CodecNone; c <= CodecZstd; c++ {
		if c.String() == name {
			return c, nil
		}
	}
	return 0, fmt.Errorf("unknown compression codec %q (want none, gzip, snappy, lz4 or zstd)", name)
}
