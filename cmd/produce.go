package cmd

import (
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/kseg/kseg/batch"
	"github.com/kseg/kseg/producer"
	"github.com/kseg/kseg/report"
)

func init() { subcommands = append(subcommands, newProduceCmd) }

const produceLong = `Run the reference producer: a model of the Java KafkaProducer (batching,
sticky/keyed partitioning, linger, sender, idempotence) on a virtual clock,
then write the batches as a broker would: DIR/<topic>-<partition>/ with .log,
.index, .timeindex, producer .snapshot, leader-epoch-checkpoint and
partition.metadata. Prints the count line of every partition it wrote.

Same flags and --seed give byte-identical output. Records sent at the same
virtual instant as a sender drain are in the drained batch (tie rule).

--workload FILE (JSON) takes the same settings by flag name, optionally with
"runs" (a list of named setting sets) and "sweep" (flag name -> list of
values, all combinations); each run is written to DIR/<run name>/ and a
summary table is printed. Example:
  {"records": 200, "value-size": 100,
   "sweep": {"linger-ms": [0, 5, 1000], "batch-size": [1024, 16384]}}`

// produceFlags binds the flags of kseg produce to a Config.
type produceFlags struct {
	cfg            producer.Config
	compression    string
	acks           string
	timestampType  string
	startTime      string
	inject         []string
	sendInterval   time.Duration
	firstSendDelay time.Duration
	rtt            time.Duration
	pidDelay       time.Duration
}

func addProduceFlags(fs *pflag.FlagSet, f *produceFlags) {
	d := producer.DefaultConfig()
	c := &f.cfg
	fs.StringVar(&c.Topic, "topic", d.Topic, "topic name")
	fs.IntVar(&c.Partitions, "partitions", d.Partitions, "number of partitions")
	fs.Int64Var(&c.Records, "records", d.Records, "records to send")
	fs.IntVar(&c.ValueSize, "value-size", d.ValueSize, "value size in bytes (the value is that many 'v' bytes; -1 = null)")
	fs.StringVar(&c.KeyPrefix, "key-prefix", "", "key prefix: record i gets key PREFIX + (i mod key-count)")
	fs.IntVar(&c.KeyCount, "key-count", 0, "number of distinct keys (0 = no key, sticky partitioning)")
	fs.IntVar(&c.Headers, "headers", 0, "headers per record (h0=x, h1=x, ...)")
	fs.Int64Var(&c.TimestampStepMs, "timestamp-step-ms", d.TimestampStepMs, "explicit record timestamps: record i gets start-time + i*N ms whatever the virtual clock (-1 = the clock's time at send())")
	fs.IntVar(&c.BatchSize, "batch-size", d.BatchSize, "batch.size")
	fs.Int64Var(&c.LingerMs, "linger-ms", d.LingerMs, "linger.ms")
	fs.StringVar(&f.compression, "compression", "none", "compression.type: none, gzip, snappy, lz4, zstd")
	fs.BoolVar(&c.Idempotence, "idempotence", d.Idempotence, "enable.idempotence (turned off by --acks 0/1 unless given)")
	fs.StringVar(&f.acks, "acks", "all", "acks: all, -1, 0, 1")
	fs.IntVar(&c.MaxInFlight, "max-in-flight", d.MaxInFlight, "max.in.flight.requests.per.connection")
	fs.Int64Var(&c.BufferMemory, "buffer-memory", d.BufferMemory, "buffer.memory")
	fs.IntVar(&c.MaxRequestSize, "max-request-size", d.MaxRequestSize, "max.request.size")
	fs.Int64Var(&c.MaxBlockMs, "max-block-ms", d.MaxBlockMs, "max.block.ms (send blocked on buffer memory)")
	fs.BoolVar(&c.AdaptivePartitions, "adaptive-partitioning", d.AdaptivePartitions, "partitioner.adaptive.partitioning.enable")
	fs.BoolVar(&c.Sync, "sync", false, "wait for each send's ack before the next (send().get())")
	fs.DurationVar(&f.sendInterval, "send-interval", 0, "virtual time between consecutive sends")
	fs.DurationVar(&f.firstSendDelay, "first-send-delay", 0, "extra virtual time the first send() takes after its timestamp (cold JVM)")
	fs.StringVar(&f.startTime, "start-time", strconv.FormatInt(d.StartTime, 10), "virtual clock origin: ms since the epoch or RFC 3339")
	fs.DurationVar(&f.rtt, "rtt", d.RTT, "produce request round trip (the broker appends at rtt/2)")
	fs.DurationVar(&f.pidDelay, "pid-delay", 0, "when the producer id arrives, after the start (nothing is sent before)")
	fs.Uint64Var(&c.Seed, "seed", d.Seed, "seed of the sticky partitioner's random choices")
	fs.IntVar(&c.Brokers, "brokers", d.Brokers, "brokers; partition p is led by broker p mod brokers")
	fs.Int64Var(&c.SegmentBytes, "segment-bytes", d.SegmentBytes, "segment.bytes")
	fs.Int64Var(&c.SegmentMs, "segment-ms", d.SegmentMs, "segment.ms")
	fs.IntVar(&c.IndexIntervalBytes, "index-interval-bytes", d.IndexIntervalBytes, "index.interval.bytes")
	fs.StringVar(&f.timestampType, "timestamp-type", "CreateTime", "message.timestamp.type: CreateTime or LogAppendTime")
	fs.Int64Var(&c.ProducerID, "producer-id", d.ProducerID, "producer id the broker hands out")
	fs.Int16Var(&c.ProducerEpoch, "producer-epoch", d.ProducerEpoch, "producer epoch")
	fs.Int32Var(&c.LeaderEpoch, "leader-epoch", d.LeaderEpoch, "partition leader epoch")
	fs.StringArrayVar(&f.inject, "inject", nil, "fault to inject: gap@N, duplicate@N, reorder@N, epoch-bump@N (N = batch number, repeatable); listed in "+producer.SidecarName)
}

// config resolves the string-typed flags; fs tells which were given.
func (f *produceFlags) config(fs *pflag.FlagSet) (producer.Config, error) {
	c := f.cfg
	var err error
	if c.Compression, err = batch.ParseCodec(f.compression); err != nil {
		return c, err
	}
	switch f.acks {
	case "all", "-1":
		c.Acks = -1
	case "0":
		c.Acks = 0
	case "1":
		c.Acks = 1
	default:
		return c, fmt.Errorf("--acks %q: want all, -1, 0 or 1", f.acks)
	}
	if c.Acks != -1 && !fs.Changed("idempotence") {
		c.Idempotence = false // as KafkaProducer does when idempotence was not set explicitly
	}
	switch f.timestampType {
	case "CreateTime":
		c.TimestampType = batch.CreateTime
	case "LogAppendTime":
		c.TimestampType = batch.LogAppendTime
	default:
		return c, fmt.Errorf("--timestamp-type %q: want CreateTime or LogAppendTime", f.timestampType)
	}
	if ms, err := strconv.ParseInt(f.startTime, 10, 64); err == nil {
		c.StartTime = ms
	} else if t, err := time.Parse(time.RFC3339Nano, f.startTime); err == nil {
		c.StartTime = t.UnixMilli()
	} else {
		return c, fmt.Errorf("--start-time %q: want ms since the epoch or RFC 3339", f.startTime)
	}
	c.SendInterval, c.FirstSendDelay, c.RTT, c.PIDDelay = f.sendInterval, f.firstSendDelay, f.rtt, f.pidDelay
	c.Inject = nil
	for _, s := range f.inject {
		flt, err := producer.ParseFault(s)
		if err != nil {
			return c, err
		}
		c.Inject = append(c.Inject, flt)
	}
	return c, c.Validate()
}

func newProduceCmd() *cobra.Command {
	var (
		out, workload string
		force, asJSON bool
		f             produceFlags
	)
	var like string
	cmd := &cobra.Command{
		Use:   "produce --out DIR [flags]",
		Short: "Write a Kafka log directory with the reference producer",
		Example: "  kseg produce --records 200 --value-size 100 --linger-ms 1000 --batch-size 1024 --out run/\n" +
			"  kseg produce --inject gap@5 --out faulty/ && kseg audit faulty/\n" +
			"  kseg produce --workload sweep.json --out sweep/ && kseg report sweep/ --out sweep.html",
		Long: produceLong,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if out == "" {
				return withCode(ExitUsage, errors.New("--out DIR is required"))
			}
			if workload != "" && like != "" {
				return withCode(ExitUsage, errors.New("--like and --workload cannot be combined"))
			}
			if workload != "" {
				return runWorkload(cmd, workload, out, force)
			}
			cfg, err := f.config(cmd.Flags())
			if like != "" {
				cfg, err = likeConfig(cmd, like)
			} else if err != nil {
				err = withCode(ExitUsage, err)
			}
			if err != nil {
				return err
			}
			res, err := producer.Run(cfg, out, force)
			if err != nil {
				return produceErr(err)
			}
			if asJSON {
				if len(cfg.Inject) > 0 {
					return withCode(ExitUsage, errors.New("--json gives the model's batches; it cannot be combined with --inject"))
				}
				return report.ProduceJSON(cmd.OutOrStdout(), cfg.Topic, res)
			}
			report.ProduceCounts(cmd.OutOrStdout(), cfg.Topic, res)
			return nil
		},
	}
	fs := cmd.Flags()
	fs.SortFlags = false
	fs.StringVarP(&out, "out", "o", "", "output directory (must not exist or be empty)")
	fs.BoolVar(&force, "force", false, "replace a non-empty output directory")
	fs.StringVar(&workload, "workload", "", "JSON file with settings, runs and sweeps")
	fs.StringVar(&like, "like", "", "take settings and workload from a log: what kseg explain infers from PATH (flags given override)")
	fs.BoolVar(&asJSON, "json", false, "print each written batch with the model's reason for its cut (NDJSON) instead of the counts")
	addProduceFlags(fs, &f)
	return cmd
}

func produceErr(err error) error {
	switch {
	case errors.Is(err, producer.ErrConfig), errors.Is(err, producer.ErrOutputExists):
		return withCode(ExitUsage, err)
	case errors.Is(err, producer.ErrRecordTooLarge), errors.Is(err, producer.ErrBufferExhausted):
		return withCode(ExitBadInput, err)
	}
	return withCode(ExitInternal, err)
}

func runWorkload(cmd *cobra.Command, path, out string, force bool) error {
	runs, err := producer.ExpandWorkload(path)
	if err != nil {
		return withCode(ExitUsage, err)
	}
	all := make([]producer.SweepRun, 0, len(runs))
	for _, r := range runs {
		// Settings given on the command line are the base of every run.
		var f produceFlags
		fs := pflag.NewFlagSet(r.Name, pflag.ContinueOnError)
		addProduceFlags(fs, &f)
		cmd.Flags().Visit(func(fl *pflag.Flag) {
			if fs.Lookup(fl.Name) != nil {
				if sv, ok := fl.Value.(pflag.SliceValue); ok {
					for _, s := range sv.GetSlice() {
						fs.Set(fl.Name, s)
					}
					return
				}
				fs.Set(fl.Name, fl.Value.String())
			}
		})
		for _, s := range r.Settings {
			if fs.Lookup(s.Name) == nil {
				return withCode(ExitUsage, fmt.Errorf("%s: run %s: unknown setting %q (use flag names)", path, r.Name, s.Name))
			}
			if err := fs.Set(s.Name, s.Value); err != nil {
				return withCode(ExitUsage, fmt.Errorf("%s: run %s: %s: %w", path, r.Name, s.Name, err))
			}
		}
		cfg, err := f.config(fs)
		if err != nil {
			return withCode(ExitUsage, fmt.Errorf("%s: run %s: %w", path, r.Name, err))
		}
		all = append(all, producer.SweepRun{Name: r.Name, Config: cfg})
	}
	results, err := producer.Sweep(all, out, force)
	if err != nil {
		return produceErr(err)
	}
	return report.Sweep(cmd.OutOrStdout(), all, results)
}
