package main

import (
	"fmt"
	"strconv"
	"strings"
)

// TSBase is the record timestamp origin of the cases with explicit
// timestamps: kseg produce's default --start-time.
const TSBase = 1794025632481

// ValuesDir is where the value files live, relative to the repository root
// (the working directory of the Java runs and of kseg produce).
const ValuesDir = "testdata/producer-envelope/values"

// Case is one workload, run several times with the real producer. The same
// settings are given to the Java program (JavaSpec) and to kseg produce
// (ProduceArgs).
type Case struct {
	Name        string
	Desc        string
	Partitions  int
	Records     int
	ValueSize   int    // 'v' bytes, when ValueFile is empty
	ValueFile   string // a file of ValuesDir: one value per line, cycled
	KeyPrefix   string
	KeyCount    int // 0: no key (sticky partitioning)
	BatchSize   int
	LingerMs    int
	Compression string
	TSStep      int // explicit timestamps TSBase + i*TSStep; -1: the producer's clock
	IntervalUs  int // send i starts at i*IntervalUs after the first (0: a burst)
}

func burst(name, desc string, c Case) Case {
	c.Name, c.Desc = name, desc
	if c.Partitions == 0 {
		c.Partitions = 1
	}
	if c.LingerMs == 0 {
		c.LingerMs = 5000
	}
	if c.Compression == "" {
		c.Compression = "none"
	}
	return c
}

// Cases is the matrix of oracle/regen/producer-envelope.sh.
func Cases() []Case {
	var cs []Case
	for _, codec := range []string{"gzip", "snappy", "lz4", "zstd"} {
		cs = append(cs, burst("z-"+codec+"-rep",
			"async burst, long linger, "+codec+", 100-byte repeated-byte values (compress ~20-40x), batch.size 4096",
			Case{Records: 4000, ValueSize: 100, BatchSize: 4096, Compression: codec}))
	}
	for _, codec := range []string{"gzip", "snappy", "lz4", "zstd"} {
		cs = append(cs, burst("z-"+codec+"-events",
			"async burst, long linger, "+codec+", realistic JSON-like event values (events.txt, ~370 bytes, compress 2-4x), batch.size 16384",
			Case{Records: 3000, ValueFile: "events.txt", BatchSize: 16384, Compression: codec}))
	}
	for _, p := range []int{3, 5, 8} {
		cs = append(cs, burst(fmt.Sprintf("k%d-d12-v10-b4096", p),
			fmt.Sprintf("async keyed burst over %d partitions, 12 keys user-0..user-11, 10-byte values, batch.size 4096", p),
			Case{Partitions: p, Records: 3000, ValueSize: 10, KeyPrefix: "user-", KeyCount: 12, BatchSize: 4096}))
	}
	for _, p := range []int{3, 5, 8} {
		cs = append(cs, burst(fmt.Sprintf("k%d-d5-v100-b1024", p),
			fmt.Sprintf("async keyed burst over %d partitions, 5 keys key-0..key-4 (some partitions get none), 100-byte values, batch.size 1024", p),
			Case{Partitions: p, Records: 2000, ValueSize: 100, KeyPrefix: "key-", KeyCount: 5, BatchSize: 1024}))
	}
	cs = append(cs,
		burst("u3-v100-b1024", "async unkeyed burst (sticky partitioner) over 3 partitions, 100-byte values, batch.size 1024",
			Case{Partitions: 3, Records: 2000, ValueSize: 100, BatchSize: 1024}),
		burst("u3-v100-b16384", "async unkeyed burst (sticky partitioner) over 3 partitions, 100-byte values, batch.size 16384",
			Case{Partitions: 3, Records: 4000, ValueSize: 100, BatchSize: 16384}),
		burst("t-slow1ms-l5", "slow sender: a send every 1 ms (sleeping in between), linger.ms 5, 100-byte values, producer-clock timestamps",
			Case{Records: 500, ValueSize: 100, BatchSize: 16384, LingerMs: 5, TSStep: -1, IntervalUs: 1000}),
		burst("t-slow2ms-l5", "slow sender: a send every 2 ms (sleeping in between), linger.ms 5, 100-byte values, producer-clock timestamps",
			Case{Records: 300, ValueSize: 100, BatchSize: 16384, LingerMs: 5, TSStep: -1, IntervalUs: 2000}),
		burst("t-slow1ms-l5-u3", "slow unkeyed sender over 3 partitions: a send every 1 ms (sleeping in between), linger.ms 5, 100-byte values, producer-clock timestamps",
			Case{Partitions: 3, Records: 600, ValueSize: 100, BatchSize: 16384, LingerMs: 5, TSStep: -1, IntervalUs: 1000}),
		burst("fit-v98-b1024", "uncompressed burst where 9 records fill batch.size 1024 to the byte (61 + 9*107): hasRoomFor's >= admits the 9th",
			Case{Records: 900, ValueSize: 98, BatchSize: 1024}),
		burst("det-gzip-rep-random", "gzip burst whose values turn incompressible: 3000 repeated-byte then 1000 random 100-byte values (any byte but line ends; rep-random.txt), batch.size 4096; batches built on the low estimate overshoot batch.size and the estimate deteriorates",
			Case{Records: 4000, ValueFile: "rep-random.txt", BatchSize: 4096, Compression: "gzip"}),
		burst("det-zstd-drift", "zstd burst whose values compress a few hundredths worse after 1200 records (drift.txt), batch.size 2048: the estimate, settled by then, deteriorates by its 0.05 step",
			Case{Records: 1800, ValueFile: "drift.txt", BatchSize: 2048, Compression: "zstd"}),
	)
	for i := range cs {
		if cs[i].TSStep == 0 {
			cs[i].TSStep = 1
		}
	}
	return cs
}

func findCase(name string) (Case, bool) {
	for _, c := range Cases() {
		if c.Name == name {
			return c, true
		}
	}
	return Case{}, false
}

// javaSettings are the ProducerEnvelope keys of the case, in a fixed order.
func (c Case) javaSettings() [][2]string {
	s := [][2]string{
		{"partitions", strconv.Itoa(c.Partitions)},
		{"records", strconv.Itoa(c.Records)},
	}
	if c.ValueFile != "" {
		s = append(s, [2]string{"valueFile", ValuesDir + "/" + c.ValueFile})
	} else {
		s = append(s, [2]string{"valueSize", strconv.Itoa(c.ValueSize)})
	}
	if c.KeyCount > 0 {
		s = append(s, [2]string{"keyPrefix", c.KeyPrefix}, [2]string{"keyCount", strconv.Itoa(c.KeyCount)})
	}
	s = append(s,
		[2]string{"batchSize", strconv.Itoa(c.BatchSize)},
		[2]string{"lingerMs", strconv.Itoa(c.LingerMs)},
		[2]string{"compression", c.Compression},
		[2]string{"idempotence", "true"},
	)
	if c.TSStep >= 0 {
		s = append(s, [2]string{"tsBase", strconv.Itoa(TSBase)}, [2]string{"tsStep", strconv.Itoa(c.TSStep)})
	}
	if c.IntervalUs > 0 {
		s = append(s, [2]string{"intervalUs", strconv.Itoa(c.IntervalUs)})
	}
	return s
}

// JavaSpec is the ProducerEnvelope run argument for topic.
func (c Case) JavaSpec(topic string) string {
	parts := []string{topic}
	for _, kv := range c.javaSettings() {
		parts = append(parts, kv[0]+"="+kv[1])
	}
	return strings.Join(parts, ",")
}

// ProduceArgs are the kseg produce flags describing the same workload.
func (c Case) ProduceArgs() []string {
	a := []string{"--topic", c.Name, "--partitions", strconv.Itoa(c.Partitions), "--records", strconv.Itoa(c.Records)}
	if c.ValueFile != "" {
		a = append(a, "--value-file", ValuesDir+"/"+c.ValueFile)
	} else {
		a = append(a, "--value-size", strconv.Itoa(c.ValueSize))
	}
	if c.KeyCount > 0 {
		a = append(a, "--key-prefix", c.KeyPrefix, "--key-count", strconv.Itoa(c.KeyCount))
	}
	a = append(a, "--batch-size", strconv.Itoa(c.BatchSize), "--linger-ms", strconv.Itoa(c.LingerMs),
		"--compression", c.Compression)
	if c.TSStep >= 0 {
		a = append(a, "--start-time", strconv.Itoa(TSBase), "--timestamp-step-ms", strconv.Itoa(c.TSStep))
	}
	if c.IntervalUs > 0 {
		d := strconv.Itoa(c.IntervalUs) + "us"
		if c.IntervalUs%1000 == 0 {
			d = strconv.Itoa(c.IntervalUs/1000) + "ms"
		}
		a = append(a, "--send-interval", d)
	}
	return a
}
