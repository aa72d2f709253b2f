package dump

import "github.com/kseg/kseg/content"

// redacted replaces a key, value or header value under --redact.
const redacted = "[redacted]"

// redactParser is --redact's record contents: "[redacted]" for every
// non-null key and value, null ones as Kafka prints them. The record
// line's sizes come from the record, so they stay.
type redactParser struct{}

func (redactParser) Parse(_ int64, key, value []byte) (content.Result, error) {
	var r content.Result
	if key != nil {
		r.Key, r.HasKey = redacted, true
	}
	if value != nil {
		r.Payload, r.HasPayload = redacted, true
	}
	return r, nil
}
