package remote_test

import (
	"bytes"
	"context"
	"crypto/aes"
	"crypto/cipher"
	"crypto/rand"
	"crypto/rsa"
	"crypto/sha3"
	"crypto/x509"
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
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
	"github.com/klauspost/compress/zstd"

	"github.com/kseg/kseg/cmd"
)

// This file builds S3 buckets the way Aiven's tiered-storage-for-apache-kafka
// (Aiven-Open/tiered-storage-for-apache-kafka, core/src/main/java/io/aiven/
// kafka/tieredstorage) writes them, from the real segments the oracle's
// LocalTieredStorage broker run left in testdata/segments/tiered/remote:
//   - object keys: ObjectKeyFactory.mainPath, <prefix><topic>-<topicId>/<partition>/
//     <startOffset as 20 digits>-<segmentId>.{log,indexes,rsm-manifest};
//   - chunks: the file cut into chunk.size pieces (BaseTransformChunkEnumeration),
//     each zstd-compressed with the content size set (CompressionChunkEnumeration),
//     then AES-256-GCM-encrypted with a fresh 12-byte IV written before the
//     ciphertext and its 128-bit tag, under the segment's AAD
//     (EncryptionChunkEnumeration, AesEncryptionProvider);
//   - the data key wrapped with RSA/NONE/OAEPWithSHA3-512AndMGF1Padding
//     (RsaEncryptionProvider), written "<keyId>:<base64>" (EncryptedDataKey);
//   - the manifest (SegmentManifestV1): chunk index "fixed" when every chunk but
//     the last transforms to the same size, else "variable" with the sizes
//     in ChunkSizesBinaryCodec, zstd-compressed and base64-encoded
//     (TransformedChunksSerializer).
// The test then runs kseg count on s3:// against an S3 API server on loopback
// (moto_server) and compares with a local copy of every segment.

type aivenOpts struct {
	chunkSize int
	compress  bool
	pub       *rsa.PublicKey // encrypt when set
	keyID     string
}

func chunkSizesBinary(v []int) []byte {
	b := binary.BigEndian.AppendUint32(nil, uint32(len(v)))
	if len(v) == 0 {
		return b
	}
	if len(v) == 1 {
		return binary.BigEndian.AppendUint32(b, uint32(v[0]))
	}
	base := v[0]
	for _, x := range v[:len(v)-1] {
		base = min(base, x)
	}
	per := 1
	for _, x := range v[:len(v)-1] {
		switch d := x - base; {
		case d > 0xffffff:
			per = max(per, 4)
		case d > 0xffff:
			per = max(per, 3)
		case d > 0xff:
			per = max(per, 2)
		}
	}
	b = binary.BigEndian.AppendUint32(b, uint32(base))
	b = append(b, byte(per))
	for _, x := range v[:len(v)-1] {
		var w [4]byte
		binary.BigEndian.PutUint32(w[:], uint32(x-base))
		b = append(b, w[4-per:]...)
	}
	return binary.BigEndian.AppendUint32(b, uint32(v[len(v)-1]))
}

// putAivenSegment uploads one segment (its .log bytes) as the plugin does.
func putAivenSegment(t *testing.T, cl *s3.Client, bucket, prefix, topic, topicID string, partition int, base int64, segID string, log []byte, o aivenOpts) {
	t.Helper()
	enc, err := zstd.NewWriter(nil, zstd.WithEncoderConcurrency(1))
	if err != nil {
		t.Fatal(err)
	}
	defer enc.Close()
	var gcm cipher.AEAD
	var dataKey, aad []byte
	if o.pub != nil {
		dataKey, aad = make([]byte, 32), make([]byte, 32)
		rand.Read(dataKey)
		rand.Read(aad)
		blk, _ := aes.NewCipher(dataKey)
		gcm, _ = cipher.NewGCM(blk)
	}
	var body bytes.Buffer
	var sizes []int
	for off := 0; off < len(log); off += o.chunkSize {
		c := log[off:min(off+o.chunkSize, len(log))]
		if o.compress {
			c = enc.EncodeAll(c, nil)
		}
		if gcm != nil {
			iv := make([]byte, 12)
			rand.Read(iv)
			c = gcm.Seal(iv, iv, c, aad)
		}
		sizes = append(sizes, len(c))
		body.Write(c)
	}
	ci := map[string]any{"originalChunkSize": o.chunkSize, "originalFileSize": len(log)}
	fixed := true
	for _, s := range sizes[:max(len(sizes)-1, 0)] {
		fixed = fixed && s == sizes[0]
	}
	if fixed && len(sizes) > 0 {
		ci["type"] = "fixed"
		ci["transformedChunkSize"] = sizes[0]
		ci["finalTransformedChunkSize"] = sizes[len(sizes)-1]
	} else {
		ci["type"] = "variable"
		ci["transformedChunks"] = base64.StdEncoding.EncodeToString(enc.EncodeAll(chunkSizesBinary(sizes), nil))
	}
	// The plugin uploads the indexes as one object and records their spans;
	// kseg reads only the log, so the indexes here are empty.
	span := map[string]any{"position": 0, "size": 0}
	man := map[string]any{
		"version":     "1",
		"chunkIndex":  ci,
		"compression": o.compress,
		"segmentIndexes": map[string]any{"offset": span, "timestamp": span, "producerSnapshot": span,
			"leaderEpoch": span, "transaction": nil},
	}
	if o.pub != nil {
		wrapped, err := rsa.EncryptOAEP(sha3.New512(), rand.Reader, o.pub, dataKey, nil)
		if err != nil {
			t.Fatal(err)
		}
		man["encryption"] = map[string]any{"dataKey": o.keyID + ":" + base64.StdEncoding.EncodeToString(wrapped), "aad": aad}
	}
	mj, _ := json.Marshal(man)
	main := fmt.Sprintf("%s%s-%s/%d/%020d-%s", prefix, topic, topicID, partition, base, segID)
	for suffix, b := range map[string][]byte{"log": body.Bytes(), "indexes": nil, "rsm-manifest": mj} {
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
	return filepath.Dir(wd)
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

func kseg(t *testing.T, args ...string) (string, string, int) {
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

	variants := map[string]aivenOpts{
		"plain":      {chunkSize: 4096},
		"compressed": {chunkSize: 4096, compress: true},
		"encrypted":  {chunkSize: 4096, pub: &priv.PublicKey, keyID: "key1"},
		"both":       {chunkSize: 5000, compress: true, pub: &priv.PublicKey, keyID: "key1"},
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
		if o.pub != nil {
			q += "&rsa-key=" + keyFile
		}
		for _, src := range []string{"s3://" + bucket + "/" + name + "/tiered-0" + q, "s3://" + bucket + "/" + name + "/" + q} {
			got, stderr, code := kseg(t, "count", src)
			if code != 0 || got != want {
				t.Errorf("%s: count %s: exit %d, stderr %s\n got %s\nwant %s", name, src, code, stderr, got, want)
			}
		}
		if o.pub != nil {
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
	// dump reads the same records through the same path
	out, stderr, code := kseg(t, "dump", "--deep-iteration", "s3://"+bucket+"/both/tiered-0?endpoint="+endpoint+"&path-style=1&rsa-key="+keyFile)
	if code != 0 || strings.Count(out, "| offset: ") == 0 || !strings.Contains(out, "Log starting offset: 0") {
		t.Fatalf("dump s3://: exit %d, stderr %s\n%s", code, stderr, out)
	}
}
