// Package aivenfmt writes segments the way Aiven's tiered-storage-for-apache-kafka
// (Aiven-Open/tiered-storage-for-apache-kafka, core/src/main/java/io/aiven/kafka/
// tieredstorage) stores them, for tests and benchmarks of package remote:
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
//     the last transforms to the same size, else "variable" with the sizes in
//     ChunkSizesBinaryCodec, zstd-compressed and base64-encoded
//     (TransformedChunksSerializer).
package aivenfmt

import (
	"crypto/aes"
	"crypto/cipher"
	"crypto/rand"
	"crypto/rsa"
	"crypto/sha3"
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"io"

	"github.com/klauspost/compress/zstd"
)

// Options are the plugin's chunk.size, compression.enabled and encryption settings.
type Options struct {
	ChunkSize int
	Compress  bool
	Pub       *rsa.PublicKey // encrypt when set
	KeyID     string
}

// MainPath is ObjectKeyFactory.mainPath with the prefix in front.
func MainPath(prefix, topic, topicID string, partition int, base int64, segmentID string) string {
	return fmt.Sprintf("%s%s-%s/%d/%020d-%s", prefix, topic, topicID, partition, base, segmentID)
}

// ChunkSizesBinary is ChunkSizesBinaryCodec.encode.
func ChunkSizesBinary(v []int) []byte {
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

// Transform reads the segment from log, writes the transformed .log object
// to w chunk by chunk, and returns the .rsm-manifest.
func Transform(log io.Reader, w io.Writer, o Options) ([]byte, error) {
	enc, err := zstd.NewWriter(nil, zstd.WithEncoderConcurrency(1))
	if err != nil {
		return nil, err
	}
	defer enc.Close()
	var gcm cipher.AEAD
	var dataKey, aad []byte
	if o.Pub != nil {
		dataKey, aad = make([]byte, 32), make([]byte, 32)
		rand.Read(dataKey)
		rand.Read(aad)
		blk, err := aes.NewCipher(dataKey)
		if err != nil {
			return nil, err
		}
		if gcm, err = cipher.NewGCM(blk); err != nil {
			return nil, err
		}
	}
	sizes, total, err := writeChunks(log, w, o, enc, gcm, aad)
	if err != nil {
		return nil, err
	}
	ci := chunkIndex(o, sizes, total, enc)
	// The plugin uploads the indexes as one object (.indexes) and records
	// their spans; kseg reads only the log, so these spans are empty.
	span := map[string]any{"position": 0, "size": 0}
	man := map[string]any{
		"version":     "1",
		"chunkIndex":  ci,
		"compression": o.Compress,
		"segmentIndexes": map[string]any{"offset": span, "timestamp": span, "producerSnapshot": span,
			"leaderEpoch": span, "transaction": nil},
	}
	if o.Pub != nil {
		wrapped, err := rsa.EncryptOAEP(sha3.New512(), rand.Reader, o.Pub, dataKey, nil)
		if err != nil {
			return nil, err
		}
		man["encryption"] = map[string]any{"dataKey": o.KeyID + ":" + base64.StdEncoding.EncodeToString(wrapped), "aad": aad}
	}
	return json.Marshal(man)
}

// writeChunks writes log to w in chunks of o.ChunkSize, each compressed
// and encrypted as o asks (gcm nil: not encrypted), and returns the
// transformed chunks' sizes and the bytes read.
func writeChunks(log io.Reader, w io.Writer, o Options, enc *zstd.Encoder, gcm cipher.AEAD, aad []byte) (sizes []int, total int, err error) {
	buf := make([]byte, o.ChunkSize)
	for {
		n, err := io.ReadFull(log, buf)
		if n > 0 {
			c := buf[:n]
			total += n
			if o.Compress {
				c = enc.EncodeAll(c, nil)
			}
			if gcm != nil {
				iv := make([]byte, 12)
				rand.Read(iv)
				c = gcm.Seal(iv, iv, c, aad)
			}
			sizes = append(sizes, len(c))
			if _, err := w.Write(c); err != nil {
				return nil, 0, err
			}
		}
		if err == io.EOF || err == io.ErrUnexpectedEOF {
			return sizes, total, nil
		}
		if err != nil {
			return nil, 0, err
		}
	}
}

// chunkIndex is the manifest's chunkIndex: "fixed" when every chunk but
// the last has one size, else "variable" with every size listed.
func chunkIndex(o Options, sizes []int, total int, enc *zstd.Encoder) map[string]any {
	ci := map[string]any{"originalChunkSize": o.ChunkSize, "originalFileSize": total}
	fixed := len(sizes) > 0
	for _, s := range sizes[:max(len(sizes)-1, 0)] {
		fixed = fixed && s == sizes[0]
	}
	if fixed {
		ci["type"] = "fixed"
		ci["transformedChunkSize"] = sizes[0]
		ci["finalTransformedChunkSize"] = sizes[len(sizes)-1]
	} else {
		ci["type"] = "variable"
		ci["transformedChunks"] = base64.StdEncoding.EncodeToString(enc.EncodeAll(ChunkSizesBinary(sizes), nil))
	}
	return ci
}
