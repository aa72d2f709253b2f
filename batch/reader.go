package batch

import "fmt"

// BatchReader decodes the records of complete v2 batches, reusing its
// decompressor and record reader across batches.
type BatchReader struct {
	Decompressor Decompressor
	rr           RecordReader
	err          error
}

// Open prepares to read the records of batch b (the whole batch, header
// included). Like Kafka, a compressed batch is decompressed in full here, so
// a corrupt payload fails before any record is returned.
func (br *BatchReader) Open(b []byte, h *Header) error {
	br.err = nil
	if len(b) < HeaderSize {
		br.rr.Reset(nil, 0, HeaderSize)
		return formatErr(len(b), ErrTruncated, "batch of %d bytes is shorter than its 61-byte header", len(b))
	}
	section := b[HeaderSize:]
	if c := h.Codec(); c != CodecNone {
		out, err := br.Decompressor.Decompress(c, section, h.Magic)
		if err != nil {
			if fe, ok := err.(*FormatError); ok && fe.Pos == 0 {
				fe.Pos = HeaderSize
			}
			br.rr.Reset(nil, 0, HeaderSize)
			return err
		}
		br.rr.Reset(out, h.RecordCount, 0)
		br.rr.compressed = true
		return nil
	}
	br.rr.Reset(section, h.RecordCount, HeaderSize)
	return nil
}

// Next decodes the next record into rec; false with nil error at the end.
//
// In a compressed batch an error's Pos is the start of the compressed
// payload (61): positions in the decompressed records are not batch bytes,
// so the decompressed position goes into the message instead.
func (br *BatchReader) Next(rec *Record) (bool, error) {
	// one call, so this inlines into the caller's loop
	return br.rr.next(rec)
}

// slowNext is next for every record the fast path does not take: the
// longer fast path, then the careful one; in a compressed batch's records,
// errors are wrapped as BatchReader.Next says.
func (r *RecordReader) slowNext(rec *Record) (bool, error) {
	ok, err := r.nextSlow(rec)
	if err != nil && r.compressed {
		if fe, isFE := err.(*FormatError); isFE {
			detail := fe.Detail
			if detail == "" {
				detail = fe.Err.Error()
			}
			return false, &FormatError{Pos: HeaderSize, Err: fe.Err, Detail: fmt.Sprintf("%s (at byte %d of the decompressed records)", detail, fe.Pos)}
		}
	}
	return ok, err
}

// Leftover is the count of bytes after the last declared record.
func (br *BatchReader) Leftover() int { return br.rr.Leftover() }
