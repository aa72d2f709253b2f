// Package jsonobj builds compact JSON objects in field order, as Jackson
// prints them: kseg's NDJSON is written field by field, without
// reflection, so its key order is the documented one and its hot paths
// allocate nothing per field.
package jsonobj

import (
	"strconv"

	"github.com/kseg/kseg/content"
)

// Obj is one object under construction; the zero value is empty. B is the
// bytes so far, for a caller that appends a value of its own after Key.
type Obj struct{ B []byte }

// Key starts field k (with the comma or brace before it).
func (j *Obj) Key(k string) {
	if len(j.B) == 0 {
		j.B = append(j.B, '{')
	} else {
		j.B = append(j.B, ',')
	}
	j.B = append(j.B, '"')
	j.B = append(j.B, k...)
	j.B = append(j.B, '"', ':')
}

func (j *Obj) Int(k string, v int64) { j.Key(k); j.B = strconv.AppendInt(j.B, v, 10) }
func (j *Obj) Str(k, v string)       { j.Key(k); j.B = content.AppendJSONString(j.B, v) }
func (j *Obj) Bool(k string, v bool) { j.Key(k); j.B = strconv.AppendBool(j.B, v) }
func (j *Obj) Null(k string)         { j.Key(k); j.B = append(j.B, "null"...) }
func (j *Obj) Raw(k, v string)       { j.Key(k); j.B = append(j.B, v...) } // v is JSON already

// Done closes the object and returns its bytes.
func (j *Obj) Done() []byte {
	if len(j.B) == 0 {
		return []byte("{}")
	}
	return append(j.B, '}')
}
