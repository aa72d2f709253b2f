package remote_test

import (
	"fmt"
	"io"
	"net/http"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/kseg/kseg/internal/aivenfmt"
)

// TestHostileManifest: a manifest of a few hundred bytes that claims a huge
// file in tiny chunks, or more chunks or transformed bytes than the object
// holds, is a located error naming the manifest object and the field's
// offset in it, at once and without allocating what it claims (before the
// bounds it ran out of memory).
func TestHostileManifest(t *testing.T) {
	f := newFakeS3(t, "b")
	mains := f.putSegments(t, "p/", aivenfmt.Options{ChunkSize: 4096})
	main := mains[0]
	cases := map[string]string{
		"huge file, 1-byte chunks": `{"version":"1","chunkIndex":{"type":"fixed","originalChunkSize":1,"originalFileSize":4611686018427387904,"transformedChunkSize":1,"finalTransformedChunkSize":1},"compression":false}`,
		"more chunks than bytes":   `{"version":"1","chunkIndex":{"type":"fixed","originalChunkSize":1,"originalFileSize":2000000000,"transformedChunkSize":1,"finalTransformedChunkSize":1},"compression":false}`,
		"past the object":          `{"version":"1","chunkIndex":{"type":"fixed","originalChunkSize":1000000000,"originalFileSize":2000000000,"transformedChunkSize":1000000000,"finalTransformedChunkSize":1000000000},"compression":true}`,
		"variable, many chunks":    `{"version":"1","chunkIndex":{"type":"variable","originalChunkSize":1,"originalFileSize":2147483647,"transformedChunks":"KLUv/SAQgQAAAAADAAAAAQEAAgAAAAY="},"compression":true}`,
		"huge chunk size":          `{"version":"1","chunkIndex":{"type":"fixed","originalChunkSize":9223372036854775807,"originalFileSize":9223372036854775807,"transformedChunkSize":1,"finalTransformedChunkSize":1},"compression":true}`,
	}
	for name, man := range cases {
		if len(man) > 300 {
			t.Fatalf("%s: %d bytes", name, len(man))
		}
		f.put(main+".rsm-manifest", []byte(man))
		_, stderr, code := kseg(t, "count", "--s3-endpoint", f.URL(), "--s3-path-style", "s3://b/p/")
		if code != 3 || !strings.Contains(stderr, "s3://b/"+main+".rsm-manifest: at byte ") || strings.Count(stderr, "kseg: error:") != 1 {
			t.Errorf("%s: exit %d, stderr %s", name, code, stderr)
		}
	}
}

// A segment whose .rsm-manifest or .log is missing from the store is an
// error naming the segment and the missing object (exit 3), never a
// segment silently left out of the count (before: exit 0 with the other
// segments' batches only).
func TestMissingTieredObject(t *testing.T) {
	want, _, code := kseg(t, "count", remoteCopy(t))
	if code != 0 {
		t.Fatalf("count on the copy: exit %d", code)
	}
	for _, suffix := range []string{"rsm-manifest", "log"} {
		f := newFakeS3(t, "b")
		mains := f.putSegments(t, "p/", aivenfmt.Options{ChunkSize: 4096, Compress: true})
		args := []string{"count", "--s3-endpoint", f.URL(), "--s3-path-style", "s3://b/p/"}
		if got, stderr, code := kseg(t, args...); code != 0 || got != want {
			t.Fatalf("every object there: exit %d, %s\n got %s\nwant %s", code, stderr, got, want)
		}
		f.remove(mains[1] + "." + suffix)
		got, stderr, code := kseg(t, args...)
		if code != 3 || !strings.Contains(stderr, "s3://b/"+mains[1]+"."+suffix) || !strings.Contains(stderr, "missing object") || strings.Count(stderr, "kseg: error:") != 1 || !strings.Contains(stderr, "kseg: hint: list the segment's objects") {
			t.Errorf("no .%s: exit %d, stdout %s, stderr %s", suffix, code, got, stderr)
		}
		// Commands that go on past damage do not go on past a missing
		// object: it is a read failure (exit 3), not a corrupt region or
		// a finding, under audit and dump --keep-going alike.
		for _, cmd := range [][]string{{"audit"}, {"dump", "--keep-going"}, {"explain"}} {
			out, stderr, code := kseg(t, append(cmd, args[1:]...)...)
			if code != 3 || !strings.Contains(stderr, "s3://b/"+mains[1]+"."+suffix) || !strings.Contains(stderr, "missing object") ||
				strings.Count(stderr, "kseg: error:") != 1 || strings.Contains(out+stderr, "corrupt") {
				t.Errorf("no .%s, kseg %v: exit %d\nstdout %.300s\nstderr %s", suffix, cmd, code, out, stderr)
			}
		}
	}
}

// A ranged GET that fails (HTTP 500) or whose body is cut short is a read
// failure: audit exits 3 with one error line naming the object, and no
// corrupt-batch finding (before: exit 1, the failure reported as corrupt
// bytes).
func TestFailedRangedGetIsNotCorruption(t *testing.T) {
	fail := map[string]http.HandlerFunc{
		"HTTP 500": func(w http.ResponseWriter, r *http.Request) {
			w.WriteHeader(http.StatusInternalServerError)
			io.WriteString(w, "<Error><Code>InternalError</Code><Message>We encountered an internal error.</Message></Error>")
		},
	}
	for name, h := range fail {
		f := newFakeS3(t, "b")
		mains := f.putSegments(t, "p/", aivenfmt.Options{ChunkSize: 4096})
		args := []string{"audit", "--s3-endpoint", f.URL(), "--s3-path-style", "s3://b/p/"}
		if out, stderr, code := kseg(t, args...); code != 0 {
			t.Fatalf("every object there: exit %d\n%s%s", code, out, stderr)
		}
		f.mu.Lock()
		f.serve[mains[1]+".log"] = h
		f.mu.Unlock()
		out, stderr, code := kseg(t, args...)
		if code != 3 || strings.Contains(out+stderr, "corrupt") || !strings.Contains(stderr, "s3://b/"+mains[1]+".log") || strings.Count(stderr, "kseg: error:") != 1 {
			t.Errorf("%s: exit %d\nstdout %s\nstderr %s", name, code, out, stderr)
		}
		t.Logf("%s: %s", name, strings.TrimSpace(stderr))
	}
	// a body cut short: the object's bytes served with a Content-Length
	// the connection does not deliver
	f := newFakeS3(t, "b")
	mains := f.putSegments(t, "p/", aivenfmt.Options{ChunkSize: 4096})
	obj := f.objects[mains[1]+".log"]
	f.serve[mains[1]+".log"] = func(w http.ResponseWriter, r *http.Request) {
		var from, to int
		if _, err := fmt.Sscanf(r.Header.Get("Range"), "bytes=%d-%d", &from, &to); err != nil {
			t.Errorf("range %q: %v", r.Header.Get("Range"), err)
		}
		to = min(to, len(obj)-1)
		w.Header().Set("Content-Range", fmt.Sprintf("bytes %d-%d/%d", from, to, len(obj)))
		w.Header().Set("Content-Length", strconv.Itoa(to-from+1))
		w.WriteHeader(http.StatusPartialContent)
		w.Write(obj[from : from+(to-from+1)/2])
	}
	out, stderr, code := kseg(t, "audit", "--s3-endpoint", f.URL(), "--s3-path-style", "s3://b/p/")
	if code != 3 || strings.Contains(out+stderr, "corrupt") || !strings.Contains(stderr, "s3://b/"+mains[1]+".log") || strings.Count(stderr, "kseg: error:") != 1 {
		t.Errorf("truncated body: exit %d\nstdout %s\nstderr %s", code, out, stderr)
	}
	t.Logf("truncated body: %s", strings.TrimSpace(stderr))
}

// Reading s3:// writes nothing to the process's stderr but kseg's own
// lines: the SDK logged "DEBUG Response has no supported checksum" there
// for every ranged GET (51 lines for one count of a real bucket).
func TestNoSDKLogLines(t *testing.T) {
	f := newFakeS3(t, "b")
	f.putSegments(t, "p/", aivenfmt.Options{ChunkSize: 4096, Compress: true})
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	old := os.Stderr
	os.Stderr = w
	_, stderr, code := kseg(t, "count", "--s3-endpoint", f.URL(), "--s3-path-style", "s3://b/p/")
	os.Stderr = old
	w.Close()
	raw, _ := io.ReadAll(r)
	if code != 0 || stderr != "" || len(raw) != 0 || f.gets < 3 {
		t.Errorf("exit %d after %d GETs; kseg's stderr %q; the process's stderr:\n%s", code, f.gets, stderr, raw)
	}
}

// A store that lists the segments, then stalls in the middle of a ranged
// GET's body, fails that read within --timeout: exit 3, one error line
// naming the object and the endpoint, no finding.
func TestStalledGetTimesOut(t *testing.T) {
	f := newFakeS3(t, "b")
	mains := f.putSegments(t, "p/", aivenfmt.Options{ChunkSize: 4096})
	obj := f.objects[mains[1]+".log"]
	f.serve[mains[1]+".log"] = func(w http.ResponseWriter, r *http.Request) {
		var from, to int
		fmt.Sscanf(r.Header.Get("Range"), "bytes=%d-%d", &from, &to)
		to = min(to, len(obj)-1)
		w.Header().Set("Content-Range", fmt.Sprintf("bytes %d-%d/%d", from, to, len(obj)))
		w.Header().Set("Content-Length", strconv.Itoa(to-from+1))
		w.WriteHeader(http.StatusPartialContent)
		w.Write(obj[from : from+10])
		w.(http.Flusher).Flush()
		<-r.Context().Done() // the rest never comes
	}
	start := time.Now()
	out, stderr, code := kseg(t, "audit", "--timeout", "600ms", "--s3-endpoint", f.URL(), "--s3-path-style", "s3://b/p/")
	took := time.Since(start)
	if code != 3 || took > 5*time.Second || strings.Contains(out, "corrupt") || !strings.Contains(stderr, "s3://b/"+mains[1]+".log") ||
		!strings.Contains(stderr, "no answer from "+f.URL()+" within 600ms") || strings.Count(stderr, "kseg: error:") != 1 {
		t.Errorf("exit %d after %s\nstdout %s\nstderr %s", code, took, out, stderr)
	}
	t.Logf("failed after %s: %s", took.Round(time.Millisecond), strings.TrimSpace(stderr))
}
