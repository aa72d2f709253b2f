// Package producer is kseg's reference producer: a model of the Java
// KafkaProducer (RecordAccumulator, BuiltInPartitioner, Sender,
// idempotence) on a virtual clock, feeding a broker-style writer that lays
// out a Kafka log directory (.log, .index, .timeindex, .snapshot,
// leader-epoch-checkpoint, partition.metadata) as a broker would.
//
// The model follows docs/producer-model.md. Where Java races
// threads, the model fixes an order (see Tie rule in Config).
package producer

import (
	"errors"
	"fmt"
	"time"

	"github.com/kseg/kseg/batch"
)

// DefaultStartTime is the virtual clock origin (ms since the epoch) when
// none is given, so that runs are reproducible: 2026-11-07T04:27:12.481Z,
// the neighbourhood of the seed's measured timestamps.
const DefaultStartTime int64 = 1794025632481

// Config is one run of the reference producer. The zero value is not
// valid; start from DefaultConfig.
//
// Tie rule: at one virtual instant the model processes, in order, broker
// responses, then every application send due at or before that instant,
// then the sender thread. So a record sent at time t is in any batch the
// sender drains at t ("records sent at t <= T_drain are in").
type Config struct {
	// Workload.
	Topic      string
	Partitions int
	Records    int64
	ValueSize  int    // value is ValueSize 'v' bytes; -1 means a null value
	KeyPrefix  string // record i has key KeyPrefix + (i mod KeyCount)
	KeyCount   int    // 0: no key (sticky partitioning)
	Headers    int    // each record carries this many headers "h<j>" = "x"
	// ValueFile, when set, holds the values, one per line, cycled (it
	// replaces ValueSize). ValuesFrom replays keys, values and headers from
	// an existing Kafka log (log directory, partition directory or segment
	// file), cycled; Records < 0 then sends each of its records once.
	// ValueEntropy in [0, 1] makes synthetic ValueSize-byte values of that
	// compressibility (0 like text, 1 random); -1 keeps the repeated 'v'.
	ValueFile    string
	ValuesFrom   string
	ValueEntropy float64
	// TimestampStepMs >= 0 gives record i the explicit timestamp
	// StartTime + i*TimestampStepMs (a ProducerRecord with a timestamp), so
	// the timestamps no longer follow the virtual clock; -1 (the default)
	// takes them from the clock when send() is called.
	TimestampStepMs int64

	// Producer settings (Java names and defaults).
	BatchSize          int
	LingerMs           int64
	Compression        batch.Codec
	Idempotence        bool
	Acks               int // -1 (all), 0, 1
	MaxInFlight        int
	BufferMemory       int64
	MaxRequestSize     int
	MaxBlockMs         int64
	AdaptivePartitions bool // partitioner.adaptive.partitioning.enable
	Sync               bool // send().get() per record

	// Timing on the virtual clock. Timing is the speed of the two
	// threads (the zero value is the ideal, instantaneous model); the
	// durations below come on top of it.
	Timing       Timing
	SendInterval time.Duration // between the end of one send() and the next
	// Burst > 1 sends the records in bursts of Burst, each as fast as the
	// application thread can: burst k is due at StartTime + k*SendInterval
	// (0 or 1: a fixed rate, send i due at StartTime + i*SendInterval).
	Burst          int64
	FirstSendDelay time.Duration // extra time the first send() takes after its timestamp
	StartTime      int64         // ms since the epoch of the first send
	RTT            time.Duration // produce request round trip; the broker writes at RTT/2
	PIDDelay       time.Duration // InitProducerId answer arrives this long after StartTime
	Seed           uint64        // sticky partitioner's random choices and the timing jitter
	Run            int           // run number: run r > 0 draws other random choices from the same Seed
	// CodecSizeFactor is the Java codec's compressed size over kseg's Go
	// encoder's for the same records; the compression estimate uses the
	// corrected size. 0 takes the measured default for the codec.
	CodecSizeFactor float64
	Brokers         int // partition p is led by broker p mod Brokers

	// Broker settings.
	SegmentBytes       int64
	SegmentMs          int64
	IndexIntervalBytes int
	TimestampType      batch.TimestampType
	ProducerID         int64
	ProducerEpoch      int16
	LeaderEpoch        int32

	// Faults to inject into the written log (see Inject).
	Inject []Fault

	spread Spread // a trace replay's arrivals within a millisecond
	// early are a trace replay's first arrivals without the log's codec
	// load (Trace.withoutFirstUse), computed once per window
	early []int64
	// runStratum and runStrata place a replayed run's sender speed in
	// one of runStrata equal-probability strata of its distribution
	// (runStrata 0: drawn at random; see stratumZ)
	runStratum, runStrata int
}

// DefaultConfig returns the Java producer's and broker's defaults.
func DefaultConfig() Config {
	return Config{
		Topic:              "kseg-ref",
		Partitions:         1,
		Records:            200,
		ValueSize:          100,
		ValueEntropy:       -1,
		TimestampStepMs:    -1,
		BatchSize:          16384,
		LingerMs:           5,
		Compression:        batch.CodecNone,
		Idempotence:        true,
		Acks:               -1,
		MaxInFlight:        5,
		BufferMemory:       33554432,
		MaxRequestSize:     1048576,
		MaxBlockMs:         60000,
		AdaptivePartitions: true,
		StartTime:          DefaultStartTime,
		Timing:             DefaultTiming(),
		RTT:                DefaultProfile().RTT,
		Seed:               1,
		Brokers:            1,
		SegmentBytes:       1073741824,
		SegmentMs:          7 * 24 * 3600 * 1000,
		IndexIntervalBytes: 4096,
		TimestampType:      batch.CreateTime,
		ProducerID:         0,
		ProducerEpoch:      0,
		LeaderEpoch:        0,
	}
}

// ErrConfig marks an invalid configuration.
var ErrConfig = errors.New("invalid producer configuration")

func configErr(format string, args ...any) error {
	return fmt.Errorf("%w: %s", ErrConfig, fmt.Sprintf(format, args...))
}

// Validate checks the settings as KafkaProducer's constructor and the
// broker would.
func (c *Config) Validate() error {
	switch {
	case c.Topic == "" || c.Topic == "." || c.Topic == ".." || len(c.Topic) > 249:
		return configErr("topic name %q is not valid", c.Topic)
	case c.Partitions < 1:
		return configErr("partitions must be at least 1, got %d", c.Partitions)
	case c.Records < 0 && !(c.Records == -1 && c.ValuesFrom != ""):
		return configErr("records must not be negative")
	case c.ValuesFrom != "" && (c.ValueFile != "" || c.ValueEntropy != -1 || c.KeyCount > 0 || c.Headers > 0):
		return configErr("values-from replays keys, values and headers: it excludes value-file, value-entropy, key-count and headers")
	case c.ValueFile != "" && c.ValueEntropy != -1:
		return configErr("value-file and value-entropy exclude each other")
	case c.ValueEntropy != -1 && !(c.ValueEntropy >= 0 && c.ValueEntropy <= 1):
		return configErr("value entropy must be between 0 and 1")
	case !c.Timing.valid():
		return configErr("timing costs, factors and jitter must not be negative")
	case c.Run < 0:
		return configErr("run number must not be negative")
	case !(c.CodecSizeFactor >= 0 && c.CodecSizeFactor < 100):
		return configErr("codec size factor must be positive (0: default)")
	case c.ValueSize < -1:
		return configErr("value size must be >= 0 (or -1 for null)")
	case c.KeyCount < 0:
		return configErr("key count must not be negative")
	case c.Headers < 0:
		return configErr("headers must not be negative")
	case c.TimestampStepMs < -1:
		return configErr("timestamp step must be >= 0 (or -1 for the clock)")
	case c.BatchSize < 0:
		return configErr("batch.size must not be negative")
	case c.LingerMs < 0:
		return configErr("linger.ms must not be negative")
	case !c.Compression.Valid():
		return configErr("unknown compression %v", c.Compression)
	case c.Acks != -1 && c.Acks != 0 && c.Acks != 1:
		return configErr("acks must be all, -1, 0 or 1")
	case c.MaxInFlight < 1:
		return configErr("max.in.flight.requests.per.connection must be at least 1")
	case c.Idempotence && c.Acks != -1:
		return configErr("idempotence requires acks=all")
	case c.Idempotence && c.MaxInFlight > 5:
		return configErr("idempotence requires max.in.flight.requests.per.connection <= 5")
	case c.BufferMemory < 1:
		return configErr("buffer.memory must be positive")
	case c.MaxRequestSize < 1:
		return configErr("max.request.size must be positive")
	case c.SendInterval < 0 || c.FirstSendDelay < 0 || c.RTT < 0 || c.PIDDelay < 0:
		return configErr("durations must not be negative")
	case c.Burst < 0:
		return configErr("burst must not be negative")
	case c.Burst > 1 && c.Sync:
		return configErr("burst and sync exclude each other (a sync send waits for its ack)")
	case c.Brokers < 1:
		return configErr("brokers must be at least 1")
	case c.SegmentBytes < 14:
		return configErr("segment.bytes too small")
	case c.SegmentMs < 1:
		return configErr("segment.ms must be positive")
	case c.IndexIntervalBytes < 0:
		return configErr("index.interval.bytes must not be negative")
	case c.TimestampType != batch.CreateTime && c.TimestampType != batch.LogAppendTime:
		return configErr("timestamp type must be CreateTime or LogAppendTime")
	case c.Idempotence && c.ProducerID < 0:
		return configErr("producer id must not be negative with idempotence")
	case c.Idempotence && c.ProducerEpoch < 0:
		return configErr("producer epoch must not be negative with idempotence")
	case c.LeaderEpoch < 0:
		return configErr("leader epoch must not be negative")
	}
	for _, f := range c.Inject {
		if err := f.validate(); err != nil {
			return err
		}
	}
	return nil
}

// effectiveBatchSize is max(1, batch.size), as KafkaProducer computes it.
func (c *Config) effectiveBatchSize() int { return max(1, c.BatchSize) }
