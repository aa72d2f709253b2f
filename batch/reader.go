package batch

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
		return nil
	}
	br.rr.Reset(section, h.RecordCount, HeaderSize)
	return nil
}

// Next decodes the next record into rec; false with nil error at the end.
func (br *BatchReader) Next(rec *Record) (bool, error) { return br.rr.Next(rec) }

// Leftover is the count of bytes after the last declared record.
func (br *BatchReader) Leftover() int { return br.rr.Leftover() }
