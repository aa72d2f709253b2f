package dump

import (
	"strconv"

	"github.com/kseg/kseg/content"
)

// jsonObj builds compact JSON objects in field order, as Jackson prints them.
// report keeps a builder of its own for its JSON; the dump records need the
// few more field kinds of json.go.
type jsonObj struct{ b []byte }

func (j *jsonObj) key(k string) {
	if len(j.b) == 0 {
		j.b = append(j.b, '{')
	} else {
		j.b = append(j.b, ',')
	}
	j.b = append(j.b, '"')
	j.b = append(j.b, k...)
	j.b = append(j.b, '"', ':')
}

func (j *jsonObj) int(k string, v int64) { j.key(k); j.b = strconv.AppendInt(j.b, v, 10) }
func (j *jsonObj) str(k, v string)       { j.key(k); j.b = content.AppendJSONString(j.b, v) }

func (j *jsonObj) done() []byte {
	if len(j.b) == 0 {
		return []byte("{}")
	}
	return append(j.b, '}')
}
