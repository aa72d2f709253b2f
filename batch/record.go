package batch

// Header is one record header. A nil Value is a null header value.
type RecordHeader struct {
	Key   []byte
	Value []byte
}

// Record is a decoded magic-v2 record (or a legacy message, see Legacy*).
// Key and Value alias the batch buffer (or the decompression buffer) and
// are only valid until the iterator moves on; nil means null.
type Record struct {
	Attributes     int8
	TimestampDelta int64
	OffsetDelta    int32
	Key            []byte
	Value          []byte
	Headers        []RecordHeader
	Size           int // encoded size including the length prefix
}
