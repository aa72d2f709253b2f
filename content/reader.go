package content

import (
	"encoding/binary"
	"fmt"
	"strconv"

	"github.com/kseg/kseg/internal/varint"
)

// javaError is a Java exception as Kafka's generated readers and
// ByteBufferAccessor throw it: its class and message. Error is the message;
// a nil message (BufferUnderflowException) prints as "null" when
// concatenated, as in Java.
type javaError struct{ class, msg string }

func (e *javaError) Error() string { return e.msg }

const (
	runtimeException   = "java.lang.RuntimeException"
	illegalArgument    = "java.lang.IllegalArgumentException"
	negativeArraySize  = "java.lang.NegativeArraySizeException"
	bufferUnderflowExc = "java.nio.BufferUnderflowException"
)

var errUnderflow = &javaError{bufferUnderflowExc, "null"} // BufferUnderflowException has no message

// errorf is a RuntimeException, which the generated readers throw for
// every check of their own.
func errorf(format string, args ...any) error {
	return &javaError{runtimeException, fmt.Sprintf(format, args...)}
}

// crash is the uncaught exception that err, a decoding error, stands for
// in kafka-dump-log while it prints the record at offset.
func crash(err error, offset int64) *CrashError {
	je, ok := err.(*javaError)
	if !ok {
		return &CrashError{Class: runtimeException, Message: err.Error(), Offset: offset}
	}
	c := &CrashError{Class: je.class, Message: je.msg, Offset: offset}
	if je == errUnderflow {
		c.Message = ""
	}
	return c
}

// reader is a cursor over a generated-message buffer with the semantics of
// Kafka's ByteBufferAccessor: fixed-width reads past the end fail with
// BufferUnderflowException, byte-array reads check the remaining length.
type reader struct {
	b []byte
	p int
}

func (r *reader) remaining() int { return len(r.b) - r.p }

func (r *reader) int8() (int8, error) {
	if r.remaining() < 1 {
		return 0, errUnderflow
	}
	v := int8(r.b[r.p])
	r.p++
	return v, nil
}

func (r *reader) int16() (int16, error) {
	if r.remaining() < 2 {
		return 0, errUnderflow
	}
	v := int16(binary.BigEndian.Uint16(r.b[r.p:]))
	r.p += 2
	return v, nil
}

func (r *reader) int32() (int32, error) {
	if r.remaining() < 4 {
		return 0, errUnderflow
	}
	v := int32(binary.BigEndian.Uint32(r.b[r.p:]))
	r.p += 4
	return v, nil
}

func (r *reader) int64() (int64, error) {
	if r.remaining() < 8 {
		return 0, errUnderflow
	}
	v := int64(binary.BigEndian.Uint64(r.b[r.p:]))
	r.p += 8
	return v, nil
}

// uvarint reads an unsigned varint as ByteUtils.readUnsignedVarint does: at
// most five bytes, the result is a Java int (it may be negative).
func (r *reader) uvarint() (int32, error) {
	x, n := varint.Uvarint(r.b[r.p:], 5)
	switch {
	case n > 0:
		r.p += n
		return int32(uint32(x)), nil
	case n == 0:
		r.p = len(r.b)
		return 0, errUnderflow
	}
	r.p += 5
	return 0, &javaError{illegalArgument, "Varint is too long, the most significant bit in the 5th byte is set, converted value: " +
		strconv.FormatUint(uint64(uint32(x)), 16)}
}

// array reads n bytes (Readable.readArray).
func (r *reader) array(n int32) ([]byte, error) {
	if n < 0 {
		// new byte[n] in Java: NegativeArraySizeException, message is the size.
		return nil, &javaError{negativeArraySize, strconv.Itoa(int(n))}
	}
	if int(n) > r.remaining() {
		return nil, errorf("Error reading byte array of %d byte(s): only %d byte(s) available", n, r.remaining())
	}
	v := r.b[r.p : r.p+int(n) : r.p+int(n)]
	r.p += int(n)
	return v, nil
}
