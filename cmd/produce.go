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

Timing: the application thread's send() and the sender thread's wake-up,
drain and close take time (calibrated against Kafka 4.4.0's Java producer;
--send-cost, --wake-latency, --close-cost and the others set them), with a
seeded jitter. That is what makes a real producer's layout vary from run to
run where it depends on when the sender runs (compression, several
partitions, small linger). --ideal is the instantaneous model: a burst is
appended before the sender first runs (exact for size-cut bursts).

--runs N simulates N runs (run r draws its own jitter from --seed) and
prints the median run's count line with the range of batch counts; the
median run is written to --out with the envelope (every run's layout, as
NDJSON) in kseg-envelope.ndjson beside it, which kseg report draws.
--dry-run writes nothing; --json prints the NDJSON instead: per run and
partition {"type":"run",...}, then per partition {"type":"envelope",...}.
--compare PATH places each partition of a real log in the prediction
(percentile of its batch count and first batch, where its records per batch
leave the band) and exits 1 if one falls outside --tolerance.

Values: --value-file (one value per line, cycled), --values-from (keys,
values and headers replayed from a Kafka log), --value-entropy (synthetic
values of --value-size bytes, 0 compressible .. 1 random).

--workload FILE (JSON) takes the same settings by flag name, optionally with
"runs" (a list of named setting sets) and "sweep" (flag name -> list of
values, all combinations); each run is written to DIR/<run name>/ and a
summary table is printed. Example:
  {"records": 200, "value-size": 100,
   "sweep": {"linger-ms": [0, 5, 1000], "batch-size": [1024, 16384]}}

Exit status: 0 ok, 1 with --compare a partition outside --tolerance, 2 usage
(bad settings, --out not empty without --force, or with --force not
written by kseg), 3 bad input (a record too
large, buffer.memory exhausted, unreadable values or --compare/--like log),
4 the output could not be written or another internal error.`

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
	ideal          bool
	timing         producer.Timing
}

// timingFlags are the flags that set producer.Timing (--ideal excludes them).
var timingFlags = []string{"batch-cost", "send-cost", "send-cost-per-kb", "send-cost-key", "send-cost-header", "send-cost-codec-per-kb",
	"first-send-cost", "codec-load", "first-send-jitter", "warmup-sends", "warmup-factor", "batch-warmup", "wake-latency", "idle-wake-latency", "idle-sender-factor", "idle-rtt-factor", "loop-cost", "close-cost", "close-cost-per-kb",
	"cold-close", "cold-close-compressed", "cold-close-decay", "cold-rtt", "first-rtt", "cold-jitter", "jitter", "sender-jitter", "run-jitter", "sender-run-jitter", "idle-sender-jitter", "idle-sender-run-jitter", "sender-step-max", "rtt-jitter", "pause-every", "idle-pause-every", "pause-mean"}

func addProduceFlags(fs *pflag.FlagSet, f *produceFlags) {
	d := producer.DefaultConfig()
	c := &f.cfg
	fs.StringVar(&c.Topic, "topic", d.Topic, "topic name")
	fs.IntVar(&c.Partitions, "partitions", d.Partitions, "number of partitions")
	fs.Int64Var(&c.Records, "records", d.Records, "records to send")
	fs.IntVar(&c.ValueSize, "value-size", d.ValueSize, "value size in bytes (the value is that many 'v' bytes; -1 = null)")
	fs.StringVar(&c.ValueFile, "value-file", "", "values from FILE, one per line, cycled (replaces --value-size)")
	fs.StringVar(&c.ValuesFrom, "values-from", "", "keys, values and headers replayed from a Kafka log (directory or segment), cycled; --records defaults to its record count")
	fs.Float64Var(&c.ValueEntropy, "value-entropy", d.ValueEntropy, "synthetic --value-size values of this compressibility: 0 (text-like) .. 1 (random); -1 = repeated 'v'")
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
	fs.DurationVar(&f.sendInterval, "send-interval", 0, "fixed-rate sender: send i starts at start + i*interval, or when send i-1 returns if later (sync: think time after each ack)")
	fs.DurationVar(&f.firstSendDelay, "first-send-delay", 0, "extra virtual time the first send() takes after its timestamp (cold JVM)")
	fs.StringVar(&f.startTime, "start-time", strconv.FormatInt(d.StartTime, 10), "virtual clock origin: ms since the epoch or RFC 3339")
	fs.DurationVar(&f.rtt, "rtt", d.RTT, "produce request round trip (the broker appends at rtt/2)")
	fs.DurationVar(&f.pidDelay, "pid-delay", 0, "when the producer id arrives, after the start (nothing is sent before)")
	fs.Uint64Var(&c.Seed, "seed", d.Seed, "seed of the sticky partitioner's random choices and the timing jitter")
	t, dt := &f.timing, d.Timing
	fs.BoolVar(&f.ideal, "ideal", false, "instantaneous threads: every send() and sender step takes no time (the timing flags do not apply)")
	fs.DurationVar(&t.SendCost, "send-cost", dt.SendCost, "application thread: fixed cost of one send()")
	fs.DurationVar(&t.SendCostPerKB, "send-cost-per-kb", dt.SendCostPerKB, "application thread: send() cost per KiB of record")
	fs.DurationVar(&t.SendCostKey, "send-cost-key", dt.SendCostKey, "application thread: extra send() cost of a keyed record")
	fs.DurationVar(&t.SendCostHeader, "send-cost-header", dt.SendCostHeader, "application thread: extra send() cost per header")
	fs.DurationVar(&t.SendCostCodecPerKB, "send-cost-codec-per-kb", dt.SendCostCodecPerKB, "application thread: extra send() cost per KiB when compressing (negative: the codec's default)")
	fs.DurationVar(&t.BatchCost, "batch-cost", dt.BatchCost, "application thread: extra time of a send() that creates a batch, compression stream included (negative: the codec's default)")
	fs.DurationVar(&t.FirstSend, "first-send-cost", dt.FirstSend, "application thread: extra time of the first send() of a cold JVM")
	fs.DurationVar(&t.CodecLoad, "codec-load", dt.CodecLoad, "application thread: extra time of the first send() with a codec, which loads it (negative: the codec's default)")
	fs.Float64Var(&t.FirstSendJitter, "first-send-jitter", dt.FirstSendJitter, "log-normal sigma of the first send()'s extra time, once per run")
	fs.IntVar(&t.WarmupSends, "warmup-sends", dt.WarmupSends, "application thread: send i costs (1 + warmup-factor*exp(-i/warmup-sends)) times the warm cost")
	fs.Float64Var(&t.WarmupFactor, "warmup-factor", dt.WarmupFactor, "application thread: how much slower the first sends are")
	fs.Float64Var(&t.BatchWarmup, "batch-warmup", dt.BatchWarmup, "application thread: share of the warm-up that --batch-cost takes (0: none, 1: as send())")
	fs.DurationVar(&t.WakeLatency, "wake-latency", dt.WakeLatency, "sender thread: from wakeup(), a response or a poll timeout to running, while the application thread is busy")
	fs.DurationVar(&t.IdleWakeLatency, "idle-wake-latency", dt.IdleWakeLatency, "sender thread: the same while the application thread is idle (by its duty cycle in between)")
	fs.Float64Var(&t.IdleSenderFactor, "idle-sender-factor", dt.IdleSenderFactor, "sender thread: factor on its loop and close costs while the application thread is idle (by its duty cycle in between; 0 or 1: none)")
	fs.Float64Var(&t.IdleRTTFactor, "idle-rtt-factor", dt.IdleRTTFactor, "factor on the produce round trip (--rtt) while the application thread is idle (by its duty cycle in between; 0 or 1: none)")
	fs.DurationVar(&t.LoopCost, "loop-cost", dt.LoopCost, "sender thread: one runOnce (ready, request, network write)")
	fs.DurationVar(&t.CloseCost, "close-cost", dt.CloseCost, "sender thread: closing one batch (header, CRC)")
	fs.DurationVar(&t.ClosePerKB, "close-cost-per-kb", dt.ClosePerKB, "sender thread: close cost per KiB of uncompressed records, compression included (negative: the codec's default)")
	fs.DurationVar(&t.ColdClose, "cold-close", dt.ColdClose, "sender thread: extra time of its first close, decaying over the next ones by --cold-close-decay (cold JVM)")
	fs.DurationVar(&t.ColdCloseCompressed, "cold-close-compressed", dt.ColdCloseCompressed, "sender thread: more extra time of the first closes with a codec")
	fs.Float64Var(&t.ColdCloseDecay, "cold-close-decay", dt.ColdCloseDecay, "sender thread: how many closes the cold cost lasts (close k costs exp(-k/decay) of --cold-close)")
	fs.DurationVar(&t.ColdRTT, "cold-rtt", dt.ColdRTT, "extra round trip of a produce request per partition in it the broker appends to for the first time (the requests behind it wait)")
	fs.DurationVar(&t.FirstRTT, "first-rtt", dt.FirstRTT, "extra round trip of the run's first produce request (the requests behind it wait)")
	fs.Float64Var(&t.ColdJitter, "cold-jitter", dt.ColdJitter, "log-normal sigma of one factor per run on --cold-close, --cold-rtt and --first-rtt")
	fs.Float64Var(&t.Jitter, "jitter", dt.Jitter, "log-normal sigma of every send() cost")
	fs.Float64Var(&t.SenderJitter, "sender-jitter", dt.SenderJitter, "log-normal sigma of the sender's wake-ups, loops and closes (0: --jitter)")
	fs.Float64Var(&t.RunJitter, "run-jitter", dt.RunJitter, "log-normal sigma of the application thread's speed over a whole run")
	fs.Float64Var(&t.SenderRunJitter, "sender-run-jitter", dt.SenderRunJitter, "log-normal sigma of the sender thread's (and the round trip's) speed over a whole run")
	fs.Float64Var(&t.IdleSenderJitter, "idle-sender-jitter", dt.IdleSenderJitter, "--sender-jitter while the application thread is idle (by its duty cycle in between; 0: the same)")
	fs.Float64Var(&t.IdleSenderRunJitter, "idle-sender-run-jitter", dt.IdleSenderRunJitter, "--sender-run-jitter while the application thread is idle (by its duty cycle in between; 0: the same)")
	fs.DurationVar(&t.SenderStepMax, "sender-step-max", dt.SenderStepMax, "sender thread: longest one wake-up, loop or close may take, jitter included (0: no bound)")
	fs.Float64Var(&t.RTTJitter, "rtt-jitter", dt.RTTJitter, "log-normal sigma of each request's round trip")
	fs.Float64Var(&t.PauseEvery, "pause-every", dt.PauseEvery, "application thread stalls once every N sends on average (0: never)")
	fs.Float64Var(&t.IdlePauseEvery, "idle-pause-every", dt.IdlePauseEvery, "--pause-every while the application thread is idle, sleeping until its next send (by its duty cycle in between; 0: the same)")
	fs.DurationVar(&t.PauseMean, "pause-mean", dt.PauseMean, "mean length of an application-thread stall (exponential)")
	fs.Float64Var(&c.CodecSizeFactor, "codec-size-factor", 0, "Java's compressed size over kseg's for the codec, for the compression estimate (0: the measured default)")
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
	c.Timing = f.timing
	if f.ideal {
		for _, name := range timingFlags {
			if fs.Changed(name) {
				return c, fmt.Errorf("--ideal excludes --%s", name)
			}
		}
		c.Timing = producer.Timing{}
	}
	if c.ValuesFrom != "" && !fs.Changed("records") {
		c.Records = -1 // every record of the source once
	}
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

// runFlags are the flags of kseg produce that are not settings of a run.
type runFlags struct {
	out, workload string
	force         bool
	runs          int
	dry           bool
	output        outputFlag
	compare, tol  string
}

func newProduceCmd() *cobra.Command {
	var (
		r    runFlags
		f    produceFlags
		like string
	)
	cmd := &cobra.Command{
		Use:   "produce --out DIR [flags]",
		Short: "Write a Kafka log directory with the reference producer",
		Example: "  kseg produce --records 200 --value-size 100 --linger-ms 1000 --batch-size 1024 --out run/\n" +
			"  kseg produce --records 3000 --compression gzip --batch-size 4096 --linger-ms 1000 --runs 200 --dry-run\n" +
			"  kseg produce --compression zstd --runs 200 --compare /var/lib/kafka/orders-0\n" +
			"  kseg produce --inject gap@5 --out faulty/ && kseg audit faulty/\n" +
			"  kseg produce --workload sweep.json --out sweep/ && kseg report sweep/ --out sweep.html",
		Long: produceLong,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if r.runs < 1 {
				return withCode(ExitUsage, errors.New("--runs must be at least 1"))
			}
			if r.workload != "" && like != "" {
				return withCode(ExitUsage, errors.New("--like and --workload cannot be combined"))
			}
			if r.compare != "" {
				r.dry = true
			}
			if r.out == "" && !r.dry {
				return withCode(ExitUsage, errors.New("--out DIR is required (or --dry-run, --compare)"))
			}
			if r.out != "" && r.dry {
				return withCode(ExitUsage, errors.New("--out and --dry-run/--compare exclude each other"))
			}
			if r.workload != "" {
				return runWorkload(cmd, &r)
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
			if r.compare != "" {
				return runCompare(cmd, cfg, &r)
			}
			w := cmd.OutOrStdout()
			if r.runs == 1 && !r.dry {
				// A usage error is found before anything is written.
				if r.output.json() && len(cfg.Inject) > 0 {
					return withCode(ExitUsage, errors.New("--json gives the model's batches; it cannot be combined with --inject"))
				}
				res, err := producer.Run(cfg, r.out, r.force)
				if err != nil {
					return produceErr(err)
				}
				if r.output.json() {
					return report.ProduceJSON(w, cfg.Topic, res)
				}
				report.ProduceCounts(w, cfg.Topic, res)
				return nil
			}
			env, res, err := producer.Produce(cfg, r.runs, r.out, r.force, r.dry)
			if err != nil {
				return produceErr(err)
			}
			if r.output.json() {
				return env.WriteNDJSON(w)
			}
			report.ProduceEnvelope(w, env, res)
			return nil
		},
	}
	fs := cmd.Flags()
	fs.SortFlags = false
	fs.StringVarP(&r.out, "out", "o", "", "output directory (must not exist or be empty)")
	fs.BoolVar(&r.force, "force", false, "replace a non-empty output directory that kseg wrote (it holds "+producer.OutputMarker+")")
	fs.StringVar(&r.workload, "workload", "", "JSON file with settings, runs and sweeps")
	fs.StringVar(&like, "like", "", "take settings and workload from a log: what kseg explain infers from PATH (flags given override)")
	fs.IntVar(&r.runs, "runs", 1, "simulate N runs: print the median run and the range, write the median run and the envelope")
	fs.BoolVar(&r.dry, "dry-run", false, "simulate only: write no files")
	r.output.add(fs, "NDJSON: for one written run, each batch with the model's reason for its cut; with --runs/--dry-run, the runs and the envelope; with --compare, the placements")
	fs.StringVar(&r.compare, "compare", "", "place each partition of the real log at PATH in the predicted distribution (no files written)")
	fs.StringVar(&r.tol, "tolerance", "minmax", "with --compare: minmax, or a central percentage (90 = p5-p95) a partition must fall in")
	addProduceFlags(fs, &f)
	return cmd
}

// runCompare simulates cfg and places the real log's partitions in it.
func runCompare(cmd *cobra.Command, cfg producer.Config, r *runFlags) error {
	tol, err := producer.ParseTolerance(r.tol)
	if err != nil {
		return withCode(ExitUsage, err)
	}
	obs, err := producer.ReadLayout(r.compare)
	if err != nil {
		return withCode(ExitBadInput, err)
	}
	env, err := producer.Simulate(cfg, r.runs)
	if err != nil {
		return produceErr(err)
	}
	pls, err := env.Compare(obs, tol)
	if err != nil {
		return withCode(ExitUsage, err)
	}
	w := cmd.OutOrStdout()
	if r.output.json() {
		if err := report.PlacementsJSON(w, pls); err != nil {
			return err
		}
	} else {
		report.Placements(w, pls)
	}
	for _, pl := range pls {
		if !pl.Inside {
			return silentExit(ExitFindings)
		}
	}
	return nil
}

func produceErr(err error) error {
	switch {
	case errors.Is(err, producer.ErrConfig), errors.Is(err, producer.ErrOutputExists):
		return withCode(ExitUsage, err)
	case errors.Is(err, producer.ErrRecordTooLarge), errors.Is(err, producer.ErrBufferExhausted), errors.Is(err, producer.ErrValues):
		return withCode(ExitBadInput, err)
	}
	return withCode(ExitInternal, err)
}

func runWorkload(cmd *cobra.Command, rf *runFlags) error {
	if rf.compare != "" || rf.output.json() {
		return withCode(ExitUsage, errors.New("--workload does not take --compare or --json"))
	}
	path := rf.workload
	runs, plan, err := producer.ExpandSweep(path)
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
	if rf.runs == 1 && !rf.dry {
		results, err := producer.Sweep(all, plan, rf.out, rf.force)
		if err != nil {
			return produceErr(err)
		}
		return report.Sweep(cmd.OutOrStdout(), all, results)
	}
	envs, results, err := producer.SweepEnvelopes(all, plan, rf.runs, rf.out, rf.force, rf.dry)
	if err != nil {
		return produceErr(err)
	}
	return report.SweepEnvelopes(cmd.OutOrStdout(), all, envs, results)
}
