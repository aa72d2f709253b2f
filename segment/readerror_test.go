package segment_test

import (
	"errors"
	"io"
	"os"
	"testing"

	"github.com/kseg/kseg/segment"
)

// failingAt serves data and fails every read that reaches failAt, as a
// store's ranged GET does when it answers 500 or cuts its body short.
type failingAt struct {
	data   []byte
	failAt int64
}

func (f failingAt) ReadAt(p []byte, off int64) (int, error) {
	if off+int64(len(p)) > f.failAt {
		n := 0
		if off < f.failAt {
			n = copy(p, f.data[off:f.failAt])
		}
		return n, segment.ReadFailure(errors.New("GET: 500 Internal Server Error"))
	}
	n := copy(p, f.data[off:])
	if n < len(p) {
		return n, io.EOF
	}
	return n, nil
}

// A source's failed read stops the stream with that error, with or without
// KeepGoing, and is never a corrupt region; in the middle of the search
// for the next valid entry after corrupt bytes too.
func TestReadFailureIsNeverARegion(t *testing.T) {
	data, err := os.ReadFile("../testdata/segments/seed/u05-small-0/00000000000000000000.log")
	if err != nil {
		t.Fatal(err)
	}
	corrupt := append([]byte(nil), data...)
	for i := 0; i < 8; i++ {
		corrupt[8+i] = 0xff // the first entry's size and more
	}
	for _, c := range []struct {
		name string
		data []byte
	}{{"clean bytes", data}, {"corrupt first entry", corrupt}} {
		for _, keep := range []bool{false, true} {
			for _, failAt := range []int64{0, 30, int64(len(data)) / 2} {
				var regions []segment.Region
				st := segment.NewStream(segment.Source{Name: "s3://b/k.log", R: failingAt{c.data, failAt}, Size: int64(len(c.data))},
					segment.Options{KeepGoing: keep, VerifyCRC: true, BlockSize: 4096, OnRegion: func(r segment.Region) { regions = append(regions, r) }})
				for st.Next() {
				}
				// without keep-going, the corrupt size stops the stream
				// first unless the read fails before it
				wantRead := keep || c.name == "clean bytes" || failAt < 17
				if st.Err() == nil || errors.Is(st.Err(), segment.ErrRead) != wantRead || (c.name == "clean bytes" && len(regions) > 0) {
					t.Errorf("%s, keep-going %v, failing at %d: err %v, regions %v", c.name, keep, failAt, st.Err(), regions)
				}
				for _, r := range regions {
					if errors.Is(r.Cause, segment.ErrRead) {
						t.Errorf("%s, keep-going %v, failing at %d: a read failure as a region: %v", c.name, keep, failAt, r)
					}
				}
			}
		}
	}
}
