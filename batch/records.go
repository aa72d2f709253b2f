package batch

// RecordReader walks the records section of a magic-v2 batch (already
// decompressed). It allocates nothing per record: Key, Value and header
// slices alias the section, and the header slice is reused.
type RecordReader struct {
	buf       []byte
	pos       int
	base      int // position of buf[0] relative to the batch, for errors
	remaining int32
	headers   []RecordHeader
	careful   bool // tests: decode every record on the careful path
	// compressed: the section is a compressed batch's decompressed records
	// (set by BatchReader.Open; errors then say where in them)
	compressed bool
}

// Reset points the reader at a records section holding count records.
// basePos is where the section starts within the batch (61 for an
// uncompressed batch, 0 for a decompressed buffer), used in error positions.
func (r *RecordReader) Reset(section []byte, count int32, basePos int) {
	r.buf, r.pos, r.base, r.remaining = section, 0, basePos, count
	r.compressed = false
	r.headers = r.headers[:0]
}

// Leftover reports bytes after the last declared record, which Kafka
// rejects ("Incorrect declared batch size, records still remaining").
func (r *RecordReader) Leftover() int { return len(r.buf) - r.pos }

// Next decodes the next record into rec. It returns false with a nil error
// when the declared count is exhausted.
func (r *RecordReader) Next(rec *Record) (bool, error) { return r.next(rec) }

// nextSlow is Next past the common case (see next): the longer fast path,
// then the careful decoder, whose errors are the reader's errors.
func (r *RecordReader) nextSlow(rec *Record) (bool, error) {
	if r.remaining <= 0 {
		if r.remaining < 0 {
			return false, formatErr(r.base, ErrInvalidRecord, "Found invalid record count %d in magic v2 batch", r.remaining)
		}
		return false, nil
	}
	if !r.careful && r.fastLong(rec) {
		return true, nil
	}
	start := r.pos
	b := r.buf[r.pos:]
	if len(b) == 0 {
		return false, formatErr(r.base+start, ErrTruncated, "Incorrect declared batch size, premature EOF reached")
	}
	bodyLen, n := Varint(b)
	if n <= 0 {
		return false, r.varintErr(start, n)
	}
	if bodyLen < 0 || int(bodyLen) > len(b)-n {
		return false, formatErr(r.base+start, ErrTruncated, "Invalid record size: expected %d bytes in record payload, but instead the buffer has only %d remaining bytes.", bodyLen, len(b)-n)
	}
	body := b[n : n+int(bodyLen)]
	if err := r.decodeBody(body, rec, start+n); err != nil {
		return false, err
	}
	rec.Size = n + int(bodyLen)
	r.pos += rec.Size
	r.remaining--
	return true, nil
}

func (r *RecordReader) varintErr(at, n int) error {
	if n == 0 {
		return formatErr(r.base+at, ErrTruncated, "Found invalid record structure")
	}
	return formatErr(r.base+at, ErrBadVarint, "Found invalid record structure")
}

func (r *RecordReader) decodeBody(body []byte, rec *Record, at int) error {
	p := 0
	bad := func() error { return formatErr(r.base+at+p, ErrInvalidRecord, "Found invalid record structure") }
	if len(body) < 1 {
		return bad()
	}
	rec.Attributes = int8(body[0])
	p = 1
	ts, n := Varlong(body[p:])
	if n <= 0 {
		return r.varintErr(at+p, n)
	}
	rec.TimestampDelta = ts
	p += n
	od, n := Varint(body[p:])
	if n <= 0 {
		return r.varintErr(at+p, n)
	}
	rec.OffsetDelta = od
	p += n
	var ok bool
	if rec.Key, p, ok = readBytes(body, p); !ok {
		return bad()
	}
	if rec.Value, p, ok = readBytes(body, p); !ok {
		return bad()
	}
	hc, n := Varint(body[p:])
	if n <= 0 {
		return r.varintErr(at+p, n)
	}
	p += n
	if hc < 0 {
		return formatErr(r.base+at+p, ErrInvalidRecord, "Found invalid number of record headers %d", hc)
	}
	if int(hc) > len(body)-p {
		return formatErr(r.base+at+p, ErrInvalidRecord, "Found invalid number of record headers. %d is larger than the remaining size of the buffer", hc)
	}
	r.headers = r.headers[:0]
	for i := int32(0); i < hc; i++ {
		kl, n := Varint(body[p:])
		if n <= 0 {
			return r.varintErr(at+p, n)
		}
		p += n
		if kl < 0 {
			return formatErr(r.base+at+p, ErrInvalidRecord, "Invalid negative header key size %d", kl)
		}
		if int(kl) > len(body)-p {
			return bad()
		}
		h := RecordHeader{Key: body[p : p+int(kl) : p+int(kl)]}
		p += int(kl)
		if h.Value, p, ok = readBytes(body, p); !ok {
			return bad()
		}
		r.headers = append(r.headers, h)
	}
	rec.Headers = r.headers
	if p != len(body) {
		return formatErr(r.base+at, ErrInvalidRecord, "Invalid record size: expected to read %d bytes in record payload, but instead read %d", len(body), p)
	}
	return nil
}

// readBytes reads a varint length and that many bytes; negative = nil.
func readBytes(b []byte, p int) ([]byte, int, bool) {
	l, n := Varint(b[p:])
	if n <= 0 {
		return nil, p, false
	}
	p += n
	if l < 0 {
		return nil, p, true
	}
	if int(l) > len(b)-p {
		return nil, p, false
	}
	return b[p : p+int(l) : p+int(l)], p + int(l), true
}

// Size helpers for producer-side estimates and the JSON output.

// KeySize is Kafka's keySize: -1 for a null key.
func (r *Record) KeySize() int {
	if r.Key == nil {
		return -1
	}
	return len(r.Key)
}

// ValueSize is Kafka's valueSize: -1 for a null value.
func (r *Record) ValueSize() int {
	if r.Value == nil {
		return -1
	}
	return len(r.Value)
}
