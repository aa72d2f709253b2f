package producer

import (
	"bytes"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"strconv"

	"github.com/kseg/kseg/batch"
	"github.com/kseg/kseg/segment"
)

// maxReplayBytes bounds what --values-from keeps in memory.
const maxReplayBytes = 1 << 30

// ErrValues marks a value source (--value-file, --values-from) that cannot
// be used.
var ErrValues = errors.New("cannot use the value source")

// records is what the application thread sends: record i's key, value and
// headers. It is loaded once and shared by every simulated run; at does not
// allocate.
type records struct {
	keyPrefix string
	keyCount  int
	keyBuf    []byte
	value     []byte   // the fixed value, when values is empty
	values    [][]byte // cycled values (--value-file, --value-entropy)
	headers   []batch.RecordHeader
	replay    []replayed // --values-from: keys, values and headers cycled
	trace     *Trace     // a trace replay: record i is the trace's
	tbuf      traceBuf
}

type replayed struct {
	key, value []byte
	headers    []batch.RecordHeader
}

// prepare validates cfg and loads its records; a replay (Records < 0)
// takes its record count from them.
func prepare(cfg *Config) (*records, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	recs, err := loadRecords(cfg)
	if err != nil {
		return nil, err
	}
	if cfg.Records < 0 {
		cfg.Records = recs.count()
	}
	return recs, nil
}

// loadRecords resolves the configured value source. For --values-from with
// Records < 0 it also tells how many records the source holds.
func loadRecords(cfg *Config) (*records, error) {
	r := &records{keyPrefix: cfg.KeyPrefix, keyCount: cfg.KeyCount}
	for j := 0; j < cfg.Headers; j++ {
		r.headers = append(r.headers, batch.RecordHeader{Key: []byte("h" + strconv.Itoa(j)), Value: []byte("x")})
	}
	switch {
	case cfg.ValuesFrom != "":
		if err := r.loadReplay(cfg.ValuesFrom, cfg.Records); err != nil {
			return nil, err
		}
	case cfg.ValueFile != "":
		data, err := os.ReadFile(cfg.ValueFile)
		if err != nil {
			return nil, fmt.Errorf("%w: %v", ErrValues, err)
		}
		data = bytes.TrimSuffix(data, []byte("\n"))
		if len(data) == 0 {
			return nil, fmt.Errorf("%w: %s holds no values", ErrValues, cfg.ValueFile)
		}
		for line := range bytes.SplitSeq(data, []byte("\n")) {
			r.values = append(r.values, bytes.TrimSuffix(line, []byte("\r")))
		}
	case cfg.ValueEntropy >= 0:
		r.values = entropyValues(cfg.ValueSize, cfg.ValueEntropy, int(min(max(cfg.Records, 1), 4096)), cfg.Seed)
	case cfg.ValueSize >= 0:
		r.value = bytes.Repeat([]byte{'v'}, cfg.ValueSize)
	}
	return r, nil
}

// at returns record i. The key aliases a buffer valid until the next call.
func (r *records) at(i int64) (key, value []byte, hdr []batch.RecordHeader) {
	if r.trace != nil {
		return r.trace.record(i, &r.tbuf)
	}
	if n := int64(len(r.replay)); n > 0 {
		rec := &r.replay[i%n]
		return rec.key, rec.value, rec.headers
	}
	if r.keyCount > 0 {
		r.keyBuf = append(r.keyBuf[:0], r.keyPrefix...)
		r.keyBuf = strconv.AppendInt(r.keyBuf, i%int64(r.keyCount), 10)
		key = r.keyBuf
	}
	value = r.value
	if n := int64(len(r.values)); n > 0 {
		value = r.values[i%n]
	}
	return key, value, r.headers
}

// count is how many distinct records a replay holds (0 otherwise).
func (r *records) count() int64 { return int64(len(r.replay)) }

// loadReplay reads the records of every partition under path (a log
// directory, partition directory or segment file) in partition and offset
// order, at most limit of them when limit > 0.
func (r *records) loadReplay(path string, limit int64) error {
	parts, err := segment.Partitions([]string{path})
	if err != nil {
		return fmt.Errorf("%w: %v", ErrValues, err)
	}
	type span struct{ off, n int } // n < 0: null
	type rec struct {
		key, value span
		h0, h1     int
	}
	var (
		arena []byte
		recs  []rec
		hdrs  []struct{ key, value span }
	)
	put := func(b []byte) span {
		if b == nil {
			return span{n: -1}
		}
		s := span{len(arena), len(b)}
		arena = append(arena, b...)
		return s
	}
	for i := range parts {
		it := segment.NewIter(&parts[i])
		for (limit <= 0 || int64(len(recs)) < limit) && it.NextRecord() {
			rr := it.Record()
			x := rec{key: put(rr.Key), value: put(rr.Value), h0: len(hdrs)}
			for _, h := range rr.Headers {
				hdrs = append(hdrs, struct{ key, value span }{put(h.Key), put(h.Value)})
			}
			x.h1 = len(hdrs)
			recs = append(recs, x)
			if len(arena) > maxReplayBytes {
				it.Close()
				return fmt.Errorf("%w: %s: more than %d MiB of records; pass --records to replay fewer", ErrValues, path, maxReplayBytes>>20)
			}
		}
		err := it.Err()
		it.Close()
		if err != nil {
			return fmt.Errorf("%w: %v", ErrValues, err)
		}
	}
	if len(recs) == 0 {
		return fmt.Errorf("%w: %s holds no data records", ErrValues, path)
	}
	get := func(s span) []byte {
		if s.n < 0 {
			return nil
		}
		return arena[s.off : s.off+s.n : s.off+s.n]
	}
	allH := make([]batch.RecordHeader, len(hdrs))
	for i, h := range hdrs {
		allH[i] = batch.RecordHeader{Key: get(h.key), Value: get(h.value)}
		if allH[i].Key == nil {
			allH[i].Key = []byte{}
		}
	}
	r.replay = make([]replayed, len(recs))
	for i, x := range recs {
		r.replay[i] = replayed{key: get(x.key), value: get(x.value), headers: allH[x.h0:x.h1:x.h1]}
	}
	return nil
}

// entropyValues makes n synthetic values of size bytes whose
// compressibility follows f: each value is a sequence of 32-byte chunks,
// random bytes with probability f, otherwise a copy of a stretch of one
// shared 1 KiB text that every codec finds again. f = 0 compresses like
// repeated text, f = 1 not at all. Seeded, so the values are the same for
// every run.
func entropyValues(size int, f float64, n int, seed uint64) [][]byte {
	if size < 0 {
		size = 0
	}
	rng := rand.New(rand.NewPCG(seed, 0x76616c756573)) // "values"
	const corpusLen, chunk = 1024, 32
	corpus := make([]byte, corpusLen)
	for i := range corpus {
		corpus[i] = "etaoin shrdlucmfwypvbgkjqxz"[rng.IntN(27)]
	}
	buf := make([]byte, size*n)
	out := make([][]byte, n)
	for i := range out {
		v := buf[i*size : (i+1)*size : (i+1)*size]
		for at := 0; at < size; at += chunk {
			end := min(at+chunk, size)
			if rng.Float64() < f {
				for j := at; j < end; j++ {
					v[j] = byte(rng.Uint32())
				}
				continue
			}
			src := rng.IntN(corpusLen - chunk)
			copy(v[at:end], corpus[src:])
		}
		out[i] = v
	}
	return out
}
