package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
)

// A run as the harness leaves it in WORK: the broker's partition dirs
// WORK/broker/logs/<topic>-<p>/ and the Java program's WORK/runs/<topic>.*
// (records.tsv, timing.json, load).

// RunTopic is the topic of run i of a case: a fresh topic per run.
func RunTopic(c Case, i int) string { return fmt.Sprintf("%s-r%d", c.Name, i) }

type sent struct {
	start, end, ack int64 // ns since the first send started
	seen            bool
}

// readRecords reads <topic>.records.tsv: per record i its partition, offset
// and times; returns them by partition and offset.
func readRecords(path string, c Case) (map[int]map[int64]*sent, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	out := map[int]map[int64]*sent{}
	sc := bufio.NewScanner(f)
	n := 0
	for sc.Scan() {
		fs := strings.Split(sc.Text(), "\t")
		if len(fs) != 6 {
			return nil, fmt.Errorf("%s:%d: want 6 fields, got %d", path, n+1, len(fs))
		}
		var v [6]int64
		for i, s := range fs {
			if v[i], err = strconv.ParseInt(s, 10, 64); err != nil {
				return nil, fmt.Errorf("%s:%d: %v", path, n+1, err)
			}
		}
		if v[0] != int64(n) {
			return nil, fmt.Errorf("%s:%d: record %d out of order", path, n+1, v[0])
		}
		p := int(v[1])
		if out[p] == nil {
			out[p] = map[int64]*sent{}
		}
		out[p][v[2]] = &sent{start: v[3], end: v[4], ack: v[5]}
		n++
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	if n != c.Records {
		return nil, fmt.Errorf("%s: %d records, the case sends %d", path, n, c.Records)
	}
	return out, nil
}

// PartitionRun is one partition of one real run.
type PartitionRun struct {
	Partition       int     `json:"partition"`
	RecordsPerBatch []int   `json:"records_per_batch"`
	BatchBytes      []int64 `json:"batch_bytes"`
	// Per batch, µs since the first send() started: when send() of its
	// first record started, when send() of its last record returned, and
	// when the producer's callback for it ran (the produce response).
	FirstSendUs []int64 `json:"first_send_us"`
	LastSendUs  []int64 `json:"last_send_us"`
	AckUs       []int64 `json:"ack_us"`
}

// Run is one real run of a case.
type Run struct {
	Run        int             `json:"run"`
	Topic      string          `json:"topic"`
	Partitions []PartitionRun  `json:"partitions"`
	Timing     json.RawMessage `json:"timing"`
}

func assembleRun(work string, c Case, i int) (Run, map[string]any, error) {
	topic := RunTopic(c, i)
	base := filepath.Join(work, "runs", topic)
	recs, err := readRecords(base+".records.tsv", c)
	if err != nil {
		return Run{}, nil, err
	}
	r := Run{Run: i, Topic: topic}
	total := 0
	for p := 0; p < c.Partitions; p++ {
		pr, n, err := partitionRun(filepath.Join(work, "broker", "logs", fmt.Sprintf("%s-%d", topic, p)), p, recs[p])
		if err != nil {
			return Run{}, nil, err
		}
		r.Partitions = append(r.Partitions, pr)
		total += n
	}
	for p, m := range recs {
		for o, s := range m {
			if !s.seen {
				return Run{}, nil, fmt.Errorf("%s: partition %d offset %d acknowledged but not in the log", topic, p, o)
			}
		}
	}
	if total != c.Records {
		return Run{}, nil, fmt.Errorf("%s: %d records in the logs, %d sent", topic, total, c.Records)
	}
	timing, err := readRunTiming(base, topic)
	if err != nil {
		return Run{}, nil, err
	}
	r.Timing, err = json.Marshal(timing)
	return r, timing, err
}

// partitionRun reads partition p's log in dir and times each batch by
// the records the producer sent (recs, by offset, each marked seen); it
// returns the records in the log too.
func partitionRun(dir string, p int, recs map[int64]*sent) (PartitionRun, int, error) {
	batches, err := readPartition(dir)
	if err != nil {
		return PartitionRun{}, 0, err
	}
	pr := PartitionRun{Partition: p, RecordsPerBatch: []int{}, BatchBytes: []int64{},
		FirstSendUs: []int64{}, LastSendUs: []int64{}, AckUs: []int64{}}
	total := 0
	for _, b := range batches {
		first, last, ack := int64(math.MaxInt64), int64(0), int64(math.MaxInt64)
		for o := b.BaseOffset; o < b.BaseOffset+int64(b.Records); o++ {
			s := recs[o]
			if s == nil {
				return PartitionRun{}, 0, fmt.Errorf("%s: offset %d of the log was not acknowledged to the producer", dir, o)
			}
			s.seen = true
			first, last, ack = min(first, s.start), max(last, s.end), min(ack, s.ack)
		}
		pr.RecordsPerBatch = append(pr.RecordsPerBatch, b.Records)
		pr.BatchBytes = append(pr.BatchBytes, b.Bytes)
		pr.FirstSendUs = append(pr.FirstSendUs, first/1000)
		pr.LastSendUs = append(pr.LastSendUs, last/1000)
		pr.AckUs = append(pr.AckUs, ack/1000)
		total += b.Records
	}
	return pr, total, nil
}

// readRunTiming reads a run's producer timing and metrics (base plus
// .timing.json), refuses a run whose batches were retried or split, and
// adds the machine's load when the run started.
func readRunTiming(base, topic string) (map[string]any, error) {
	raw, err := os.ReadFile(base + ".timing.json")
	if err != nil {
		return nil, err
	}
	var timing map[string]any
	d := json.NewDecoder(bytes.NewReader(raw))
	d.UseNumber()
	if err := d.Decode(&timing); err != nil {
		return nil, fmt.Errorf("%s.timing.json: %v", base, err)
	}
	// A retried or split batch is resent with other boundaries: such a run
	// says nothing about batching (the broker was not ready for the topic).
	for _, m := range []string{"record-retry-total", "batch-split-total", "record-error-total"} {
		if v, ok := num(timing, "metrics", m); ok && v != 0 {
			return nil, fmt.Errorf("%s: %s %v", topic, m, v)
		}
	}
	// The machine's state when the run started: the 1-minute load average
	// and the share of the last 10 s in which a task waited for a CPU.
	if load, err := os.ReadFile(base + ".load"); err == nil {
		for _, line := range strings.Split(string(load), "\n") {
			fs := strings.Fields(line)
			switch {
			case len(fs) == 5 && fs[0] != "some":
				timing["loadavg_1m"] = json.Number(fs[0])
			case len(fs) > 1 && fs[0] == "some" && strings.HasPrefix(fs[1], "avg10="):
				timing["cpu_pressure_avg10"] = json.Number(strings.TrimPrefix(fs[1], "avg10="))
			}
		}
	}
	return timing, nil
}

func num(m map[string]any, path ...string) (float64, bool) {
	var v any = m
	for _, k := range path {
		mm, ok := v.(map[string]any)
		if !ok {
			return 0, false
		}
		v = mm[k]
	}
	n, ok := v.(json.Number)
	if !ok {
		return 0, false
	}
	f, err := n.Float64()
	return f, err == nil
}

func median(xs []float64) float64 {
	s := append([]float64(nil), xs...)
	sort.Float64s(s)
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}

// aggregateTiming is the case's "timing": the median over runs of each
// per-run figure (first_sends_ns: element by element).
func aggregateTiming(ts []map[string]any) map[string]any {
	out := map[string]any{"aggregate": fmt.Sprintf("median over %d runs (each run: runs[i].timing)", len(ts))}
	pick := func(key string, path ...string) {
		var xs []float64
		for _, t := range ts {
			if v, ok := num(t, path...); ok {
				xs = append(xs, v)
			}
		}
		if len(xs) > 0 {
			out[key] = round3(median(xs))
		}
	}
	for _, k := range []string{"send_ns_p50", "send_ns_p90", "send_ns_p99", "send_ns_mean", "send_ns_max",
		"jvm_to_first_send_ns", "producer_init_ns", "metadata_ns", "pid_ready_ns", "burst_ns", "flush_ns", "loadavg_1m", "cpu_pressure_avg10"} {
		pick(k, k)
	}
	for _, m := range [][2]string{
		{"record_queue_time_avg_ms", "record-queue-time-avg"}, {"record_queue_time_max_ms", "record-queue-time-max"},
		{"request_latency_avg_ms", "request-latency-avg"}, {"request_latency_max_ms", "request-latency-max"},
		{"batch_size_avg", "batch-size-avg"}, {"batch_size_max", "batch-size-max"},
		{"compression_rate_avg", "compression-rate-avg"}, {"records_per_request_avg", "records-per-request-avg"},
		{"produce_throttle_time_avg_ms", "produce-throttle-time-avg"}, {"request_total", "request-total"},
		{"batch_split_total", "batch-split-total"}, {"record_retry_total", "record-retry-total"},
	} {
		pick(m[0], "metrics", m[1])
	}
	var first []float64
	for k := 0; ; k++ {
		var xs []float64
		for _, t := range ts {
			if a, ok := t["first_sends_ns"].([]any); ok && k < len(a) {
				if n, ok := a[k].(json.Number); ok {
					f, _ := n.Float64()
					xs = append(xs, f)
				}
			}
		}
		if len(xs) == 0 {
			break
		}
		first = append(first, median(xs))
	}
	out["first_sends_ns"] = first
	return out
}

func round3(f float64) float64 { return math.Round(f*1000) / 1000 }

// CaseData is the committed file testdata/producer-envelope/<case>.json.
type CaseData struct {
	Case        string            `json:"case"`
	Kafka       string            `json:"kafka"`
	Description string            `json:"description"`
	ProduceArgs []string          `json:"produce_args"`
	Java        map[string]string `json:"java"`
	Runs        []Run             `json:"runs"`
	Timing      map[string]any    `json:"timing"`
}

// assembleCase reads runs runs of case c from each work tree in turn (one
// per harness invocation: --reuse A:B pools them) and numbers them on.
func assembleCase(works []string, kafka string, c Case, runs int) ([]byte, error) {
	var rs []Run
	var ts []map[string]any
	for _, work := range works {
		for i := 0; i < runs; i++ {
			r, t, err := assembleRun(work, c, i)
			if err != nil {
				return nil, err
			}
			r.Run = len(rs)
			rs = append(rs, r)
			ts = append(ts, t)
		}
	}
	return renderCase(c, kafka, rs, aggregateTiming(ts))
}

// renderCase writes the case file with one line per partition run, so that
// a diff of a regenerated file shows which runs changed.
func renderCase(c Case, kafka string, runs []Run, timing map[string]any) ([]byte, error) {
	var b bytes.Buffer
	field := func(name string, v any, last bool) error {
		j, err := json.Marshal(v)
		if err != nil {
			return err
		}
		fmt.Fprintf(&b, "  %q: %s", name, j)
		if !last {
			b.WriteByte(',')
		}
		b.WriteByte('\n')
		return nil
	}
	java := "{"
	for i, kv := range c.javaSettings() {
		if i > 0 {
			java += ", "
		}
		k, _ := json.Marshal(kv[0])
		v, _ := json.Marshal(kv[1])
		java += string(k) + ": " + string(v)
	}
	java += "}"
	b.WriteString("{\n")
	for _, f := range []struct {
		n string
		v any
	}{{"case", c.Name}, {"kafka", kafka}, {"description", c.Desc}, {"produce_args", c.ProduceArgs()}, {"java", json.RawMessage(java)}} {
		if err := field(f.n, f.v, false); err != nil {
			return nil, err
		}
	}
	b.WriteString("  \"runs\": [\n")
	for i, r := range runs {
		t, err := json.Marshal(r.Timing)
		if err != nil {
			return nil, err
		}
		fmt.Fprintf(&b, "    {\"run\": %d, \"topic\": %q, \"timing\": %s, \"partitions\": [\n", r.Run, r.Topic, t)
		for j, p := range r.Partitions {
			pj, err := json.Marshal(p)
			if err != nil {
				return nil, err
			}
			b.WriteString("      ")
			b.Write(pj)
			if j < len(r.Partitions)-1 {
				b.WriteByte(',')
			}
			b.WriteByte('\n')
		}
		b.WriteString("    ]}")
		if i < len(runs)-1 {
			b.WriteByte(',')
		}
		b.WriteByte('\n')
	}
	b.WriteString("  ],\n")
	if err := field("timing", timing, true); err != nil {
		return nil, err
	}
	b.WriteString("}\n")
	// The file must read back as what was meant.
	var back CaseData
	if err := json.Unmarshal(b.Bytes(), &back); err != nil {
		return nil, fmt.Errorf("%s: rendered JSON does not parse: %v", c.Name, err)
	}
	return b.Bytes(), nil
}
