package cmd

import (
	"encoding/base64"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"strconv"

	"github.com/kseg/kseg/report"
)

// newContentParser picks the record content renderer from the options.
func newContentParser(a *dumpArgs) (report.ContentParser, error) {
	k, err := decoderFor(a.keyDecoder)
	if err != nil {
		return nil, err
	}
	v, err := decoderFor(a.valDecoder)
	if err != nil {
		return nil, err
	}
	return &decoderParser{key: k, value: v}, nil
}

type decodeFunc func([]byte) (string, error)

func decoderFor(name string) (decodeFunc, error) {
	switch name {
	case "string", "org.apache.kafka.tools.api.StringDecoder":
		return func(b []byte) (string, error) { return report.JavaString(b), nil }, nil
	case "int", "integer", "org.apache.kafka.tools.api.IntegerDecoder":
		return func(b []byte) (string, error) {
			if len(b) < 4 {
				return "", fmt.Errorf("java.nio.BufferUnderflowException (IntegerDecoder needs 4 bytes, got %d)", len(b))
			}
			return strconv.Itoa(int(int32(binary.BigEndian.Uint32(b)))), nil
		}, nil
	case "long", "org.apache.kafka.tools.api.LongDecoder":
		return func(b []byte) (string, error) {
			if len(b) < 8 {
				return "", fmt.Errorf("java.nio.BufferUnderflowException (LongDecoder needs 8 bytes, got %d)", len(b))
			}
			return strconv.FormatInt(int64(binary.BigEndian.Uint64(b)), 10), nil
		}, nil
	case "hex":
		return func(b []byte) (string, error) { return hex.EncodeToString(b), nil }, nil
	case "base64":
		return func(b []byte) (string, error) { return base64.StdEncoding.EncodeToString(b), nil }, nil
	case "none":
		return nil, nil
	}
	return nil, fmt.Errorf("unknown decoder %q: use string, int, long, hex, base64, none or a Kafka decoder class (org.apache.kafka.tools.api.StringDecoder, IntegerDecoder, LongDecoder)", name)
}

type decoderParser struct{ key, value decodeFunc }

func (p *decoderParser) Parse(_ int64, key, value []byte) (string, bool, string, bool, error) {
	var k, v string
	var hasK, hasV bool
	var err error
	if key != nil && p.key != nil {
		if k, err = p.key(key); err != nil {
			return "", false, "", false, err
		}
		hasK = true
	}
	if value != nil && p.value != nil {
		if v, err = p.value(value); err != nil {
			return "", false, "", false, err
		}
		hasV = true
	}
	return k, hasK, v, hasV, nil
}
