package batch

// The record decoder's fast path. A record that decodes cleanly with every
// varint of its usual size is decoded here with inlined varint reads and no
// per-field error bookkeeping; anything else (an error of any kind, a varint
// of 5 bytes or 10, which the slow path truncates as Kafka does) makes it
// give up, and the record is decoded again on the careful
// path, so errors and their positions are exactly the careful path's.

// uv2 reads an unsigned varint of one or two bytes at b[p:] and returns it
// with the position after it, or -1 (then uvLong reads it). It inlines.
func uv2(b []byte, p int) (uint64, int) {
	if p < len(b) {
		c := b[p]
		if c < 0x80 {
			return uint64(c), p + 1
		}
		if p+1 < len(b) && b[p+1] < 0x80 {
			return uint64(c&0x7f) | uint64(b[p+1])<<7, p + 2
		}
	}
	return 0, -1
}

//go:noinline
func uvLong(b []byte, p, max int) (uint64, int) {
	var x uint64
	var s uint
	for i := 0; i < max && p >= 0 && p+i < len(b); i++ {
		c := b[p+i]
		x |= uint64(c&0x7f) << s
		if c < 0x80 {
			return x, p + i + 1
		}
		s += 7
	}
	return 0, -1
}

// zz32 is the zigzag int32 of a varint of at most 4 bytes (28 bits, so no
// truncation differs from Kafka's 5-byte read).
func zz32(u uint64) int32 { v := uint32(u); return int32(v>>1) ^ -int32(v&1) }

// next is Next for RecordReader and BatchReader. It decodes the usual record itself (every varint
// of one or two bytes, no headers) and hands any other record, the end of
// the count and the tests' careful mode to slowNext: fastLong, then the
// careful decoder. Nothing it computes is live across a call, so the
// common case keeps everything in registers (with the long-varint calls
// inline, every field was spilled to the stack), and BatchReader.Next,
// one call to it, inlines: one call per record.
func (r *RecordReader) next(rec *Record) (bool, error) {
	if r.remaining <= 0 || r.careful {
		return r.slowNext(rec)
	}
	b := r.buf
	u, p := uv2(b, r.pos)
	if p < 0 {
		return r.slowNext(rec)
	}
	// lengths are zigzag: even is u/2, odd negative (a null key or value)
	bodyLen := int(u >> 1)
	if u&1 != 0 || bodyLen < 1 || bodyLen > len(b)-p {
		return r.slowNext(rec)
	}
	end := p + bodyLen
	b = b[:end] // every read below stops at the record's end
	attr := int8(b[p])
	ts, p := uv2(b, p+1)
	if p < 0 {
		return r.slowNext(rec)
	}
	od, p := uv2(b, p)
	if p < 0 {
		return r.slowNext(rec)
	}
	u, p = uv2(b, p)
	if p < 0 {
		return r.slowNext(rec)
	}
	var key []byte
	if l := int(u >> 1); u&1 == 0 {
		if l > end-p {
			return r.slowNext(rec)
		}
		key = b[p : p+l : p+l]
		p += l
	}
	u, p = uv2(b, p)
	if p < 0 {
		return r.slowNext(rec)
	}
	var value []byte
	if l := int(u >> 1); u&1 == 0 {
		if l > end-p {
			return r.slowNext(rec)
		}
		value = b[p : p+l : p+l]
		p += l
	}
	// the header count, a one-byte zero, ends the record
	if p+1 != end || b[p] != 0 {
		return r.slowNext(rec)
	}
	rec.Attributes = attr
	rec.TimestampDelta = int64(ts>>1) ^ -int64(ts&1)
	rec.OffsetDelta = zz32(od)
	rec.Key, rec.Value = key, value
	rec.Headers = r.headers[:0]
	rec.Size = end - r.pos
	r.pos = end
	r.remaining--
	return true, nil
}

// fastLong decodes the record at r.pos into rec and advances, or returns
// false having changed nothing but rec and the reused header slice (both of
// which the careful path sets again). It is next's fallback for what next
// does not take itself: varints of up to 4 bytes (9 for the timestamp
// delta), headers. It is long on purpose: one pass over the record with
// its varint reads written out, as next's are, on the decode hot path.
func (r *RecordReader) fastLong(rec *Record) bool {
	b := r.buf[r.pos:]
	u, p := uv2(b, 0)
	if p < 0 {
		if u, p = uvLong(b, 0, 4); p < 0 {
			return false
		}
	}
	// lengths are zigzag: even is u/2, odd negative (a null key or value)
	bodyLen := int(u >> 1)
	if u&1 != 0 || bodyLen < 1 || bodyLen > len(b)-p {
		return false
	}
	body := b[p : p+bodyLen]
	var q int
	size := p + bodyLen
	rec.Attributes = int8(body[0])
	q = 1
	if u, p = uv2(body, q); p < 0 {
		if u, p = uvLong(body, q, 9); p < 0 {
			return false
		}
	}
	rec.TimestampDelta = int64(u>>1) ^ -int64(u&1)
	q = p
	if u, p = uv2(body, q); p < 0 {
		if u, p = uvLong(body, q, 4); p < 0 {
			return false
		}
	}
	rec.OffsetDelta = zz32(u)
	// key, then value: a negative length is null
	q = p
	if u, p = uv2(body, q); p < 0 {
		if u, p = uvLong(body, q, 4); p < 0 {
			return false
		}
	}
	var key []byte
	if l := int(u >> 1); u&1 == 0 {
		if l > len(body)-p {
			return false
		}
		key = body[p : p+l : p+l]
		p += l
	}
	q = p
	if u, p = uv2(body, q); p < 0 {
		if u, p = uvLong(body, q, 4); p < 0 {
			return false
		}
	}
	var value []byte
	if l := int(u >> 1); u&1 == 0 {
		if l > len(body)-p {
			return false
		}
		value = body[p : p+l : p+l]
		p += l
	}
	rec.Key, rec.Value = key, value
	q = p
	if u, p = uv2(body, q); p < 0 {
		if u, p = uvLong(body, q, 4); p < 0 {
			return false
		}
	}
	hc := int(zz32(u))
	if hc < 0 || hc > len(body)-p {
		return false
	}
	if hc == 0 { // nearly always: no headers, and nothing to reset
		if p != len(body) {
			return false
		}
		rec.Headers = r.headers[:0]
		rec.Size = size
		r.pos += size
		r.remaining--
		return true
	}
	r.headers = r.headers[:0]
	for i := 0; i < hc; i++ {
		q = p
		if u, p = uv2(body, q); p < 0 {
			if u, p = uvLong(body, q, 4); p < 0 {
				return false
			}
		}
		kl := int(zz32(u))
		if kl < 0 || kl > len(body)-p {
			return false
		}
		h := RecordHeader{Key: body[p : p+kl : p+kl]}
		p += kl
		q = p
		if u, p = uv2(body, q); p < 0 {
			if u, p = uvLong(body, q, 4); p < 0 {
				return false
			}
		}
		if l := int(zz32(u)); l >= 0 {
			if l > len(body)-p {
				return false
			}
			h.Value = body[p : p+l : p+l]
			p += l
		}
		r.headers = append(r.headers, h)
	}
	if p != len(body) {
		return false
	}
	rec.Headers = r.headers
	rec.Size = size
	r.pos += size
	r.remaining--
	return true
}
