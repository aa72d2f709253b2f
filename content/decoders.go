package content

import (
	"encoding/base64"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"hash/crc32"
	"strconv"
)

// decodeFunc appends the rendering of one key or value to dst; ok=false
// means "not printed".
type decodeFunc func(dst, b []byte) (out []byte, ok bool, err error)

type decoderParser struct {
	key, value decodeFunc
	// keyString and valueString: key and value are printed by the string
	// decoder (JavaStrings).
	keyString, valueString bool
	scratch                []byte
}

// NewStringParser returns the parser of kafka-dump-log's --key-decoder-class
// and --value-decoder-class options. A decoder is named by its Kafka class
// (org.apache.kafka.tools.api.StringDecoder, IntegerDecoder, LongDecoder,
// DefaultDecoder) or by a short name: string, int|integer, long, hex,
// base64, none. hex, base64 and none are kseg additions: lower-case hex,
// standard base64, and "do not print".
func NewStringParser(keyDecoder, valueDecoder string) (Parser, error) {
	k, err := lookupDecoder(keyDecoder)
	if err != nil {
		return nil, err
	}
	v, err := lookupDecoder(valueDecoder)
	if err != nil {
		return nil, err
	}
	return &decoderParser{key: k, value: v, keyString: isStringDecoder(keyDecoder), valueString: isStringDecoder(valueDecoder)}, nil
}

func isStringDecoder(name string) bool {
	return name == "" || name == "string" || name == "org.apache.kafka.tools.api.StringDecoder"
}

// JavaStrings tells which of p's key and value the string decoder prints:
// always, as AppendJavaString renders the bytes, with no error. A caller
// may then render them so itself (kseg dump's record lines do, saving the
// parser's calls per record).
func JavaStrings(p Parser) (key, value bool) {
	if d, ok := p.(*decoderParser); ok {
		return d.keyString, d.valueString
	}
	return false, false
}

// UnknownDecoderError is returned for a decoder name that is not known.
type UnknownDecoderError struct{ Name string }

func (e *UnknownDecoderError) Error() string {
	return fmt.Sprintf("unknown decoder %q (want org.apache.kafka.tools.api.{String,Integer,Long,Default}Decoder or string|int|integer|long|hex|base64|none)", e.Name)
}

func lookupDecoder(name string) (decodeFunc, error) {
	switch name {
	case "", "string", "org.apache.kafka.tools.api.StringDecoder":
		return decodeString, nil
	case "int", "integer", "org.apache.kafka.tools.api.IntegerDecoder":
		return decodeInt, nil
	case "long", "org.apache.kafka.tools.api.LongDecoder":
		return decodeLong, nil
	case "org.apache.kafka.tools.api.DefaultDecoder":
		return decodeDefault, nil
	case "hex":
		return func(dst, b []byte) ([]byte, bool, error) { return hex.AppendEncode(dst, b), true, nil }, nil
	case "base64":
		return func(dst, b []byte) ([]byte, bool, error) { return base64.StdEncoding.AppendEncode(dst, b), true, nil }, nil
	case "none":
		return func(dst, _ []byte) ([]byte, bool, error) { return dst, false, nil }, nil
	}
	return nil, &UnknownDecoderError{Name: name}
}

func decodeString(dst, b []byte) ([]byte, bool, error) { return AppendJavaString(dst, b), true, nil }

var errBufferUnderflow = &CrashError{Class: "java.nio.BufferUnderflowException"}

func decodeInt(dst, b []byte) ([]byte, bool, error) {
	if len(b) < 4 {
		return dst, false, errBufferUnderflow
	}
	return strconv.AppendInt(dst, int64(int32(binary.BigEndian.Uint32(b))), 10), true, nil
}

func decodeLong(dst, b []byte) ([]byte, bool, error) {
	if len(b) < 8 {
		return dst, false, errBufferUnderflow
	}
	return strconv.AppendInt(dst, int64(binary.BigEndian.Uint64(b)), 10), true, nil
}

// decodeDefault imitates Java printing a byte[]: "[B@" and an identity hash
// code. Java's hash is not reproducible; kseg uses the CRC-32 of the bytes
// so that the output is at least deterministic.
func decodeDefault(dst, b []byte) ([]byte, bool, error) {
	return strconv.AppendUint(append(dst, "[B@"...), uint64(crc32.ChecksumIEEE(b)), 16), true, nil
}

// Clone implements Cloner.
func (p *decoderParser) Clone() Parser {
	return &decoderParser{key: p.key, value: p.value, keyString: p.keyString, valueString: p.valueString}
}

func (p *decoderParser) Parse(offset int64, key, val []byte) (Result, error) {
	var res Result
	var ok bool
	var err error
	if key != nil {
		if p.scratch, ok, err = p.key(p.scratch[:0], key); err != nil {
			return Result{}, withOffset(err, offset)
		}
		res.Key, res.HasKey = string(p.scratch), ok
	}
	if val != nil {
		if p.scratch, ok, err = p.value(p.scratch[:0], val); err != nil {
			return Result{}, withOffset(err, offset)
		}
		res.Payload, res.HasPayload = string(p.scratch), ok
	}
	return res, nil
}

// AppendKey implements Appender.
func (p *decoderParser) AppendKey(dst []byte, offset int64, key []byte) ([]byte, bool, error) {
	out, ok, err := p.key(dst, key)
	return out, ok, withOffset(err, offset)
}

// AppendPayload implements Appender.
func (p *decoderParser) AppendPayload(dst []byte, offset int64, value []byte) ([]byte, bool, error) {
	out, ok, err := p.value(dst, value)
	return out, ok, withOffset(err, offset)
}

func withOffset(err error, offset int64) error {
	if err == nil {
		return nil
	}
	if c, ok := err.(*CrashError); ok {
		c2 := *c
		c2.Offset = offset
		return &c2
	}
	return err
}
