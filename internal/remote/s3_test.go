package remote_test

import (
	"bytes"
	"context"
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"encoding/pem"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/config"
	"github.com/aws/aws-sdk-go-v2/service/s3"

	"github.com/kseg/kseg/cmd"
	"github.com/kseg/kseg/internal/aivenfmt"
)

// The S3 buckets are built from the real segments the oracle's
// LocalTieredStorage broker run left in testdata/segments/tiered/remote, laid
// out as Aiven's plugin writes them (internal/aivenfmt, which cites the
// plugin's source). The test runs kseg count on s3:// against an S3 API
// server on loopback (moto_server) and compares with a local copy of every
// segment.

// putAivenSegment uploads one segment (its .log bytes) as the plugin does.
func putAivenSegment(t *testing.T, cl *s3.Client, bucket, prefix, topic, topicID string, partition int, base int64, segID string, log []byte, o aivenfmt.Options) {
	t.Helper()
	var body bytes.Buffer
	man, err := aivenfmt.Transform(bytes.NewReader(log), &body, o)
	if err != nil {
		t.Fatal(err)
	}
	main := aivenfmt.MainPath(prefix, topic, topicID, partition, base, segID)
	for suffix, b := range map[string][]byte{"log": body.Bytes(), "indexes": nil, "rsm-manifest": man} {
		if _, err := cl.PutObject(context.Background(), &s3.PutObjectInput{
			Bucket: aws.String(bucket), Key: aws.String(main + "." + suffix), Body: bytes.NewReader(b),
		}); err != nil {
			t.Fatal(err)
		}
	}
}

// startMoto runs moto_server on a free loopback port; it skips when moto is
// not installed unless KSEG_REQUIRE_S3 is set (CI installs it).
func startMoto(t *testing.T) string {
	t.Helper()
	bin, err := exec.LookPath("moto_server")
	if err != nil {
		if os.Getenv("KSEG_REQUIRE_S3") != "" {
			t.Fatal("moto_server not found (pip install 'moto[server]')")
		}
		t.Skip("moto_server not installed (pip install 'moto[server]')")
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := l.Addr().(*net.TCPAddr).Port
	l.Close()
	c := exec.Command(bin, "-H", "127.0.0.1", "-p", strconv.Itoa(port))
	c.Stdout, c.Stderr = nil, nil
	if err := c.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Process.Kill(); c.Wait() })
	for i := 0; i < 200; i++ {
		if conn, err := net.Dial("tcp", fmt.Sprintf("127.0.0.1:%d", port)); err == nil {
			conn.Close()
			return fmt.Sprintf("http://127.0.0.1:%d", port)
		}
		time.Sleep(100 * time.Millisecond)
	}
	t.Fatal("moto_server did not start")
	return ""
}

func s3Client(t *testing.T, endpoint string) *s3.Client {
	t.Helper()
	t.Setenv("AWS_ACCESS_KEY_ID", "kseg-test")
	t.Setenv("AWS_SECRET_ACCESS_KEY", "kseg-test")
	t.Setenv("AWS_REGION", "us-east-1")
	t.Setenv("AWS_CONFIG_FILE", os.DevNull)
	t.Setenv("AWS_SHARED_CREDENTIALS_FILE", os.DevNull)
	cfg, err := config.LoadDefaultConfig(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return s3.NewFromConfig(cfg, func(o *s3.Options) {
		o.BaseEndpoint = aws.String(endpoint)
		o.UsePathStyle = true
	})
}

func repoRoot(t testing.TB) string {
	wd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	return filepath.Dir(filepath.Dir(wd))
}

var ltsName = regexp.MustCompile(`^(\d+)-([A-Za-z0-9_-]{22})\.log$`)

type fixtureSeg struct {
	base  int64
	segID string
	path  string
}

// tieredFixture returns the remote segments of the LocalTieredStorage
// fixture, its topic id, and a directory holding a copy of every segment of
// the partition (remote and local) named as on a broker's disk.
func tieredFixture(t *testing.T) (segs []fixtureSeg, topicID, local, allCopy string) {
	t.Helper()
	root := repoRoot(t)
	dirs, _ := filepath.Glob(filepath.Join(root, "testdata/segments/tiered/remote/tiered-0-*"))
	if len(dirs) != 1 {
		t.Fatalf("LocalTieredStorage fixture: %v", dirs)
	}
	topicID = strings.TrimPrefix(filepath.Base(dirs[0]), "tiered-0-")
	local = filepath.Join(root, "testdata/segments/tiered/tiered-0")
	allCopy = filepath.Join(t.TempDir(), "tiered-0")
	os.MkdirAll(allCopy, 0o755)
	ents, _ := os.ReadDir(dirs[0])
	for _, e := range ents {
		m := ltsName.FindStringSubmatch(e.Name())
		if m == nil {
			continue
		}
		base, _ := strconv.ParseInt(m[1], 10, 64)
		p := filepath.Join(dirs[0], e.Name())
		segs = append(segs, fixtureSeg{base, m[2], p})
		copyFile(t, p, filepath.Join(allCopy, fmt.Sprintf("%020d.log", base)))
	}
	locals, _ := filepath.Glob(filepath.Join(local, "*.log"))
	for _, p := range locals {
		copyFile(t, p, filepath.Join(allCopy, filepath.Base(p)))
	}
	sort.Slice(segs, func(i, j int) bool { return segs[i].base < segs[j].base })
	if len(segs) < 2 {
		t.Fatalf("only %d remote segments in the fixture", len(segs))
	}
	return segs, topicID, local, allCopy
}

func copyFile(t *testing.T, from, to string) {
	b, err := os.ReadFile(from)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(to, b, 0o644); err != nil {
		t.Fatal(err)
	}
}

func kseg(t *testing.T, args ...string) (string, string, cmd.ExitCode) {
	t.Helper()
	var so, se bytes.Buffer
	code := cmd.Execute(args, &so, &se)
	return so.String(), se.String(), code
}

func TestLocalTieredStorageCount(t *testing.T) {
	_, _, local, allCopy := tieredFixture(t)
	want, _, code := kseg(t, "count", allCopy)
	if code != 0 {
		t.Fatalf("count on the local copy: exit %d", code)
	}
	lts := filepath.Join(repoRoot(t), "testdata/segments/tiered/remote")
	got, stderr, code := kseg(t, "count", "lts://"+lts+"?local="+local)
	if code != 0 || got != want {
		t.Fatalf("count lts:// with local: exit %d, stderr %s\n got %s\nwant %s", code, stderr, got, want)
	}
	// the remote part alone: every remote segment, and fewer records than the whole
	only, _, code := kseg(t, "count", "lts://"+lts)
	if code != 0 || only == want || !strings.HasPrefix(only, "tiered-0: ") {
		t.Fatalf("count lts:// alone: exit %d: %s", code, only)
	}
	// the other commands take the same source: diff finds no difference with
	// the copy (and one without the local segments), audit reads it clean,
	// report writes a page, dump dumps every batch
	src := "lts://" + lts + "?local=" + local
	if _, stderr, code := kseg(t, "diff", src, allCopy); code != 0 {
		t.Errorf("diff lts:// vs copy: exit %d: %s", code, stderr)
	}
	if _, _, code := kseg(t, "diff", "lts://"+lts, allCopy); code != 1 {
		t.Errorf("diff lts:// (remote only) vs copy: exit %d, want 1", code)
	}
	if out, stderr, code := kseg(t, "audit", src); code != 0 {
		t.Errorf("audit lts://: exit %d: %s%s", code, out, stderr)
	}
	html := filepath.Join(t.TempDir(), "r.html")
	if _, stderr, code := kseg(t, "report", src, "--out", html); code != 0 {
		t.Errorf("report lts://: exit %d: %s", code, stderr)
	}
	dumpLTS, _, code := kseg(t, "dump", src)
	dumpCopy, _, code2 := kseg(t, "dump", allCopy)
	if code != 0 || code2 != 0 || strings.Count(dumpLTS, "baseOffset: ") != strings.Count(dumpCopy, "baseOffset: ") || strings.Count(dumpCopy, "baseOffset: ") == 0 {
		t.Errorf("dump lts:// (exit %d) and the copy (exit %d) differ in batches", code, code2)
	}
}

func TestAivenS3Count(t *testing.T) {
	segs, topicID, local, allCopy := tieredFixture(t)
	endpoint := startMoto(t)
	cl := s3Client(t, endpoint)
	ctx := context.Background()
	const bucket = "kseg-tiered"
	if _, err := cl.CreateBucket(ctx, &s3.CreateBucketInput{Bucket: aws.String(bucket)}); err != nil {
		t.Fatal(err)
	}
	priv, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		t.Fatal(err)
	}
	keyFile := filepath.Join(t.TempDir(), "private.pem")
	der, _ := x509.MarshalPKCS8PrivateKey(priv)
	os.WriteFile(keyFile, pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: der}), 0o600)
	otherKey, _ := rsa.GenerateKey(rand.Reader, 2048)
	otherFile := filepath.Join(t.TempDir(), "other.pem")
	os.WriteFile(otherFile, pem.EncodeToMemory(&pem.Block{Type: "RSA PRIVATE KEY", Bytes: x509.MarshalPKCS1PrivateKey(otherKey)}), 0o600)

	variants := map[string]aivenfmt.Options{
		"plain":      {ChunkSize: 4096},
		"compressed": {ChunkSize: 4096, Compress: true},
		"encrypted":  {ChunkSize: 4096, Pub: &priv.PublicKey, KeyID: "key1"},
		"both":       {ChunkSize: 5000, Compress: true, Pub: &priv.PublicKey, KeyID: "key1"},
	}
	want, _, code := kseg(t, "count", allCopy)
	if code != 0 {
		t.Fatalf("count on the local copy: exit %d", code)
	}
	for name, o := range variants {
		for _, s := range segs {
			b, err := os.ReadFile(s.path)
			if err != nil {
				t.Fatal(err)
			}
			putAivenSegment(t, cl, bucket, name+"/", "tiered", topicID, 0, s.base, s.segID, b, o)
		}
		q := "?endpoint=" + endpoint + "&path-style=1&local=" + local
		if o.Pub != nil {
			q += "&rsa-key=" + keyFile
		}
		for _, src := range []string{"s3://" + bucket + "/" + name + "/tiered-0" + q, "s3://" + bucket + "/" + name + "/" + q} {
			got, stderr, code := kseg(t, "count", src)
			if code != 0 || got != want {
				t.Errorf("%s: count %s: exit %d, stderr %s\n got %s\nwant %s", name, src, code, stderr, got, want)
			}
		}
		if o.Pub != nil {
			_, stderr, code := kseg(t, "count", "s3://"+bucket+"/"+name+"/tiered-0?endpoint="+endpoint+"&path-style=1")
			if code == 0 || !strings.Contains(stderr, "is encrypted") || !strings.Contains(stderr, `"key1"`) || !strings.Contains(stderr, "rsa-key") {
				t.Errorf("%s without a key: exit %d, stderr %s", name, code, stderr)
			}
			_, stderr, code = kseg(t, "count", "s3://"+bucket+"/"+name+"/tiered-0?endpoint="+endpoint+"&path-style=1&rsa-key="+otherFile)
			if code == 0 || !strings.Contains(stderr, "wrong key") {
				t.Errorf("%s with another key: exit %d, stderr %s", name, code, stderr)
			}
		}
	}
	// the options as flags, once for every argument
	got, stderr, code := kseg(t, "count", "--rsa-key", keyFile, "--s3-endpoint", endpoint, "--s3-path-style",
		"s3://"+bucket+"/both/tiered-0?local="+local)
	if code != 0 || got != want {
		t.Errorf("count with flags: exit %d, stderr %s\n got %s\nwant %s", code, stderr, got, want)
	}
	// dump reads the same records through the same path
	out, stderr, code := kseg(t, "dump", "--deep-iteration", "--rsa-key", keyFile, "--s3-endpoint", endpoint, "--s3-path-style",
		"s3://"+bucket+"/both/tiered-0")
	if code != 0 || strings.Count(out, "| offset: ") == 0 || !strings.Contains(out, "Log starting offset: 0") {
		t.Fatalf("dump s3://: exit %d, stderr %s\n%s", code, stderr, out)
	}
}
