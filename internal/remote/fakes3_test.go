package remote_test

import (
	"bytes"
	"encoding/xml"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/kseg/kseg/internal/aivenfmt"
)

// fakeS3 is the part of the S3 API kseg uses (ListObjectsV2, GetObject
// with or without a Range) over a map of objects, on an httptest server on
// loopback, path-style. serve, when set for a key, answers its GETs
// instead (to fail them).
type fakeS3 struct {
	srv     *httptest.Server
	bucket  string
	mu      sync.Mutex
	objects map[string][]byte
	serve   map[string]http.HandlerFunc
	gets    int
}

func newFakeS3(t *testing.T, bucket string) *fakeS3 {
	t.Helper()
	t.Setenv("AWS_ACCESS_KEY_ID", "kseg-test")
	t.Setenv("AWS_SECRET_ACCESS_KEY", "kseg-test")
	t.Setenv("AWS_REGION", "us-east-1")
	t.Setenv("AWS_CONFIG_FILE", os.DevNull)
	t.Setenv("AWS_SHARED_CREDENTIALS_FILE", os.DevNull)
	f := &fakeS3{bucket: bucket, objects: map[string][]byte{}, serve: map[string]http.HandlerFunc{}}
	f.srv = httptest.NewServer(http.HandlerFunc(f.handle))
	t.Cleanup(f.srv.Close)
	return f
}

func (f *fakeS3) URL() string { return f.srv.URL }

func (f *fakeS3) put(key string, b []byte) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.objects[key] = b
}

func (f *fakeS3) handle(w http.ResponseWriter, r *http.Request) {
	path := strings.TrimPrefix(r.URL.Path, "/")
	bucket, key, _ := strings.Cut(path, "/")
	if bucket != f.bucket {
		http.Error(w, "<Error><Code>NoSuchBucket</Code></Error>", http.StatusNotFound)
		return
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if key == "" && r.URL.Query().Get("list-type") == "2" {
		f.list(w, r.URL.Query().Get("prefix"))
		return
	}
	f.gets++
	if h := f.serve[key]; h != nil {
		h(w, r)
		return
	}
	b, ok := f.objects[key]
	if !ok {
		w.WriteHeader(http.StatusNotFound)
		fmt.Fprintf(w, "<Error><Code>NoSuchKey</Code><Key>%s</Key></Error>", key)
		return
	}
	http.ServeContent(w, r, "", time.Time{}, bytes.NewReader(b))
}

func (f *fakeS3) list(w http.ResponseWriter, prefix string) {
	type content struct {
		Key  string
		Size int
	}
	var res struct {
		XMLName     xml.Name `xml:"http://s3.amazonaws.com/doc/2006-03-01/ ListBucketResult"`
		Name        string
		Prefix      string
		KeyCount    int
		MaxKeys     int
		IsTruncated bool
		Contents    []content
	}
	res.Name, res.Prefix, res.MaxKeys = f.bucket, prefix, 1000
	for k, b := range f.objects {
		if strings.HasPrefix(k, prefix) {
			res.Contents = append(res.Contents, content{k, len(b)})
		}
	}
	sort.Slice(res.Contents, func(i, j int) bool { return res.Contents[i].Key < res.Contents[j].Key })
	res.KeyCount = len(res.Contents)
	w.Header().Set("Content-Type", "application/xml")
	xml.NewEncoder(w).Encode(res)
}

// putSegments uploads every remote segment of the tiered fixture under
// prefix as the Aiven plugin lays them out, and returns their main paths
// (without suffix) in offset order.
func (f *fakeS3) putSegments(t *testing.T, prefix string, o aivenfmt.Options) []string {
	t.Helper()
	segs, topicID, _, _ := tieredFixture(t)
	var mains []string
	for _, s := range segs {
		b, err := os.ReadFile(s.path)
		if err != nil {
			t.Fatal(err)
		}
		var body bytes.Buffer
		man, err := aivenfmt.Transform(bytes.NewReader(b), &body, o)
		if err != nil {
			t.Fatal(err)
		}
		main := aivenfmt.MainPath(prefix, "tiered", topicID, 0, s.base, s.segID)
		f.put(main+".log", body.Bytes())
		f.put(main+".indexes", nil)
		f.put(main+".rsm-manifest", man)
		mains = append(mains, main)
	}
	return mains
}

// remoteCopy is a directory with a copy of the fixture's remote segments
// only, named as on a broker's disk: what count over s3:// must print.
func remoteCopy(t *testing.T) string {
	t.Helper()
	segs, _, _, _ := tieredFixture(t)
	dir := filepath.Join(t.TempDir(), "tiered-0")
	os.MkdirAll(dir, 0o755)
	for _, s := range segs {
		copyFile(t, s.path, filepath.Join(dir, fmt.Sprintf("%020d.log", s.base)))
	}
	return dir
}

func (f *fakeS3) remove(key string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	delete(f.objects, key)
}
