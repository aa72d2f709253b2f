package content

import (
	"bytes"
	"math"
)

// This file is a small interpreter for Kafka's generated-message encoding
// (what Kafka's message generator emits): a message schema is data (fields with types,
// versions, nullability and tags, as in Kafka's message JSON files) and
// decodeStruct reads it with the checks and error texts of the code Kafka
// generates from those files; appendStruct writes the JSON that Kafka's
// generated *JsonConverter classes produce.

type kind uint8

const (
	kBool kind = iota + 1
	kInt8
	kInt16
	kUint16
	kInt32
	kUint32
	kInt64
	kFloat64
	kUUID
	kString
	kBytes
	kStruct
	kArray
)

const maxVersion = 0x7fff

// vrange is a version range such as "0+", "1", "0-3"; lo < 0 means none.
type vrange struct{ lo, hi int16 }

var noVersions = vrange{-1, -1}

func (v vrange) has(x int16) bool { return v.lo >= 0 && x >= v.lo && x <= v.hi }

// vr parses Kafka's version-range syntax. It panics on a malformed literal,
// which only happens at package initialisation (schemas are constants).
func vr(s string) vrange {
	if s == "none" || s == "" {
		return noVersions
	}
	num := func(t string) int16 {
		n := 0
		for _, c := range t {
			if c < '0' || c > '9' {
				panic("content: bad version range " + s)
			}
			n = n*10 + int(c-'0')
		}
		return int16(n)
	}
	if s[len(s)-1] == '+' {
		return vrange{num(s[:len(s)-1]), maxVersion}
	}
	if i := bytes.IndexByte([]byte(s), '-'); i > 0 {
		return vrange{num(s[:i]), num(s[i+1:])}
	}
	n := num(s)
	return vrange{n, n}
}

type expandKind uint8

const (
	expandNone expandKind = iota
	expandSubscription
	expandAssignment
)

type field struct {
	name     string // JSON and error-message name (camelCase)
	kind     kind
	elem     kind    // element kind of a kArray
	sub      *schema // struct type of a kStruct or of a kArray of kStruct
	versions vrange
	nullable vrange
	tagged   bool
	tag      int32
	defInt   int64 // default of a tagged numeric field
	defNull  bool  // "default": "null": a tagged field is written iff it is not null
	mapKey   bool  // array of structs keyed by its first (string) field: duplicates are dropped
	expand   expandKind
}

type schema struct {
	name     string
	fields   []field
	valid    vrange // valid versions of a top-level message
	flexible vrange
}

// value is one decoded field. For arrays, list holds the elements; for
// structs, list holds one value per schema field.
type value struct {
	set  bool // present: in this version, or a tagged field that was read
	null bool
	text bool // print b as a JSON string whatever the field's type
	i    int64
	b    []byte
	list []value
}

type decoder struct {
	r    reader
	ver  int16
	flex bool
	// loose: versions are not validated before reading (metadata records),
	// so the generated code's version tests apply as written: a field of
	// versions "0+" is read unconditionally (even at a negative version),
	// one of "N+" only when ver >= N.
	loose bool
}

// in reports whether a field of versions v exists at the decoder's version.
func (d *decoder) in(v vrange) bool {
	if d.loose && v.lo == 0 && v.hi == maxVersion {
		return true
	}
	return v.has(d.ver)
}

func (d *decoder) length(f *field, compact32 bool) (int32, error) {
	if d.flex {
		n, err := d.r.uvarint()
		return n - 1, err
	}
	if compact32 {
		return d.r.int32()
	}
	n, err := d.r.int16()
	return int32(n), err
}

func (d *decoder) str(name string, nullable bool) (value, error) {
	var n int32
	var err error
	if d.flex {
		var u int32
		u, err = d.r.uvarint()
		n = u - 1
	} else {
		var s int16
		s, err = d.r.int16()
		n = int32(s)
	}
	if err != nil {
		return value{}, err
	}
	if n < 0 {
		if nullable {
			return value{set: true, null: true}, nil
		}
		return value{}, errorf("non-nullable field %s was serialized as null", name)
	}
	if n > 0x7fff {
		return value{}, errorf("string field %s had invalid length %d", name, n)
	}
	b, err := d.r.array(n)
	return value{set: true, b: b}, err
}

func (d *decoder) field(f *field) (value, error) {
	nullable := d.in(f.nullable)
	switch f.kind {
	case kString:
		return d.str(f.name, nullable)
	case kBytes:
		n, err := d.length(f, true)
		if err != nil {
			return value{}, err
		}
		if n < 0 {
			if nullable {
				return value{set: true, null: true}, nil
			}
			return value{}, errorf("non-nullable field %s was serialized as null", f.name)
		}
		b, err := d.r.array(n)
		return value{set: true, b: b}, err
	case kStruct:
		return d.structField(f, nullable)
	case kArray:
		return d.arrayField(f, nullable)
	default:
		return d.scalar(f.kind)
	}
}

// structField reads a struct field: its presence first when nullable
// (an unsigned varint in a tagged field, else an int8), then its fields.
func (d *decoder) structField(f *field, nullable bool) (value, error) {
	if nullable {
		var present bool
		if f.tagged {
			m, err := d.r.uvarint()
			if err != nil {
				return value{}, err
			}
			present = m > 0
		} else {
			m, err := d.r.int8()
			if err != nil {
				return value{}, err
			}
			present = m >= 0
		}
		if !present {
			return value{set: true, null: true}, nil
		}
	}
	list, err := d.structFields(f.sub)
	return value{set: true, list: list}, err
}

// arrayField reads an array field: its length, checked as Kafka checks
// it, then its elements (a map's struct with a key already read is
// dropped).
func (d *decoder) arrayField(f *field, nullable bool) (value, error) {
	n, err := d.length(f, true)
	if err != nil {
		return value{}, err
	}
	if n < 0 {
		if nullable {
			return value{set: true, null: true}, nil
		}
		return value{}, errorf("non-nullable field %s was serialized as null", f.name)
	}
	if int(n) > d.r.remaining() {
		return value{}, errorf("Tried to allocate a collection of size %d, but there are only %d bytes remaining.", n, d.r.remaining())
	}
	if n > 1000000 {
		return value{}, errorf("Tried to read a collection of size %d, which exceeds the maximum allowed size of 1000000.", n)
	}
	list := make([]value, 0, n)
	for j := int32(0); j < n; j++ {
		var e value
		switch f.elem {
		case kStruct:
			fs, err := d.structFields(f.sub)
			if err != nil {
				return value{}, err
			}
			e = value{set: true, list: fs}
			if f.mapKey && containsKey(list, e) {
				continue
			}
		case kString:
			e, err = d.str(f.name+" element", false)
		default:
			e, err = d.scalar(f.elem)
		}
		if err != nil {
			return value{}, err
		}
		list = append(list, e)
	}
	return value{set: true, list: list}, nil
}

// containsKey reports whether list holds a struct whose first field (a
// string) decodes to the same Java string as e's: Kafka keeps such
// collections in an ImplicitLinkedHashCollection, whose add ignores duplicates.
func containsKey(list []value, e value) bool {
	k := e.list[0]
	for _, o := range list {
		ok := o.list[0]
		if ok.null == k.null && (bytes.Equal(ok.b, k.b) || JavaString(ok.b) == JavaString(k.b)) {
			return true
		}
	}
	return false
}

func (d *decoder) scalar(k kind) (value, error) {
	v := value{set: true}
	var err error
	switch k {
	case kBool:
		var x int8
		x, err = d.r.int8()
		if x != 0 {
			v.i = 1
		}
	case kInt8:
		var x int8
		x, err = d.r.int8()
		v.i = int64(x)
	case kInt16:
		var x int16
		x, err = d.r.int16()
		v.i = int64(x)
	case kUint16:
		var x int16
		x, err = d.r.int16()
		v.i = int64(uint16(x))
	case kInt32:
		var x int32
		x, err = d.r.int32()
		v.i = int64(x)
	case kUint32:
		var x int32
		x, err = d.r.int32()
		v.i = int64(uint32(x))
	case kInt64, kFloat64:
		v.i, err = d.r.int64()
	case kUUID:
		if d.r.remaining() < 16 {
			// two readLong calls: the first or the second underflows
			return value{}, errUnderflow
		}
		v.b, err = d.r.array(16)
	}
	return v, err
}

// structFields reads one struct: its fields in order, then (flexible
// versions) its tagged-field section.
func (d *decoder) structFields(s *schema) ([]value, error) {
	vals := make([]value, len(s.fields))
	for i := range s.fields {
		f := &s.fields[i]
		if !d.in(f.versions) {
			continue
		}
		if f.tagged {
			vals[i] = defaultValue(f)
			continue
		}
		v, err := d.field(f)
		if err != nil {
			return nil, err
		}
		vals[i] = v
	}
	if !d.flex {
		return vals, nil
	}
	n, err := d.r.uvarint()
	if err != nil {
		return nil, err
	}
	if n < 0 {
		return nil, errorf("Invalid negative number of tagged fields %d", n)
	}
	if int(n) > d.r.remaining() {
		return nil, errorf("Tried to read %d tagged fields, but there are only %d bytes remaining.", n, d.r.remaining())
	}
	if n > 10000 {
		return nil, errorf("Tried to read %d tagged fields, which exceeds the maximum allowed count of 10000.", n)
	}
	for j := int32(0); j < n; j++ {
		tag, err := d.r.uvarint()
		if err != nil {
			return nil, err
		}
		size, err := d.r.uvarint()
		if err != nil {
			return nil, err
		}
		idx := -1
		for i := range s.fields {
			if s.fields[i].tagged && s.fields[i].tag == tag {
				idx = i
				break
			}
		}
		if idx < 0 {
			if _, err := d.r.array(size); err != nil {
				return nil, err
			}
			continue
		}
		if !d.in(s.fields[idx].versions) {
			return nil, errorf("Tag %d is not valid for version %d", tag, d.ver)
		}
		// Known tags are read by type; the size is not checked (as in Kafka).
		v, err := d.field(&s.fields[idx])
		if err != nil {
			return nil, err
		}
		vals[idx] = v
	}
	return vals, nil
}

// decodeMessage reads a whole message at version ver.
func decodeMessage(b []byte, s *schema, ver int16) ([]value, error) {
	d := decoder{r: reader{b: b}, ver: ver, flex: s.flexible.has(ver)}
	return d.structFields(s)
}

// defaultValue is the value of a tagged field that is absent. Kafka's
// generated constructors ignore a "default": null on arrays and structs:
// they start as an empty list or a freshly constructed struct (which the
// JSON converter then leaves out, see isDefault), so only defNull fields
// and nullable strings and bytes default to null; numbers take their
// default, UUIDs the zero UUID.
func defaultValue(f *field) value {
	switch {
	case f.defNull:
		return value{set: true, null: true}
	case f.kind == kArray:
		return value{set: true}
	case f.kind == kStruct:
		return value{set: true, list: make([]value, len(f.sub.fields))}
	case f.nullable.lo >= 0:
		return value{set: true, null: true}
	case f.kind == kUUID:
		return value{set: true, b: zeroUUID[:]}
	}
	return value{set: true, i: f.defInt}
}

// isDefault reports whether the generated JSON converter leaves a tagged
// field out. Kafka's generator compares against the type's "empty" value,
// not the schema default, for structs and arrays: a tagged struct is left
// out only if it equals a freshly constructed struct, a tagged array only
// if it is empty, so a null one is written as null.
func isDefault(f *field, v *value) bool {
	if f.defNull {
		return v.null
	}
	switch f.kind {
	case kStruct:
		return !v.null && isEmptyStruct(f.sub, v.list)
	case kArray:
		return !v.null && len(v.list) == 0
	case kString, kBytes:
		return v.null
	case kUUID:
		return bytes.Equal(v.b, zeroUUID[:])
	default:
		return v.i == f.defInt
	}
}

// isEmptyStruct reports whether vals equal a default-constructed struct of
// schema s (numbers at their defaults, strings and bytes empty, arrays
// empty, nested structs empty).
func isEmptyStruct(s *schema, vals []value) bool {
	for i := range s.fields {
		f, v := &s.fields[i], &vals[i]
		if !v.set {
			continue
		}
		switch f.kind {
		case kString, kBytes:
			if v.null || len(v.b) > 0 {
				return false
			}
		case kArray:
			if v.null || len(v.list) > 0 {
				return false
			}
		case kStruct:
			if v.null || !isEmptyStruct(f.sub, v.list) {
				return false
			}
		case kUUID:
			if !bytes.Equal(v.b, zeroUUID[:]) {
				return false
			}
		default:
			if v.i != f.defInt {
				return false
			}
		}
	}
	return true
}

var zeroUUID [16]byte

type jsonWriter struct {
	consumer bool // GroupMetadataValue with protocolType "consumer": expand subscription/assignment
}

func (w *jsonWriter) appendStruct(dst []byte, s *schema, vals []value, ver int16) []byte {
	dst = append(dst, '{')
	first := true
	for i := range s.fields {
		f, v := &s.fields[i], &vals[i]
		if !v.set || (f.tagged && isDefault(f, v)) {
			continue
		}
		if !first {
			dst = append(dst, ',')
		}
		first = false
		dst = appendJSONString(dst, f.name)
		dst = append(dst, ':')
		dst = w.appendValue(dst, f, f.kind, v, ver)
	}
	return append(dst, '}')
}

func (w *jsonWriter) appendValue(dst []byte, f *field, k kind, v *value, ver int16) []byte {
	if v.null {
		return append(dst, "null"...)
	}
	if v.text {
		return appendJSONString(dst, v.b)
	}
	switch k {
	case kBool:
		if v.i != 0 {
			return append(dst, "true"...)
		}
		return append(dst, "false"...)
	case kString:
		return appendJSONJavaString(dst, v.b)
	case kBytes:
		if w.consumer && f.expand != expandNone {
			if out, ok := appendConsumerProtocol(dst, f.expand, v.b); ok {
				return out
			}
		}
		return appendBase64(dst, v.b)
	case kUUID:
		return appendUUID(dst, v.b)
	case kFloat64:
		return appendJavaDouble(dst, math.Float64frombits(uint64(v.i)))
	case kStruct:
		return w.appendStruct(dst, f.sub, v.list, ver)
	case kArray:
		dst = append(dst, '[')
		for j := range v.list {
			if j > 0 {
				dst = append(dst, ',')
			}
			dst = w.appendValue(dst, f, f.elem, &v.list[j], ver)
		}
		return append(dst, ']')
	default:
		return appendInt(dst, v.i)
	}
}

// appendConsumerProtocol decodes a classic-group member's subscription or
// assignment as [int16 version][ConsumerProtocolSubscription/Assignment]
// and appends its JSON; ok is false if the bytes do not decode (Kafka then
// keeps the base64 string).
func appendConsumerProtocol(dst []byte, which expandKind, b []byte) ([]byte, bool) {
	r := reader{b: b}
	ver, err := r.int16()
	if err != nil {
		return dst, false
	}
	s := consumerProtocolSubscription
	if which == expandAssignment {
		s = consumerProtocolAssignment
	}
	d := decoder{r: reader{b: b[2:]}, ver: ver} // never flexible; newer versions read as the newest known
	vals, err := d.structFields(s)
	if err != nil {
		return dst, false
	}
	var w jsonWriter
	return w.appendStruct(dst, s, vals, ver), true
}
