package batch

import (
	"math/rand"
	"strconv"
	"testing"
)

// BenchmarkRecordReader decodes the records of one uncompressed 16 KiB
// batch of event-like values (keys, 2-byte lengths and deltas), hot in
// cache: the per-record cost deep iteration adds to a codec.
func BenchmarkRecordReader(b *testing.B) {
	rng := rand.New(rand.NewSource(1))
	bl := NewBuilder(CodecNone)
	for i := 0; bl.UncompressedBytes() < 16384; i++ {
		v := []byte(`{"event":"checkout","user_id":` + strconv.Itoa(rng.Intn(1e9)) + `,"session":"0123456789abcdef","amount":` + strconv.Itoa(rng.Intn(1e5)) + `}`)
		for j := rng.Intn(80); j > 0; j-- {
			v = append(v, 'x')
		}
		bl.Append(1794025632481+int64(i*3), []byte(strconv.Itoa(i%1000)), v, nil)
	}
	raw, err := bl.Build(nil, Header{ProducerID: -1, ProducerEpoch: -1, BaseSequence: -1}, nil)
	if err != nil {
		b.Fatal(err)
	}
	h, _ := ParseHeader(raw)
	var br BatchReader
	var rec Record
	b.SetBytes(int64(len(raw)))
	b.ReportAllocs()
	n := 0
	for b.Loop() {
		if err := br.Open(raw, &h); err != nil {
			b.Fatal(err)
		}
		for {
			ok, err := br.Next(&rec)
			if err != nil {
				b.Fatal(err)
			}
			if !ok {
				break
			}
			n++
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(n), "ns/record")
}
