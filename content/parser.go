package content

import (
	"encoding/binary"
	"fmt"
	"strconv"
)

// Result is what a parser prints for one record: "key: <Key>" if HasKey and
// " payload: <Payload>" if HasPayload.
type Result struct {
	Key        string
	Payload    string
	HasKey     bool
	HasPayload bool
}

// Parser renders one record's key and value. A nil key or value slice means
// a null key or value (an empty non-nil slice is an empty one). Parse
// returns a *CrashError when kafka-dump-log would die with an uncaught
// exception; the caller prints it and stops.
type Parser interface {
	Parse(offset int64, key, value []byte) (Result, error)
}

// Cloner is implemented by parsers that keep scratch buffers: Clone returns
// a parser rendering the same way with buffers of its own, for another
// goroutine.
type Cloner interface {
	Clone() Parser
}

// Clone returns a parser safe to use beside p on another goroutine, or nil
// when p cannot say (it is not a Cloner).
func Clone(p Parser) Parser {
	if c, ok := p.(Cloner); ok {
		return c.Clone()
	}
	return nil
}

// Appender is implemented by parsers that can render a non-null key or
// value straight into the caller's line buffer, so the hot path of
// --print-data-log allocates nothing per record. ok=false means "not
// printed" (dst is then returned unchanged).
type Appender interface {
	AppendKey(dst []byte, offset int64, key []byte) (out []byte, ok bool, err error)
	AppendPayload(dst []byte, offset int64, value []byte) (out []byte, ok bool, err error)
}

// CrashError is an exception kafka-dump-log does not catch.
type CrashError struct {
	Class   string // Java exception class, e.g. "java.lang.RuntimeException"
	Message string // getMessage(); empty when Java's is null
	Offset  int64  // offset of the record being parsed
}

// Error renders the exception like Java's Throwable.toString.
func (e *CrashError) Error() string {
	if e.Message == "" {
		return e.Class
	}
	return e.Class + ": " + e.Message
}

// Reason is the exception's message, or Error's text when the message is
// null or does not stand alone (a NegativeArraySizeException's message is
// only the size).
func (e *CrashError) Reason() string {
	if e.Message == "" || e.Class == negativeArraySize {
		return e.Error()
	}
	return e.Message
}

// ---- coordinator record parsers ----

type coordinatorParser struct {
	types map[int16]recordType
	txn   bool // transaction log: print transactionStatus by name
	buf   []byte
}

// NewOffsetsParser returns the --offsets-decoder parser (__consumer_offsets),
// Kafka 4.4 format: key {"type":"<t>","data":{...}}, payload
// {"version":"<v>","data":{...}} or <DELETE>.
func NewOffsetsParser() Parser { return &coordinatorParser{types: groupRecordTypes} }

// NewTransactionLogParser returns the --transaction-log-decoder parser
// (__transaction_state), Kafka 4.4 format.
func NewTransactionLogParser() Parser { return &coordinatorParser{types: txnRecordTypes, txn: true} }

// NewShareGroupStateParser returns the --share-group-state-decoder parser
// (__share_group_state, KIP-932 share-coordinator records), Kafka 4.4
// format: like the offsets decoder.
func NewShareGroupStateParser() Parser { return &coordinatorParser{types: shareRecordTypes} }

// Clone implements Cloner.
func (p *coordinatorParser) Clone() Parser { return &coordinatorParser{types: p.types, txn: p.txn} }

func skipping(offset int64, msg string) Result {
	return Result{Key: "Error at offset " + strconv.FormatInt(offset, 10) + ", skipping. " + msg, HasKey: true}
}

func (p *coordinatorParser) Parse(offset int64, key, val []byte) (Result, error) {
	if key == nil {
		return Result{}, &CrashError{
			Class:   "java.lang.RuntimeException",
			Message: fmt.Sprintf("Failed to decode message at offset %d using the specified decoder (message had a missing key)", offset),
			Offset:  offset,
		}
	}
	if len(key) < 2 {
		return skipping(offset, "Could not read version from key's buffer."), nil
	}
	typ := int16(binary.BigEndian.Uint16(key))
	rt, ok := p.types[typ]
	if !ok {
		return Result{Key: fmt.Sprintf("Unknown record type %d at offset %d, skipping.", typ, offset), HasKey: true}, nil
	}
	// Keys are read ignoring the version argument (which Kafka sets to the
	// record type); their fields are all version 0.
	keyVals, err := decodeMessage(key[2:], rt.key, 0)
	if err != nil {
		return skipping(offset, fmt.Sprintf("Could not read record with version %d from key's buffer due to: %s.", typ, err)), nil
	}
	var valVals []value
	var ver int16
	if val != nil {
		if len(val) < 2 {
			return skipping(offset, "Could not read version from value's buffer."), nil
		}
		ver = int16(binary.BigEndian.Uint16(val))
		if !rt.value.valid.has(ver) {
			return skipping(offset, fmt.Sprintf("Found an unknown record version %d for %d type", ver, typ)), nil
		}
		valVals, err = decodeMessage(val[2:], rt.value, ver)
		if err != nil {
			return skipping(offset, fmt.Sprintf("Could not read record with version %d from value's buffer due to: %s.", ver, err)), nil
		}
	}

	var w jsonWriter
	b := append(p.buf[:0], `{"type":"`...)
	b = appendInt(b, int64(typ))
	b = append(b, `","data":`...)
	b = w.appendStruct(b, rt.key, keyVals, 0)
	b = append(b, '}')
	res := Result{Key: string(b), HasKey: true, HasPayload: true}
	if val == nil {
		res.Payload = "<DELETE>"
		p.buf = b
		return res, nil
	}
	if rt.value.name == "GroupMetadataValue" && !keyValsNull(valVals, 0) && string(valVals[0].b) == "consumer" {
		w.consumer = true
	}
	if p.txn {
		p.renameStatus(valVals, rt.value)
	}
	b = append(b[:0], `{"version":"`...)
	b = appendInt(b, int64(ver))
	b = append(b, `","data":`...)
	b = w.appendStruct(b, rt.value, valVals, ver)
	b = append(b, '}')
	res.Payload = string(b)
	p.buf = b
	return res, nil
}

func keyValsNull(vals []value, i int) bool { return len(vals) <= i || vals[i].null || !vals[i].set }

// renameStatus replaces the numeric transactionStatus by its state name as
// a string, as Kafka 4.4's TransactionLogMessageParser does (an unknown id
// becomes the number as a string).
func (p *coordinatorParser) renameStatus(vals []value, s *schema) {
	for i := range s.fields {
		if s.fields[i].name != "transactionStatus" {
			continue
		}
		id := vals[i].i
		name := strconv.FormatInt(id, 10)
		if id >= 0 && id < int64(len(transactionStateNames)) {
			name = transactionStateNames[id]
		}
		vals[i] = value{set: true, text: true, b: []byte(name)}
		return
	}
}
