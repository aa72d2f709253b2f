package cmd

import (
	"bufio"
	"errors"
	"fmt"
	"runtime/debug"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/kseg/kseg/internal/atomicfile"
	"github.com/kseg/kseg/internal/source"
	"github.com/kseg/kseg/internal/whatif"
	"github.com/kseg/kseg/producer"
	"github.com/kseg/kseg/report"
)

func init() { subcommands = append(subcommands, newWhatifCmd) }

const whatifLong = `Predict what a change of producer settings does to the batching of the
traffic a log recorded.

PATH is a partition directory or a log directory; partitions are grouped
by topic. Each record's CreateTime is when send() stamped it: kseg replays
the records in that order through its model of the Java producer
(accumulator, sticky partitioner, sender, requests in flight), each
producer session (producer id and epoch) with its own accumulator. A keyed
record keeps its partition; an unkeyed one is placed again by the sticky
partitioner over the topic's partitions, so give all of them.

First the sender (its lag, the cost of closing a batch, the round trip) is
fitted so that the replay under the original settings reproduces the log's
own layout; the fit and the replay's self-check are printed. Then --runs
replays under the new settings give, per partition and for the topic, the
predicted batches, records and bytes per batch and produce requests, with
their p5-p95 range.

Settings use Kafka's producer property names (linger.ms, batch.size,
compression.type, max.in.flight.requests.per.connection, acks,
enable.idempotence, partitioner.adaptive.partitioning.enable,
buffer.memory, max.request.size, max.block.ms). The original settings come
from --was/--was-config, or else from kseg explain's inference (printed
with its confidence). Keys the model does not use are listed once on
stderr and ignored.

A log whose timestamps are not send() times (LogAppendTime, explicit
timestamps that go back against the offsets, every record of many batches
at one instant, no timestamps) is refused; --synthetic replays a workload
fitted to the log instead (its records and sizes, sent evenly over its
time span) and says so.

Exit status: 0 ok, 2 usage (a bad flag or setting value), 3 unreadable
input or timestamps that are not send() times, 4 the replay failed (an
internal error).`

func newWhatifCmd() *cobra.Command {
	var (
		set, was          []string
		config, wasConfig string
		runs              int
		seed              uint64
		synthetic         bool
		saveTiming        string
		force             bool
		out               outputFlag
		sf                source.Flags
	)
	c := &cobra.Command{
		Use:   "whatif PATH... --set KEY=VALUE...",
		Short: "Predict a log's batching under other producer settings by replaying its own records",
		Long:  whatifLong,
		Example: "  kseg whatif /var/lib/kafka/orders-0 --set linger.ms=20\n" +
			"  kseg whatif logs/ --was linger.ms=5 --set linger.ms=20 --set compression.type=lz4\n" +
			"  kseg whatif --json --config new.properties --was-config producer.properties logs/",
		Args: needPaths("whatif needs at least one PATH (a partition directory or a log directory)"),
		RunE: func(c *cobra.Command, args []string) error {
			opts, err := whatifOptions(set, was, config, wasConfig, runs, seed, synthetic)
			if err != nil {
				return withCode(ExitUsage, err)
			}
			return withSource(&sf, func(src *source.Set) error {
				return runWhatif(c, src, args, opts, out.json(), saveTiming, force)
			})
		},
	}
	fs := c.Flags()
	out.add(fs, "NDJSON: per topic a calibration object, one whatif object per partition, a whatif_topic object")
	fs.StringArrayVar(&set, "set", nil, "a new producer setting, KEY=VALUE (Kafka's name; repeatable; applied after --config)")
	fs.StringVar(&config, "config", "", "a producer.properties file with the new settings")
	fs.StringArrayVar(&was, "was", nil, "an original producer setting, KEY=VALUE (repeatable; default: inferred by explain)")
	fs.StringVar(&wasConfig, "was-config", "", "a producer.properties file with the original settings")
	fs.IntVar(&runs, "runs", 200, "replays per prediction (percentiles over them)")
	fs.Uint64Var(&seed, "seed", 1, "seed of the replays' random choices (partitioner, sender jitter)")
	fs.BoolVar(&synthetic, "synthetic", false, "when the timestamps are not send() times, replay a workload fitted to the log instead of refusing")
	fs.StringVar(&saveTiming, "save-timing", "", "write the sender fitted to the log as a timing profile for kseg produce --timing FILE (the topic with the most records)")
	fs.BoolVar(&force, "force", false, "with --save-timing: replace an existing file")
	addSourceFlags(c, &sf)
	return c
}

// whatifOptions turns the flags into whatif.Options: usage errors here.
func whatifOptions(set, was []string, config, wasConfig string, runs int, seed uint64, synthetic bool) (whatif.Options, error) {
	opts := whatif.Options{Runs: runs, Seed: seed, Synthetic: synthetic}
	if runs < 1 {
		return opts, fmt.Errorf("--runs must be at least 1, got %d", runs)
	}
	if len(was) > 0 && wasConfig != "" {
		return opts, errors.New("--was and --was-config exclude each other")
	}
	props := func(file string, kv []string) ([]producer.Property, error) {
		var ps []producer.Property
		if file != "" {
			fp, err := producer.ReadProperties(file)
			if err != nil {
				return nil, err
			}
			ps = fp
		}
		for _, s := range kv {
			p, err := producer.ParseProperty(s)
			if err != nil {
				return nil, err
			}
			ps = append(ps, p)
		}
		return ps, nil
	}
	var err error
	if opts.Set, err = props(config, set); err != nil {
		return opts, err
	}
	if len(opts.Set) == 0 {
		return opts, errors.New("whatif needs a new setting: --set KEY=VALUE or --config FILE")
	}
	if len(was) > 0 || wasConfig != "" {
		if opts.Was, err = props(wasConfig, was); err != nil {
			return opts, err
		}
	}
	// Check the values now, so that a bad one is a usage error before any
	// input is read.
	for _, ps := range [][]producer.Property{opts.Was, opts.Set} {
		c := producer.DefaultConfig()
		if _, err := c.ApplyProperties(ps); err != nil {
			return opts, err
		}
	}
	return opts, nil
}

// whatifMemoryLimit is the heap kseg whatif asks the Go runtime to keep
// to: a replay's trace is about 20 bytes a record, and without a limit the
// collector lets the heap grow to twice what is live.
const whatifMemoryLimit = 400 << 20

func runWhatif(c *cobra.Command, src *source.Set, args []string, opts whatif.Options, asJSON bool, saveTiming string, force bool) error {
	defer debug.SetMemoryLimit(debug.SetMemoryLimit(whatifMemoryLimit))
	parts, err := namedLogs(src.Partitions)(args)
	if err != nil {
		return withCode(ExitBadInput, err)
	}
	res, ignored, err := whatif.Run(parts, opts)
	switch {
	case errors.Is(err, producer.ErrConfig):
		return withCode(ExitUsage, err)
	case errors.Is(err, whatif.ErrNotArrivals):
		return withCode(ExitBadInput, err)
	case errors.Is(err, whatif.ErrReplay):
		return withCode(ExitInternal, err)
	case err != nil:
		return withCode(ExitBadInput, err)
	}
	if len(ignored) > 0 {
		fmt.Fprintf(c.ErrOrStderr(), "kseg: ignored (not settings of the model): %s\n", strings.Join(ignored, ", "))
	}
	if saveTiming != "" {
		topic, err := saveFittedTiming(saveTiming, force, res, args)
		if errors.Is(err, atomicfile.ErrExists) {
			return withCode(ExitUsage, fmt.Errorf("--save-timing %s exists; use --force to replace it", saveTiming))
		}
		if err != nil {
			return withCode(ExitBadInput, err)
		}
		fmt.Fprintf(c.ErrOrStderr(), "kseg: wrote the sender fitted to topic %s as a timing profile to %s (kseg produce --timing %s)\n", topic, saveTiming, saveTiming)
	}
	if asJSON {
		return report.WhatifJSON(c.OutOrStdout(), res)
	}
	return report.WhatifText(c.OutOrStdout(), res)
}

// saveFittedTiming writes the sender fitted to the topic with the most
// records as a timing profile (kseg produce --timing): its application
// thread costs nothing, since a trace's send times were the log's, so the
// profile carries the sender's lag, close cost, jitters and round trip.
func saveFittedTiming(path string, force bool, res []*whatif.Result, args []string) (string, error) {
	var best *whatif.Result
	for _, r := range res {
		if r.Fit != nil && (best == nil || r.Topic.Records() > best.Topic.Records()) {
			best = r
		}
	}
	if best == nil {
		return "", errors.New("--save-timing: no topic with records, no sender fitted")
	}
	f := best.Fit
	p := producer.Profile{
		Name: "fitted to " + best.Topic.Name,
		Provenance: producer.Provenance{
			Kafka:   "the producer that wrote the log",
			JDK:     "the producer's",
			Machine: "the machine and broker that wrote the log",
			Date:    time.Now().UTC().Format(time.DateOnly),
			Data:    fmt.Sprintf("kseg whatif on %s: topic %s, %d records, %d replayed per try", strings.Join(args, " "), best.Topic.Name, best.Topic.Records(), f.Records),
			Method:  fmt.Sprintf("the sender's lag, close cost and round trip fitted so that the replay of the log's own records under its settings reproduces its batch count and records per batch (%d senders tried); the application thread costs nothing (the log's timestamps are its send times)", f.Evaluations),
			Fit:     fmt.Sprintf("replay median batches %+.1f%% of the log's, records-per-batch distance %.3f from the middle fifth of the runs by batch count", 100*f.BatchError, f.HistError),
			HeldOut: "not scored: fitted to this one log",
		},
		Timing: f.Sender.Timing(),
		RTT:    f.Sender.RTT,
	}
	err := atomicfile.WriteFile(path, force, func(w *bufio.Writer) error { return p.Encode(w) })
	return best.Topic.Name, err
}
