package cmd

import (
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
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

Settings: the flags name Kafka's producer settings in kseg's words
(--linger-ms is linger.ms); --producer-property KEY=VALUE and
--producer.config FILE take them by Kafka's names, as
kafka-producer-perf-test does, and --throughput N is its fixed rate in
records/s. Keys the model does not use are listed once on stderr.

Timing: the application thread's send() and the sender thread's wake-up,
drain and close take time, with a seeded jitter. That is what makes a real
producer's layout vary from run to run where it depends on when the sender
runs (compression, several partitions, small linger). The constants come
from a timing profile: by default the embedded one, calibrated against
Kafka 4.4.0's Java producer on a calm 2-core machine; --show-timing prints
it with its provenance, --timing FILE reads another (as --show-timing
prints it), --timing-set KEY=VALUE changes one constant. --timing ideal
(--ideal) is the instantaneous model: a burst is appended before the
sender first runs (exact for size-cut bursts).

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
	throughput     float64
	firstSendDelay time.Duration
	rtt            time.Duration
	pidDelay       time.Duration
	ideal          bool
	timingFile     string
	timingSet      []string
	props          []string
	propsFile      string
}

// propertyFlags are the kseg flags that give a Kafka producer property
// (a property and its flag given both are refused).
var propertyFlags = map[string]string{
	"batch.size": "batch-size", "linger.ms": "linger-ms", "compression.type": "compression",
	"enable.idempotence": "idempotence", "acks": "acks", "max.in.flight.requests.per.connection": "max-in-flight",
	"buffer.memory": "buffer-memory", "max.request.size": "max-request-size", "max.block.ms": "max-block-ms",
	"partitioner.adaptive.partitioning.enable": "adaptive-partitioning",
}

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
	fs.Int64Var(&c.Burst, "burst", 0, "send in bursts of N records, each as fast as the thread can: burst k starts at start + k*send-interval, or when the last send returns if later (0: a fixed rate)")
	fs.DurationVar(&f.firstSendDelay, "first-send-delay", 0, "extra virtual time the first send() takes after its timestamp (cold JVM)")
	fs.StringVar(&f.startTime, "start-time", strconv.FormatInt(d.StartTime, 10), "virtual clock origin: ms since the epoch or RFC 3339")
	fs.DurationVar(&f.rtt, "rtt", d.RTT, "produce request round trip (the broker appends at rtt/2; default: the timing profile's)")
	fs.DurationVar(&f.pidDelay, "pid-delay", 0, "when the producer id arrives, after the start (nothing is sent before)")
	fs.Uint64Var(&c.Seed, "seed", d.Seed, "seed of the sticky partitioner's random choices and the timing jitter")
	fs.StringArrayVar(&f.props, "producer-property", nil, "a Kafka producer property KEY=VALUE, as kafka-producer-perf-test takes it (repeatable; batch.size, linger.ms, compression.type, acks, ... : the flags above are short forms)")
	fs.StringVar(&f.propsFile, "producer.config", "", "a producer.properties FILE (--producer-property given too overrides it; keys the model does not use are listed on stderr)")
	fs.Float64Var(&f.throughput, "throughput", 0, "fixed-rate sender at this many records/s, as kafka-producer-perf-test's --throughput (the same as --send-interval 1s/N; 0 or -1: as fast as possible)")
	fs.StringVar(&f.timingFile, "timing", "", "timing profile: a JSON FILE (as --show-timing prints it) or ideal (default: the embedded calibrated profile)")
	fs.StringArrayVar(&f.timingSet, "timing-set", nil, "override one constant of the timing profile, KEY=VALUE (repeatable; --show-timing lists the keys)")
	fs.BoolVar(&f.ideal, "ideal", false, "short for --timing ideal: instantaneous threads, every send() and sender step takes no time")
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
	if fs.Changed("throughput") && f.throughput > 0 {
		if fs.Changed("send-interval") {
			return c, errors.New("--throughput and --send-interval set the same rate: give one")
		}
		c.SendInterval = time.Duration(float64(time.Second) / f.throughput)
	} else if f.throughput < 0 && f.throughput != -1 {
		return c, fmt.Errorf("--throughput %v: want records per second, or 0 or -1 for no limit", f.throughput)
	}
	prof, err := f.profile()
	if err != nil {
		return c, err
	}
	c.Timing, c.CodecSizeFactor = prof.Timing, prof.CodecSizeFactor
	if !fs.Changed("rtt") && (f.timingFile != "" || len(f.timingSet) > 0) {
		c.RTT = prof.RTT
	}
	if err := f.applyProperties(&c, fs); err != nil {
		return c, err
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

// profile is the timing profile the flags name: the embedded default,
// --timing FILE or ideal (--ideal), with --timing-set on top.
func (f *produceFlags) profile() (producer.Profile, error) {
	name := f.timingFile
	if f.ideal {
		if name != "" && name != producer.IdealProfileName {
			return producer.Profile{}, fmt.Errorf("--ideal and --timing %s: give one", name)
		}
		name = producer.IdealProfileName
	}
	prof := producer.DefaultProfile()
	if name == producer.IdealProfileName && len(f.timingSet) > 0 {
		return prof, errors.New("--timing ideal takes no --timing-set: the ideal model has no timing constants")
	}
	if name != "" {
		p, err := producer.ReadProfile(name)
		if err != nil {
			return prof, fmt.Errorf("--timing: %w", err)
		}
		prof = p
	}
	base := prof
	for _, kv := range f.timingSet {
		if err := prof.Set(kv); err != nil {
			return prof, err
		}
	}
	if d := prof.Differences(base); len(d) > 0 {
		prof.Provenance.Notes = append(slices.Clip(prof.Provenance.Notes), "changed by --timing-set: "+strings.Join(d, " "))
	}
	return prof, nil
}

// properties are --producer.config's then --producer-property's Kafka
// producer properties (a later key replaces an earlier one).
func (f *produceFlags) properties() ([]producer.Property, error) {
	var props []producer.Property
	if f.propsFile != "" {
		p, err := producer.ReadProperties(f.propsFile)
		if err != nil {
			return nil, fmt.Errorf("--producer.config: %w", err)
		}
		props = p
	}
	for _, s := range f.props {
		p, err := producer.ParseProperty(s)
		if err != nil {
			return nil, fmt.Errorf("--producer-property %w", err)
		}
		props = slices.DeleteFunc(props, func(q producer.Property) bool { return q.Key == p.Key })
		props = append(props, p)
	}
	return props, nil
}

// applyProperties sets c from the Kafka producer properties given; a
// property and the kseg flag for the same setting exclude each other.
func (f *produceFlags) applyProperties(c *producer.Config, fs *pflag.FlagSet) error {
	props, err := f.properties()
	if err != nil || len(props) == 0 {
		return err
	}
	for _, p := range props {
		if name, ok := propertyFlags[p.Key]; ok && fs.Changed(name) {
			return fmt.Errorf("--%s and %s=%s set the same setting: give one", name, p.Key, p.Value)
		}
	}
	if fs.Changed("idempotence") { // given, as KafkaProducer sees an explicit enable.idempotence
		props = append([]producer.Property{{Key: "enable.idempotence", Value: strconv.FormatBool(c.Idempotence)}}, props...)
	}
	_, err = c.ApplyProperties(props)
	return err
}

// ignoredProperties are the keys of the properties given that the model
// does not use, each once.
func (f *produceFlags) ignoredProperties() []string {
	props, err := f.properties()
	if err != nil {
		return nil
	}
	c := producer.DefaultConfig()
	ignored, _ := c.ApplyProperties(props)
	return ignored
}

// runFlags are the flags of kseg produce that are not settings of a run.
type runFlags struct {
	out, workload string
	force         bool
	runs          int
	dry           bool
	output        outputFlag
	compare, tol  string
	showTiming    bool
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
			if r.showTiming {
				prof, err := f.profile()
				if err != nil {
					return withCode(ExitUsage, err)
				}
				return prof.Encode(cmd.OutOrStdout())
			}
			if ign := f.ignoredProperties(); len(ign) > 0 {
				fmt.Fprintf(cmd.ErrOrStderr(), "kseg: ignored: %s (producer properties the model does not use)\n", strings.Join(ign, ", "))
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
				run := producer.RunCounts // the count lines need no list of every batch
				if r.output.json() {
					run = producer.Run
				}
				res, err := run(cfg, r.out, r.force)
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
	fs.BoolVar(&r.showTiming, "show-timing", false, "print the timing profile in use (--timing, --timing-set) as JSON, with its provenance, and exit")
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

// ProduceConfig is the Config kseg produce runs with for the flags in args
// (relative files are read from the working directory): what the
// calibration tool (oracle/calibration/fit) simulates for a real-run case's
// produce_args.
func ProduceConfig(args []string) (producer.Config, error) {
	var f produceFlags
	fs := pflag.NewFlagSet("produce", pflag.ContinueOnError)
	addProduceFlags(fs, &f)
	if err := fs.Parse(args); err != nil {
		return producer.Config{}, err
	}
	if fs.NArg() > 0 {
		return producer.Config{}, fmt.Errorf("unexpected argument %q", fs.Arg(0))
	}
	return f.config(fs)
}
