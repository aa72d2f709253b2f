package segment

import (
	"bytes"
	"encoding/hex"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/kseg/kseg/batch"
	"github.com/kseg/kseg/internal/realworld"
)

// vectorFacts is what an independent decoder found in each client-library
// byte vector (vectors/index.json, decoded_by_helper).
type vectorFacts struct {
	File    string `json:"file"`
	Framing string `json:"framing"`
	Facts   struct {
		Bytes          int      `json:"bytes"`
		Batches        int      `json:"batches"`
		Trailing       int      `json:"trailing"`
		Magics         []int    `json:"magics"`
		Codecs         []string `json:"codecs"`
		CRCAllOK       *bool    `json:"crc_all_ok"`
		ControlBatches int      `json:"control_batches"`
		Records        int      `json:"records_decoded"`
		Headers        int      `json:"headers"`
		Undecoded      []string `json:"undecoded"`
	} `json:"decoded_by_helper"`
}

// scanFacts walks data the way kafka-dump-log would and tallies the same facts.
type scanFacts struct {
	batches, trailing, control, records, headers int
	magics                                       map[int]bool
	codecs                                       map[string]bool
	crcOK                                        bool
	recordErr                                    error
}

func scanAll(t *testing.T, data []byte, blockSize int) scanFacts {
	t.Helper()
	f := scanFacts{magics: map[int]bool{}, codecs: map[string]bool{}, crcOK: true}
	s := NewScanner(bytes.NewReader(data), int64(len(data)), "vector")
	if blockSize > 0 {
		s.SetBlockSize(blockSize)
	}
	var br batch.BatchReader
	var dec batch.Decompressor
	var inner []batch.LegacyMessage
	var rec batch.Record
	for s.Next() {
		e := s.Entry()
		f.batches++
		f.magics[int(e.Magic)] = true
		raw, err := s.Bytes()
		if err != nil {
			t.Fatalf("Bytes: %v", err)
		}
		if e.Magic >= 2 {
			f.codecs[e.Header.Codec().String()] = true
			if e.Header.IsControl() {
				f.control++
			}
			if !batch.ValidCRC(raw) {
				f.crcOK = false
			}
			if err := br.Open(raw, &e.Header); err != nil {
				f.recordErr = err
				continue
			}
			for {
				ok, err := br.Next(&rec)
				if err != nil {
					f.recordErr = err
					break
				}
				if !ok {
					break
				}
				f.records++
				f.headers += len(rec.Headers)
			}
			continue
		}
		m, err := batch.ParseLegacy(raw)
		if err != nil {
			t.Fatalf("legacy at %d: %v", e.Pos, err)
		}
		f.codecs[m.Codec().String()] = true
		if !m.Valid() {
			f.crcOK = false
		}
		inner, err = batch.LegacyInner(&m, &dec, inner)
		if err != nil {
			f.recordErr = err
			continue
		}
		f.records += len(inner)
	}
	if err := s.Err(); err != nil {
		t.Fatalf("scan: %v", err)
	}
	f.trailing = len(data) - int(s.Pos())
	return f
}

func keys[T comparable](m map[T]bool, less func(a, b T) bool) []T {
	var out []T
	for k := range m {
		out = append(out, k)
	}
	sort.Slice(out, func(i, j int) bool { return less(out[i], out[j]) })
	return out
}

func TestClientVectors(t *testing.T) {
	dir := filepath.Join(realworld.Dir(t), "vectors")
	raw, err := os.ReadFile(filepath.Join(dir, "index.json"))
	if err != nil {
		t.Fatal(err)
	}
	var vectors []vectorFacts
	if err := json.Unmarshal(raw, &vectors); err != nil {
		t.Fatal(err)
	}
	tested := 0
	for _, v := range vectors {
		if v.Framing != "record_batch" && v.Framing != "log_entries" {
			continue
		}
		v := v
		t.Run(strings.TrimSuffix(v.File, ".hex"), func(t *testing.T) {
			text, err := os.ReadFile(filepath.Join(dir, v.File))
			if err != nil {
				t.Fatal(err)
			}
			data, err := hex.DecodeString(strings.TrimSpace(string(text)))
			if err != nil {
				t.Fatal(err)
			}
			for _, block := range []int{0, 64} { // default and a tiny window
				got := scanAll(t, data, block)
				want := v.Facts
				if got.batches != want.Batches || got.trailing != want.Trailing || got.control != want.ControlBatches {
					t.Errorf("block %d: batches/trailing/control = %d/%d/%d, want %d/%d/%d", block,
						got.batches, got.trailing, got.control, want.Batches, want.Trailing, want.ControlBatches)
				}
				if want.CRCAllOK != nil && got.crcOK != *want.CRCAllOK {
					t.Errorf("crc ok = %v, want %v", got.crcOK, *want.CRCAllOK)
				}
				if m := keys(got.magics, func(a, b int) bool { return a < b }); len(want.Magics) > 0 && !equalInts(m, want.Magics) {
					t.Errorf("magics %v, want %v", m, want.Magics)
				}
				if c := keys(got.codecs, func(a, b string) bool { return a < b }); len(want.Codecs) > 0 && strings.Join(c, ",") != strings.Join(sorted(want.Codecs), ",") {
					t.Errorf("codecs %v, want %v", c, want.Codecs)
				}
				if len(want.Undecoded) > 0 {
					// The mis-flagged zstd payload: Kafka fails to parse its
					// records, and so must we.
					if got.recordErr == nil {
						t.Errorf("records decoded without error; the reference decoder failed: %v", want.Undecoded)
					}
					return
				}
				if v.File == "sarama_v1_zstd_wrapper.hex" {
					// The Python reference decoded it, but Kafka rejects zstd
					// inside a legacy wrapper, and kafka-dump-log fails there.
					if !errors.Is(got.recordErr, batch.ErrUnknownCodec) {
						t.Errorf("zstd in a v1 wrapper: got %v, want Kafka's rejection", got.recordErr)
					}
					return
				}
				if got.recordErr != nil {
					t.Fatalf("records: %v", got.recordErr)
				}
				if got.records != want.Records || got.headers != want.Headers {
					t.Errorf("records/headers = %d/%d, want %d/%d", got.records, got.headers, want.Records, want.Headers)
				}
			}
		})
		tested++
	}
	if tested < 30 {
		t.Fatalf("only %d vectors tested", tested)
	}
}

func equalInts(a, b []int) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func sorted(s []string) []string {
	out := append([]string(nil), s...)
	sort.Strings(out)
	return out
}
