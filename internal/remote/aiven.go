package remote

import (
	"bytes"
	"crypto/aes"
	"crypto/cipher"
	"crypto/rsa"
	"crypto/sha3"
	"crypto/x509"
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"encoding/pem"
	"errors"
	"fmt"
	"io"
	"path"
	"strings"

	"github.com/klauspost/compress/zstd"

	"github.com/kseg/kseg/located"
	"github.com/kseg/kseg/segment"
)

// The Aiven plugin's segment manifest (<segment>.rsm-manifest, JSON), as in
// Aiven-Open/tiered-storage-for-apache-kafka core/src/main/java/io/aiven/
// kafka/tieredstorage/manifest/SegmentManifestV1.java and
// manifest/index/{Fixed,Variable}SizeChunkIndex.java: the .log object is
// the original file cut into chunks of originalChunkSize bytes, each
// transformed on its own (zstd-compressed when "compression" is true, then
// AES-256-GCM-encrypted when "encryption" is present) and concatenated.
type aivenManifest struct {
	Version    string `json:"version"`
	ChunkIndex struct {
		Type                      string `json:"type"` // fixed or variable
		OriginalChunkSize         int64  `json:"originalChunkSize"`
		OriginalFileSize          int64  `json:"originalFileSize"`
		TransformedChunkSize      int64  `json:"transformedChunkSize"`
		FinalTransformedChunkSize int64  `json:"finalTransformedChunkSize"`
		TransformedChunks         string `json:"transformedChunks"` // variable: base64(zstd(ChunkSizesBinaryCodec))
	} `json:"chunkIndex"`
	Compression bool `json:"compression"`
	Encryption  *struct {
		DataKey string `json:"dataKey"` // "<keyId>:<base64 RSA-OAEP(SHA3-512) wrapped AES key>"
		AAD     []byte `json:"aad"`     // base64 in JSON
	} `json:"encryption"`
}

// EncryptedError says that a segment is encrypted and no key was given.
type EncryptedError struct {
	Segment, KeyID string
}

func (e *EncryptedError) Error() string {
	return fmt.Sprintf("%s is encrypted (AES-GCM, data key wrapped by RSA key %q): give the private key with ?rsa-key=FILE", e.Segment, e.KeyID)
}

type chunk struct {
	origOff, origSize int64
	tOff, tSize       int64
}

// The bounds a manifest's chunk index must keep (docs/limits.md). Each is
// checked before anything is allocated from the number it bounds.
const (
	// maxOriginalFileSize: a segment file is at most Integer.MAX_VALUE
	// bytes (Kafka's segment.bytes is an int).
	maxOriginalFileSize = 1<<31 - 1
	// maxChunkSize: the plugin's chunk.size is at most Integer.MAX_VALUE / 2.
	maxChunkSize = (1<<31 - 1) / 2
	// maxVariableChunks: a variable chunk index keeps one offset per chunk
	// (8 bytes each); 4 Mi chunks is a 2 GiB segment in 512-byte chunks.
	maxVariableChunks = 1 << 22
)

// manifestError is a manifest whose field holds an impossible value; the
// caller locates it at the field's key in the manifest object.
type manifestError struct {
	field string
	err   error
}

func (e *manifestError) Error() string { return e.err.Error() }
func (e *manifestError) Unwrap() error { return e.err }

func badField(field, format string, a ...any) error {
	return &manifestError{field: field, err: fmt.Errorf("chunk index: "+format, a...)}
}

// chunkIndex is the manifest's chunk index, checked against the transformed
// object's size: a fixed index is computed per chunk and holds no slice; a
// variable one holds the transformed offsets (n+1 of them).
type chunkIndex struct {
	n, chunkSize, fileSize int64
	fixedSize, finalSize   int64   // fixed
	offs                   []int64 // variable: transformed offset of chunk i, and the end
}

// at is chunk i (0 <= i < n).
func (x *chunkIndex) at(i int64) chunk {
	o := i * x.chunkSize
	c := chunk{origOff: o, origSize: min(x.chunkSize, x.fileSize-o)}
	if x.offs != nil {
		c.tOff, c.tSize = x.offs[i], x.offs[i+1]-x.offs[i]
	} else {
		c.tOff, c.tSize = i*x.fixedSize, x.fixedSize
		if i == x.n-1 {
			c.tSize = x.finalSize
		}
	}
	return c
}

// chunks checks the chunk index against objSize, the size of the
// transformed .log object, and returns it. Every count and size the
// manifest claims is bounded before it sizes an allocation: the original
// file and the chunk size by Kafka's and the plugin's limits, the number
// of chunks by the object's size (a transformed chunk is at least one
// byte), each transformed chunk by the original chunk size, and their sum
// by the object's size.
func (m *aivenManifest) chunks(objSize int64) (*chunkIndex, error) {
	ci := &m.ChunkIndex
	switch {
	case ci.OriginalChunkSize <= 0 || ci.OriginalChunkSize > maxChunkSize:
		return nil, badField("originalChunkSize", "original chunk size %d: want 1..%d", ci.OriginalChunkSize, maxChunkSize)
	case ci.OriginalFileSize < 0 || ci.OriginalFileSize > maxOriginalFileSize:
		return nil, badField("originalFileSize", "original file size %d: want 0..%d", ci.OriginalFileSize, maxOriginalFileSize)
	}
	n := (ci.OriginalFileSize + ci.OriginalChunkSize - 1) / ci.OriginalChunkSize
	if n > objSize {
		return nil, badField("originalFileSize", "%d chunks of %d bytes for %d original bytes, but the object has %d bytes (a transformed chunk takes at least one)", n, ci.OriginalChunkSize, ci.OriginalFileSize, objSize)
	}
	// A transformed chunk is the original one compressed (zstd may add a
	// little) and encrypted (a 12-byte IV and a 16-byte tag): anything much
	// larger, or empty, is a corrupt index.
	limit := ci.OriginalChunkSize + ci.OriginalChunkSize/8 + 1<<16
	x := &chunkIndex{n: n, chunkSize: ci.OriginalChunkSize, fileSize: ci.OriginalFileSize}
	switch ci.Type {
	case "fixed":
		if n == 0 {
			break
		}
		x.fixedSize, x.finalSize = ci.TransformedChunkSize, ci.FinalTransformedChunkSize
		if n > 1 && (x.fixedSize < 1 || x.fixedSize > limit) {
			return nil, badField("transformedChunkSize", "transformed chunks of %d bytes for %d-byte chunks", x.fixedSize, ci.OriginalChunkSize)
		}
		if x.finalSize < 1 || x.finalSize > limit {
			return nil, badField("finalTransformedChunkSize", "final transformed chunk of %d bytes for %d-byte chunks", x.finalSize, ci.OriginalChunkSize)
		}
		if total := (n-1)*x.fixedSize + x.finalSize; total > objSize {
			return nil, badField("transformedChunkSize", "%d transformed chunks of %d bytes (the last %d) end at byte %d, past the object's %d bytes", n, x.fixedSize, x.finalSize, total, objSize)
		}
	case "variable":
		if n > maxVariableChunks {
			return nil, badField("originalFileSize", "%d chunks of %d bytes: a variable chunk index of more than %d chunks is not read", n, ci.OriginalChunkSize, maxVariableChunks)
		}
		raw, err := base64.StdEncoding.DecodeString(ci.TransformedChunks)
		if err != nil {
			return nil, badField("transformedChunks", "%w", err)
		}
		// The codec's encoding of n sizes takes at most 13 + 4n bytes
		// (16 MiB at most); the decoder's limit is the window a frame may
		// ask for.
		dec, err := zstd.NewReader(nil, zstd.WithDecoderConcurrency(1), zstd.WithDecoderMaxMemory(64<<20))
		if err != nil {
			return nil, err
		}
		defer dec.Close()
		bin, err := dec.DecodeAll(raw, nil)
		if err != nil {
			return nil, badField("transformedChunks", "transformed chunk sizes of %d chunks: %w", n, err)
		}
		if int64(len(bin)) > 13+4*n {
			return nil, badField("transformedChunks", "%d bytes of transformed chunk sizes for %d chunks", len(bin), n)
		}
		sizes, err := decodeChunkSizes(bin, n)
		if err != nil {
			return nil, badField("transformedChunks", "%w", err)
		}
		x.offs = make([]int64, n+1)
		for i, s := range sizes {
			if s < 1 || s > limit {
				return nil, badField("transformedChunks", "transformed chunk %d of %d bytes for %d-byte chunks", i, s, ci.OriginalChunkSize)
			}
			if x.offs[i+1] = x.offs[i] + s; x.offs[i+1] > objSize {
				return nil, badField("transformedChunks", "transformed chunk %d ends at byte %d, past the object's %d bytes", i, x.offs[i+1], objSize)
			}
		}
	default:
		return nil, badField("type", "unknown type %q", ci.Type)
	}
	return x, nil
}

// decodeChunkSizes is ChunkSizesBinaryCodec.decode: count (int32); for
// count 1 the value; else base (int32), bytes per value (int8), count-1
// values above base in that many big-endian bytes, the last value in full.
// The count must be want (the chunks of the original file), checked with
// the length before anything is allocated.
func decodeChunkSizes(b []byte, want int64) ([]int64, error) {
	bad := errors.New("chunk index: truncated transformed chunk sizes")
	if len(b) < 4 {
		return nil, bad
	}
	count := int64(int32(binary.BigEndian.Uint32(b)))
	b = b[4:]
	switch {
	case count < 0:
		return nil, bad
	case count != want:
		return nil, fmt.Errorf("chunk index: %d transformed chunks for %d original ones", count, want)
	case count == 0:
		return nil, nil
	case count == 1:
		if len(b) < 4 {
			return nil, bad
		}
		return []int64{int64(int32(binary.BigEndian.Uint32(b)))}, nil
	}
	if len(b) < 5 {
		return nil, bad
	}
	base := int64(int32(binary.BigEndian.Uint32(b)))
	per := int64(b[4])
	b = b[5:]
	if per < 1 || per > 4 || int64(len(b)) != (count-1)*per+4 {
		return nil, bad
	}
	out := make([]int64, 0, count)
	for i := int64(0); i < count-1; i++ {
		var v [4]byte
		copy(v[4-per:], b[i*per:(i+1)*per])
		out = append(out, int64(int32(binary.BigEndian.Uint32(v[:])))+base)
	}
	out = append(out, int64(int32(binary.BigEndian.Uint32(b[(count-1)*per:]))))
	return out, nil
}

// parseRSAKey reads a PEM private key (PKCS#8 or PKCS#1), as RsaKeyReader does.
func parseRSAKey(pemBytes []byte) (*rsa.PrivateKey, error) {
	for {
		var blk *pem.Block
		blk, pemBytes = pem.Decode(pemBytes)
		if blk == nil {
			return nil, errors.New("rsa-key: no PEM private key")
		}
		if k, err := x509.ParsePKCS8PrivateKey(blk.Bytes); err == nil {
			if rk, ok := k.(*rsa.PrivateKey); ok {
				return rk, nil
			}
		}
		if k, err := x509.ParsePKCS1PrivateKey(blk.Bytes); err == nil {
			return k, nil
		}
	}
}

// unwrapDataKey is RsaEncryptionProvider.decryptDataKey:
// RSA/NONE/OAEPWithSHA3-512AndMGF1Padding (BouncyCastle: MGF1 with SHA3-512 too).
func unwrapDataKey(seg, dataKey string, pemKey []byte) ([]byte, error) {
	id, b64, ok := strings.Cut(dataKey, ":")
	if !ok || strings.Contains(b64, ":") {
		return nil, fmt.Errorf("%s: malformed encrypted data key string", seg)
	}
	if pemKey == nil {
		return nil, &EncryptedError{Segment: seg, KeyID: id}
	}
	wrapped, err := base64.StdEncoding.DecodeString(b64)
	if err != nil {
		return nil, fmt.Errorf("%s: data key: %w", seg, err)
	}
	priv, err := parseRSAKey(pemKey)
	if err != nil {
		return nil, err
	}
	key, err := rsa.DecryptOAEP(sha3.New512(), nil, priv, wrapped, nil)
	if err != nil {
		return nil, fmt.Errorf("%s: unwrapping the data key with RSA key %q: %w (wrong key?)", seg, id, err)
	}
	return key, nil
}

// aivenReader is the original segment's bytes as an io.ReaderAt: each
// ReadAt fetches the chunks it touches with one ranged GET each, undoes
// their transforms and keeps the last few in a small cache.
type aivenReader struct {
	obj         *s3Object
	name        string
	idx         *chunkIndex
	size        int64
	chunkSize   int64
	compression bool
	gcm         cipher.AEAD
	dec         *zstd.Decoder
	cache       chunkCache
	tbuf        []byte
}

func openAiven(bk *s3Bucket, s aivenSegment, pemKey []byte) (segment.Source, io.Closer, error) {
	bucket := bk.name
	name := sourceName("s3://"+bucket+"/"+path.Dir(s.log), s.segmentID, s.base)
	mb, err := (&s3Object{b: bk, key: s.manifest}).getAll(64 << 20)
	if err != nil {
		return segment.Source{}, nil, err
	}
	var m aivenManifest
	if err := json.Unmarshal(mb, &m); err != nil {
		return segment.Source{}, nil, fmt.Errorf("%s: manifest: %w", s.manifest, err)
	}
	if m.Version != "1" {
		return segment.Source{}, nil, fmt.Errorf("%s: manifest version %q (want 1)", s.manifest, m.Version)
	}
	idx, err := m.chunks(s.logSize)
	if err != nil {
		// located at the field's key in the manifest
		var me *manifestError
		off := int64(-1)
		if errors.As(err, &me) {
			if i := bytes.Index(mb, []byte(`"`+me.field+`"`)); i >= 0 {
				off = int64(i)
			}
		}
		return segment.Source{}, nil, located.At("s3://"+bucket+"/"+s.manifest, off, fmt.Errorf("%w (the .log object has %d bytes)", err, s.logSize))
	}
	r := &aivenReader{
		obj:         &s3Object{b: bk, key: s.log},
		name:        name,
		idx:         idx,
		size:        m.ChunkIndex.OriginalFileSize,
		chunkSize:   m.ChunkIndex.OriginalChunkSize,
		compression: m.Compression,
		cache:       chunkCache{max: 2},
	}
	if m.Encryption != nil {
		key, err := unwrapDataKey(name, m.Encryption.DataKey, pemKey)
		if err != nil {
			return segment.Source{}, nil, err
		}
		blk, err := aes.NewCipher(key)
		if err != nil {
			return segment.Source{}, nil, fmt.Errorf("%s: data key: %w", name, err)
		}
		if r.gcm, err = cipher.NewGCM(blk); err != nil { // 12-byte IV, 128-bit tag
			return segment.Source{}, nil, err
		}
		aad := m.Encryption.AAD
		r.gcm = aadAEAD{r.gcm, aad}
	}
	if m.Compression {
		if r.dec, err = zstd.NewReader(nil, zstd.WithDecoderConcurrency(1), zstd.WithDecoderMaxMemory(uint64(max(m.ChunkIndex.OriginalChunkSize, 1)))); err != nil {
			return segment.Source{}, nil, err
		}
	}
	return segment.Source{Name: name, R: r, Size: r.size}, r, nil
}

// aadAEAD binds the manifest's AAD to Open.
type aadAEAD struct {
	cipher.AEAD
	aad []byte
}

func (r *aivenReader) Close() error {
	if r.dec != nil {
		r.dec.Close()
		r.dec = nil
	}
	r.cache = chunkCache{max: r.cache.max}
	return nil
}

// chunk returns chunk i's original bytes.
func (r *aivenReader) chunk(i int) ([]byte, error) {
	if b := r.cache.get(i); b != nil {
		return b, nil
	}
	c := r.idx.at(int64(i))
	if int64(cap(r.tbuf)) < c.tSize {
		r.tbuf = make([]byte, c.tSize)
	}
	t := r.tbuf[:c.tSize]
	if err := r.obj.readRange(t, c.tOff); err != nil {
		return nil, err
	}
	if r.gcm != nil {
		a := r.gcm.(aadAEAD)
		ivSize := a.NonceSize()
		if len(t) < ivSize+a.Overhead() {
			return nil, fmt.Errorf("%s: chunk %d: %d bytes, too short to be encrypted", r.name, i, len(t))
		}
		pt, err := a.AEAD.Open(t[ivSize:ivSize], t[:ivSize], t[ivSize:], a.aad)
		if err != nil {
			return nil, fmt.Errorf("%s: chunk %d: decrypting: %w", r.name, i, err)
		}
		t = pt
	}
	var out []byte
	if r.compression {
		var err error
		// The room the claimed size asks for, up to what the chunk's
		// bytes are likely to hold; DecodeAll grows it if it must.
		if out, err = r.dec.DecodeAll(t, make([]byte, 0, min(c.origSize, 64*c.tSize+4096))); err != nil {
			return nil, fmt.Errorf("%s: chunk %d: zstd: %w", r.name, i, err)
		}
	} else {
		out = bytes.Clone(t)
	}
	if int64(len(out)) != c.origSize {
		return nil, fmt.Errorf("%s: chunk %d: %d bytes after detransforming, want %d", r.name, i, len(out), c.origSize)
	}
	r.cache.put(i, out)
	return out, nil
}

func (r *aivenReader) ReadAt(p []byte, off int64) (int, error) {
	if r.dec == nil && r.compression {
		return 0, segment.ReadFailure(errClosed)
	}
	if off >= r.size {
		return 0, io.EOF
	}
	n := 0
	for n < len(p) && off < r.size {
		i := int(off / r.chunkSize)
		b, err := r.chunk(i)
		if err != nil {
			// the store failed to give the chunk, or its bytes do not
			// detransform: either way the source cannot be read there
			return n, segment.ReadFailure(err)
		}
		k := copy(p[n:], b[off-int64(i)*r.chunkSize:])
		n += k
		off += int64(k)
	}
	if n < len(p) {
		return n, io.EOF
	}
	return n, nil
}
