package main

import (
	"bufio"
	"fmt"
	"math/rand"
	"os"
	"strconv"

	"github.com/kseg/kseg/batch"
)

var words = []string{"the", "order", "was", "shipped", "to", "customer", "after", "payment", "cleared", "and",
	"warehouse", "confirmed", "stock", "for", "item", "delayed", "because", "of", "weather", "in", "region",
	"refund", "issued", "when", "package", "arrived", "damaged", "support", "ticket", "opened", "by", "agent"}
var events = []string{"page_view", "add_to_cart", "checkout", "login", "logout", "search", "purchase"}
var countries = []string{"DE", "US", "FR", "BR", "IN", "JP", "NG", "SE"}

// value appends one record value: a JSON event (half), a line of text (a
// third) or random bytes (the rest), so that a batch compresses 2-4x.
func value(rng *rand.Rand, dst []byte, i int) []byte {
	switch k := rng.Intn(12); {
	case k < 6:
		dst = append(dst, `{"event":"`...)
		dst = append(dst, events[rng.Intn(len(events))]...)
		dst = append(dst, `","user_id":`...)
		dst = strconv.AppendInt(dst, rng.Int63n(1e9), 10)
		dst = append(dst, `,"session":"`...)
		for j := 0; j < 16; j++ {
			dst = append(dst, "0123456789abcdef"[rng.Intn(16)])
		}
		dst = append(dst, `","ts":`...)
		dst = strconv.AppendInt(dst, 1794025632481+int64(i)*7+rng.Int63n(50), 10)
		dst = append(dst, `,"country":"`...)
		dst = append(dst, countries[rng.Intn(len(countries))]...)
		dst = append(dst, `","amount":`...)
		dst = strconv.AppendFloat(dst, float64(rng.Intn(100000))/100, 'f', 2, 64)
		dst = append(dst, `,"items":[`...)
		for j, n := 0, 1+rng.Intn(3); j < n; j++ {
			if j > 0 {
				dst = append(dst, ',')
			}
			dst = append(dst, `{"sku":"SKU-`...)
			dst = strconv.AppendInt(dst, int64(rng.Intn(5000)), 10)
			dst = append(dst, `","qty":`...)
			dst = strconv.AppendInt(dst, int64(1+rng.Intn(4)), 10)
			dst = append(dst, '}')
		}
		dst = append(dst, "]}"...)
	case k < 11:
		for j, n := 0, 12+rng.Intn(20); j < n; j++ {
			if j > 0 {
				dst = append(dst, ' ')
			}
			dst = append(dst, words[rng.Intn(len(words))]...)
		}
		dst = append(dst, '.')
	default:
		for j, n := 0, 40+rng.Intn(120); j < n; j++ {
			dst = append(dst, byte(rng.Intn(256)))
		}
	}
	return dst
}

// realistic writes OUT: v2 batches of about 16 KiB of records (before
// compression) until the records reach mb*10^6 bytes.
func realistic(codecName, out, mbs string) error {
	mb, err := strconv.Atoi(mbs)
	if err != nil {
		return err
	}
	codec := map[string]batch.Codec{"none": batch.CodecNone, "gzip": batch.CodecGzip, "snappy": batch.CodecSnappy,
		"lz4": batch.CodecLZ4, "zstd": batch.CodecZstd}[codecName]
	if codec == batch.CodecNone && codecName != "none" {
		return fmt.Errorf("unknown codec %q", codecName)
	}
	f, err := os.Create(out)
	if err != nil {
		return err
	}
	w := bufio.NewWriterSize(f, 1<<20)
	rng := rand.New(rand.NewSource(1))
	b := batch.NewBuilder(codec)
	var comp batch.Compressor
	var buf, v []byte
	var raw, stored int64
	offset := int64(0)
	i := 0
	for raw < int64(mb)*1e6 {
		b.Reset(codec)
		for b.UncompressedBytes() < 16384 {
			v = value(rng, v[:0], i)
			key := strconv.AppendInt(nil, int64(i%1000), 10)
			b.Append(1794025632481+int64(i), key, v, nil)
			i++
		}
		raw += int64(b.UncompressedBytes())
		n := b.NumRecords()
		h := batch.Header{BaseOffset: offset, ProducerID: -1, ProducerEpoch: -1, BaseSequence: -1}
		if buf, err = b.Build(buf[:0], h, &comp); err != nil {
			return err
		}
		offset += int64(n)
		stored += int64(len(buf))
		if _, err := w.Write(buf); err != nil {
			return err
		}
	}
	if err := w.Flush(); err != nil {
		return err
	}
	fmt.Printf("realistic %s: %d records, %d bytes of records, %d bytes stored, ratio %.2f\n", codecName, offset, raw, stored, float64(raw)/float64(stored))
	return f.Close()
}
