package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"github.com/kseg/kseg/batch"
	"github.com/kseg/kseg/cmd"
	"github.com/kseg/kseg/producer"
)

const dataDir = "../../testdata/producer-envelope"

// The committed value files are what the generator writes: they can be
// regenerated, and nobody edited them by hand.
func TestValueFilesRegenerate(t *testing.T) {
	for name, want := range valueFiles() {
		got, err := os.ReadFile(filepath.Join(dataDir, "values", name))
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, want) {
			t.Errorf("%s differs from `go run ./oracle/envelope values` (%d vs %d bytes)", name, len(got), len(want))
		}
	}
	got, want := splitValues(valueFiles()["rep-random.txt"]), 4000
	if len(got) != want {
		t.Fatalf("rep-random.txt: %d values, want %d (a line end inside a random value?)", len(got), want)
	}
	for i, v := range got {
		if len(v) != 100 {
			t.Fatalf("rep-random.txt value %d: %d bytes, want 100", i, len(v))
		}
	}
}

// splitValues reads a value file as ProducerEnvelope.java does.
func splitValues(b []byte) [][]byte {
	return bytes.Split(bytes.TrimSuffix(b, []byte("\n")), []byte("\n"))
}

func loadCase(t *testing.T, c Case) CaseData {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join(dataDir, c.Name+".json"))
	if err != nil {
		t.Fatal(err)
	}
	var d CaseData
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&d); err != nil {
		t.Fatalf("%s.json: %v", c.Name, err)
	}
	return d
}

// recordsOf lists, per partition, the indexes of the records it receives,
// where that is fixed by the workload: one partition, or keyed records.
func recordsOf(c Case) map[int][]int {
	if c.Partitions != 1 && c.KeyCount == 0 {
		return nil
	}
	m := map[int][]int{}
	for i := 0; i < c.Records; i++ {
		p := 0
		if c.KeyCount > 0 {
			p = producer.PartitionForKey(key(c, i), c.Partitions)
		}
		m[p] = append(m[p], i)
	}
	return m
}

func key(c Case, i int) []byte {
	if c.KeyCount == 0 {
		return nil
	}
	return []byte(c.KeyPrefix + strconv.Itoa(i%c.KeyCount))
}

// Every committed case file matches its case and is consistent in itself:
// the records add up, keyed records sit where murmur2 puts them, and the
// sizes of uncompressed batches are what their records make.
func TestCaseFiles(t *testing.T) {
	for _, c := range Cases() {
		t.Run(c.Name, func(t *testing.T) {
			d := loadCase(t, c)
			if d.Case != c.Name || d.Description != c.Desc || d.Kafka == "" {
				t.Errorf("header: case %q kafka %q description %q", d.Case, d.Kafka, d.Description)
			}
			if !reflect.DeepEqual(d.ProduceArgs, c.ProduceArgs()) {
				t.Errorf("produce_args %q, the case says %q", d.ProduceArgs, c.ProduceArgs())
			}
			java := map[string]string{}
			for _, kv := range c.javaSettings() {
				java[kv[0]] = kv[1]
			}
			if !reflect.DeepEqual(d.Java, java) {
				t.Errorf("java %v, the case says %v", d.Java, java)
			}
			if len(d.Runs) < 5 {
				t.Errorf("%d runs, want at least 5", len(d.Runs))
			}
			fixed := recordsOf(c)
			var vals [][]byte
			if c.ValueFile != "" {
				vals = splitValues(valueFiles()[c.ValueFile])
			}
			for _, r := range d.Runs {
				if len(r.Partitions) != c.Partitions {
					t.Fatalf("run %d: %d partitions, want %d", r.Run, len(r.Partitions), c.Partitions)
				}
				total := 0
				for _, p := range r.Partitions {
					n := len(p.RecordsPerBatch)
					if len(p.BatchBytes) != n || len(p.FirstSendUs) != n || len(p.LastSendUs) != n || len(p.AckUs) != n {
						t.Fatalf("run %d p%d: per-batch arrays of different lengths", r.Run, p.Partition)
					}
					got := 0
					for i, k := range p.RecordsPerBatch {
						if k < 1 || p.FirstSendUs[i] > p.LastSendUs[i] || p.LastSendUs[i] > p.AckUs[i] {
							t.Fatalf("run %d p%d batch %d: %d records, sends %d..%d µs, ack %d µs",
								r.Run, p.Partition, i, k, p.FirstSendUs[i], p.LastSendUs[i], p.AckUs[i])
						}
						got += k
					}
					total += got
					if fixed == nil {
						continue
					}
					idx := fixed[p.Partition]
					if got != len(idx) {
						t.Fatalf("run %d p%d: %d records, the keys put %d there", r.Run, p.Partition, got, len(idx))
					}
					if c.Compression == "none" && c.TSStep >= 0 {
						checkSizes(t, c, vals, r.Run, p, idx)
					}
				}
				if total != c.Records {
					t.Errorf("run %d: %d records, want %d", r.Run, total, c.Records)
				}
			}
		})
	}
}

// checkSizes recomputes each uncompressed batch's size from its records.
// In a single-partition burst with a long linger every batch but the last
// was cut by size: it fits batch.size and the next record would not have
// (MemoryRecordsBuilder.hasRoomFor admits a record that fills the batch to
// the byte: writeLimit >= estimatedBytesWritten + recordSize).
func checkSizes(t *testing.T, c Case, vals [][]byte, run int, p PartitionRun, idx []int) {
	t.Helper()
	value := func(i int) []byte {
		if vals != nil {
			return vals[i%len(vals)]
		}
		return bytes.Repeat([]byte{'v'}, c.ValueSize)
	}
	ts := func(i int) int64 { return int64(i * c.TSStep) }
	next := 0
	for b, k := range p.RecordsPerBatch {
		recs := idx[next : next+k]
		size := batch.HeaderSize
		for j, i := range recs {
			size += batch.RecordSizeInBytes(int32(j), ts(i)-ts(recs[0]), key(c, i), value(i), nil)
		}
		if int64(size) != p.BatchBytes[b] {
			t.Fatalf("run %d p%d batch %d: %d bytes, its %d records make %d", run, p.Partition, b, p.BatchBytes[b], k, size)
		}
		next += k
		if c.Partitions == 1 && c.IntervalUs == 0 && b < len(p.RecordsPerBatch)-1 {
			i := idx[next]
			more := batch.RecordSizeInBytes(int32(k), ts(i)-ts(recs[0]), key(c, i), value(i), nil)
			if size > c.BatchSize || size+more <= c.BatchSize {
				t.Errorf("run %d batch %d: %d bytes and the next record %d: not cut by batch.size %d", run, b, size, more, c.BatchSize)
			}
		}
	}
}

// The codec table covers every compressed batch of the case files.
func TestCodecFidelityFile(t *testing.T) {
	raw, err := os.ReadFile(filepath.Join(dataDir, "codec-fidelity.json"))
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Kafka string
		Rows  []FidelityRow
	}
	if err := json.Unmarshal(raw, &doc); err != nil {
		t.Fatal(err)
	}
	want := map[[2]string]int{}
	for _, c := range Cases() {
		if c.Compression == "none" {
			continue
		}
		d := loadCase(t, c)
		for _, r := range d.Runs {
			for _, p := range r.Partitions {
				want[[2]string{c.Compression, valueKind(c)}] += len(p.RecordsPerBatch)
				want[[2]string{c.Compression, "all"}] += len(p.RecordsPerBatch)
			}
		}
	}
	got := map[[2]string]int{}
	for _, r := range doc.Rows {
		got[[2]string{r.Codec, r.Values}] = r.Batches
		if !(r.Min <= r.Mean && r.Mean <= r.Max) || r.Min <= 0 {
			t.Errorf("%s/%s: min %v mean %v max %v", r.Codec, r.Values, r.Min, r.Mean, r.Max)
		}
		if tot := round4(float64(r.KsegPayload) / float64(r.KafkaPayload)); tot != r.Total {
			t.Errorf("%s/%s: total ratio %v, payloads give %v", r.Codec, r.Values, r.Total, tot)
		}
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("batches per codec and values: table %v, case files %v", got, want)
	}
}

// The case files' produce_args are kseg produce flags: the workload runs.
// (Until kseg produce has --value-file, the cases with a value file are
// only checked for their other flags.)
func TestProduceArgsRun(t *testing.T) {
	var help bytes.Buffer
	if code := cmd.Execute([]string{"produce", "--help"}, &help, &help); code != 0 {
		t.Fatalf("produce --help: exit %d", code)
	}
	hasValueFile := strings.Contains(help.String(), "--value-file")
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	t.Chdir(root)
	for _, c := range Cases() {
		args := c.ProduceArgs()
		if c.ValueFile != "" && !hasValueFile {
			for i := 0; i < len(args); i += 2 {
				if args[i] != "--value-file" && !strings.Contains(help.String(), args[i]+" ") {
					t.Errorf("%s: kseg produce has no %s", c.Name, args[i])
				}
			}
			continue
		}
		out := filepath.Join(t.TempDir(), "out")
		var o bytes.Buffer
		if code := cmd.Execute(append([]string{"produce", "--out", out}, args...), &o, &o); code != 0 {
			t.Errorf("%s: kseg produce %s: exit %d\n%s", c.Name, strings.Join(args, " "), code, o.String())
		}
	}
}

// Rebuilding batches that kseg's own encoder wrote gives them back byte for
// byte: the refit compares like with like, and only the codec differs when
// the batches come from Kafka.
func TestRefitOwnBatches(t *testing.T) {
	for _, codec := range []string{"gzip", "snappy", "lz4", "zstd"} {
		out := filepath.Join(t.TempDir(), "out")
		args := []string{"produce", "--out", out, "--records", "300", "--value-size", "50", "--key-prefix", "k",
			"--key-count", "3", "--headers", "2", "--batch-size", "2048", "--compression", codec, "--timestamp-step-ms", "3"}
		var o bytes.Buffer
		if code := cmd.Execute(args, &o, &o); code != 0 {
			t.Fatalf("kseg %v: exit %d\n%s", args, code, o.String())
		}
		fs, err := refitLog(filepath.Join(out, "kseg-ref-0"))
		if err != nil {
			t.Fatal(err)
		}
		if len(fs) < 2 {
			t.Fatalf("%s: %d compressed batches", codec, len(fs))
		}
		n := 0
		for i, f := range fs {
			if f.Codec.String() != codec || f.Kseg != f.Kafka {
				t.Errorf("%s batch %d: codec %v, payload %d rebuilt as %d", codec, i, f.Codec, f.Kafka, f.Kseg)
			}
			n += f.Records
		}
		if n != 300 {
			t.Errorf("%s: %d records refit, want 300", codec, n)
		}
		row := summarise(codec, "own", 1, fs)
		if row.Mean != 1 || row.Min != 1 || row.Max != 1 || row.Total != 1 {
			t.Errorf("%s: %+v", codec, row)
		}
	}
}

// The matrix has what the issue asks for, under unique names.
func TestCasesMatrix(t *testing.T) {
	seen := map[string]bool{}
	codecs := map[string]map[string]bool{}
	for _, c := range Cases() {
		if seen[c.Name] {
			t.Errorf("duplicate case %s", c.Name)
		}
		seen[c.Name] = true
		if !strings.Contains(c.JavaSpec("T"), "records="+strconv.Itoa(c.Records)) {
			t.Errorf("%s: JavaSpec %s", c.Name, c.JavaSpec("T"))
		}
		if c.Compression != "none" && c.IntervalUs == 0 {
			if codecs[c.Compression] == nil {
				codecs[c.Compression] = map[string]bool{}
			}
			codecs[c.Compression][valueKind(c)] = true
		}
	}
	for _, codec := range []string{"gzip", "snappy", "lz4", "zstd"} {
		if !codecs[codec]["repeated-byte"] || !codecs[codec]["events.txt"] {
			t.Errorf("%s: want bursts with repeated-byte and realistic values, have %v", codec, codecs[codec])
		}
	}
}
