package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"path/filepath"
	"sort"

	"github.com/kseg/kseg/batch"
	"github.com/kseg/kseg/segment"
)

// Codec fidelity: the same records, compressed by the Java producer (zlib,
// snappy-java, lz4-java, zstd-jni, as Kafka 4.4.0 calls them) and by kseg's
// batch encoder (Go: klauspost gzip/zstd, golang/snappy, pierrec/lz4).
// Every compressed batch Kafka wrote is decoded with kseg's reader, rebuilt
// record for record with batch.Builder (same timestamps, keys, values,
// headers, hence the same uncompressed bytes, which is checked) and
// compressed with batch.Compressor; the two payload sizes (batch minus its
// 61-byte header) are compared.

// Refit is one Kafka batch and its kseg rebuild.
type Refit struct {
	Codec        batch.Codec
	Records      int
	Uncompressed int
	Kafka, Kseg  int // compressed payload bytes
}

// refitLog rebuilds every compressed batch of the .log files of dir.
func refitLog(dir string) ([]Refit, error) {
	logs, err := filepath.Glob(filepath.Join(dir, "*.log"))
	if err != nil {
		return nil, err
	}
	sort.Strings(logs)
	var out []Refit
	var comp batch.Compressor
	var built, plain []byte
	var rec batch.Record
	b := batch.NewBuilder(batch.CodecNone)
	for _, path := range logs {
		s, err := segment.OpenFile(path, 0, segment.Options{VerifyCRC: true})
		if err != nil {
			return nil, err
		}
		for s.Next() {
			sb := s.Batch()
			if sb.IsLegacy() || sb.Header.Codec() == batch.CodecNone {
				continue
			}
			h := sb.Header
			raw, err := sb.Decompress()
			if err != nil {
				s.Close()
				return nil, err
			}
			want := append(plain[:0], raw...)
			plain = want
			br, err := sb.Records()
			if err != nil {
				s.Close()
				return nil, err
			}
			b.Reset(h.Codec())
			for {
				ok, err := br.Next(&rec)
				if err != nil {
					s.Close()
					return nil, err
				}
				if !ok {
					break
				}
				b.Append(h.BaseTimestamp+rec.TimestampDelta, rec.Key, rec.Value, rec.Headers)
			}
			built, err = b.Build(built[:0], h, &comp)
			if err != nil {
				s.Close()
				return nil, err
			}
			// The rebuilt records must be Kafka's, byte for byte, or the
			// comparison is not of the same input.
			var check batch.Decompressor
			again, err := check.Decompress(h.Codec(), built[batch.HeaderSize:], batch.MagicV2)
			if err != nil {
				s.Close()
				return nil, fmt.Errorf("%s at %d: kseg's own batch does not decompress: %v", path, sb.Pos, err)
			}
			if !bytes.Equal(again, want) {
				s.Close()
				return nil, fmt.Errorf("%s at %d: rebuilt records differ from Kafka's (%d vs %d bytes)", path, sb.Pos, len(again), len(want))
			}
			out = append(out, Refit{Codec: h.Codec(), Records: int(h.RecordCount), Uncompressed: len(want),
				Kafka: int(sb.Size) - batch.HeaderSize, Kseg: len(built) - batch.HeaderSize})
		}
		err = s.Err()
		s.Close()
		if err != nil {
			return nil, err
		}
	}
	return out, nil
}

// FidelityRow summarises kseg/Kafka payload size ratios over batches.
type FidelityRow struct {
	Codec        string  `json:"codec"`
	Values       string  `json:"values"`
	Cases        int     `json:"cases"`
	Batches      int     `json:"batches"`
	Mean         float64 `json:"mean_ratio"`
	Min          float64 `json:"min_ratio"`
	Max          float64 `json:"max_ratio"`
	Total        float64 `json:"total_ratio"` // Σ kseg / Σ kafka
	KafkaRate    float64 `json:"kafka_compression_rate"`
	KsegRate     float64 `json:"kseg_compression_rate"`
	MeanRecords  float64 `json:"mean_records_per_batch"`
	MeanUncompr  float64 `json:"mean_uncompressed_bytes"`
	KafkaPayload int64   `json:"kafka_payload_bytes"`
	KsegPayload  int64   `json:"kseg_payload_bytes"`
}

func summarise(codec, values string, cases int, fs []Refit) FidelityRow {
	r := FidelityRow{Codec: codec, Values: values, Cases: cases, Batches: len(fs), Min: math.Inf(1)}
	var unc, recs int64
	for _, f := range fs {
		x := float64(f.Kseg) / float64(f.Kafka)
		r.Mean += x
		r.Min = math.Min(r.Min, x)
		r.Max = math.Max(r.Max, x)
		r.KafkaPayload += int64(f.Kafka)
		r.KsegPayload += int64(f.Kseg)
		unc += int64(f.Uncompressed)
		recs += int64(f.Records)
	}
	n := float64(len(fs))
	r.Mean = round4(r.Mean / n)
	r.Min, r.Max = round4(r.Min), round4(r.Max)
	r.Total = round4(float64(r.KsegPayload) / float64(r.KafkaPayload))
	r.KafkaRate = round4(float64(r.KafkaPayload) / float64(unc))
	r.KsegRate = round4(float64(r.KsegPayload) / float64(unc))
	r.MeanRecords = math.Round(float64(recs)/n*10) / 10
	r.MeanUncompr = math.Round(float64(unc) / n)
	return r
}

func round4(f float64) float64 { return math.Round(f*10000) / 10000 }

// valueKind names a case's values for the fidelity table.
func valueKind(c Case) string {
	if c.ValueFile == "" {
		return "repeated-byte"
	}
	return c.ValueFile
}

// codecFidelity rebuilds every compressed batch of every run of the
// compressed cases and tabulates the ratios per codec and value kind, then
// per codec over all values.
func codecFidelity(works []string, kafka string, runs int) ([]byte, error) {
	byKey, cases, err := refitCases(works, runs)
	if err != nil {
		return nil, err
	}
	return fidelityJSON(kafka, fidelityRows(byKey, cases))
}

// fidelityKey is one row of the fidelity table: a codec and a value kind
// (or "all").
type fidelityKey struct{ codec, values string }

// refitCases rebuilds every compressed batch of every run of the
// compressed cases, by row, and names the cases of each row.
func refitCases(works []string, runs int) (map[fidelityKey][]Refit, map[fidelityKey]map[string]bool, error) {
	byKey := map[fidelityKey][]Refit{}
	cases := map[fidelityKey]map[string]bool{}
	for _, c := range Cases() {
		if c.Compression == "none" {
			continue
		}
		for n := 0; n < runs*len(works); n++ {
			work, i := works[n/runs], n%runs
			for p := 0; p < c.Partitions; p++ {
				fs, err := refitLog(filepath.Join(work, "broker", "logs", fmt.Sprintf("%s-%d", RunTopic(c, i), p)))
				if err != nil {
					return nil, nil, err
				}
				for _, f := range fs {
					for _, k := range []fidelityKey{{f.Codec.String(), valueKind(c)}, {f.Codec.String(), "all"}} {
						byKey[k] = append(byKey[k], f)
						if cases[k] == nil {
							cases[k] = map[string]bool{}
						}
						cases[k][c.Name] = true
					}
				}
			}
		}
	}
	return byKey, cases, nil
}

// fidelityRows summarises each row, codecs in order, each codec's value
// kinds in order and "all" last.
func fidelityRows(byKey map[fidelityKey][]Refit, cases map[fidelityKey]map[string]bool) []FidelityRow {
	var keys []fidelityKey
	for k := range byKey {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool {
		if keys[i].codec != keys[j].codec {
			return keys[i].codec < keys[j].codec
		}
		if (keys[i].values == "all") != (keys[j].values == "all") {
			return keys[j].values == "all"
		}
		return keys[i].values < keys[j].values
	})
	var rows []FidelityRow
	for _, k := range keys {
		rows = append(rows, summarise(k.codec, k.values, len(cases[k]), byKey[k]))
	}
	return rows
}

// fidelityJSON is the fidelity document: how it was made, then its rows
// one a line.
func fidelityJSON(kafka string, rows []FidelityRow) ([]byte, error) {
	doc := struct {
		Kafka   string        `json:"kafka"`
		Method  string        `json:"method"`
		Ratio   string        `json:"ratio"`
		Command string        `json:"command"`
		Rows    []FidelityRow `json:"rows"`
	}{
		Kafka: kafka,
		Method: "every compressed batch the Java producer wrote in the envelope cases (all runs) is decoded with kseg's reader, " +
			"rebuilt record for record with batch.Builder (identical uncompressed records, checked) and compressed with batch.Compressor",
		Ratio:   "kseg compressed payload bytes / Kafka compressed payload bytes, per batch (payload = batch minus its 61-byte header)",
		Command: "oracle/regen/producer-envelope.sh (go run ./oracle/envelope codec)",
		Rows:    rows,
	}
	var b bytes.Buffer
	b.WriteString("{\n")
	for i, f := range []struct {
		n string
		v any
	}{{"kafka", doc.Kafka}, {"method", doc.Method}, {"ratio", doc.Ratio}, {"command", doc.Command}} {
		j, _ := json.Marshal(f.v)
		fmt.Fprintf(&b, "  %q: %s,\n", f.n, j)
		_ = i
	}
	b.WriteString("  \"rows\": [\n")
	for i, r := range rows {
		j, err := json.Marshal(r)
		if err != nil {
			return nil, err
		}
		b.WriteString("    ")
		b.Write(j)
		if i < len(rows)-1 {
			b.WriteByte(',')
		}
		b.WriteByte('\n')
	}
	b.WriteString("  ]\n}\n")
	return b.Bytes(), nil
}

// fidelityMarkdown renders the table for docs/oracle.md and reports.
func fidelityMarkdown(rows []FidelityRow) string {
	var b bytes.Buffer
	b.WriteString("| codec | values | batches | mean kseg/kafka | min | max | total | Kafka rate | kseg rate |\n")
	b.WriteString("| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |\n")
	for _, r := range rows {
		fmt.Fprintf(&b, "| %s | %s | %d | %.3f | %.3f | %.3f | %.3f | %.3f | %.3f |\n",
			r.Codec, r.Values, r.Batches, r.Mean, r.Min, r.Max, r.Total, r.KafkaRate, r.KsegRate)
	}
	return b.String()
}
