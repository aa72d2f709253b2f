package cmd

import (
	"bufio"
	"errors"
	"fmt"
	"runtime"

	"github.com/spf13/cobra"

	"github.com/kseg/kseg/internal/countcheck"
	"github.com/kseg/kseg/internal/rfile"
	"github.com/kseg/kseg/internal/source"
	"github.com/kseg/kseg/located"
	"github.com/kseg/kseg/report"
	"github.com/kseg/kseg/segment"
)

func init() { subcommands = append(subcommands, newCountCmd) }

const countLong = `Count the batches and records of each partition, from batch headers only.

PATH is a segment file, a partition directory or a log directory (every
partition). One line per partition, in the seed's notation:
  orders-0: 25 batches, 200 records, records per batch: 8x25
where "8x25" means 25 batches of 8 records (groups by record count,
largest first). A batch's record count is the count in its header (what
kafka-dump-log prints as count:), so a compacted batch counts the records it
still holds; a legacy compressed wrapper counts its inner messages.

Checks (exit status 1 when one fails, naming the partition, the expected
and the actual value):
  --expect-histogram H        every partition has histogram H ("8x25")
  --expect-histogram T-P=H    partition T-P has histogram H (repeatable)
  --min-avg-records N         mean records per batch >= N
  --max-batches N             batches <= N
  --min-fill F                mean batch bytes / --batch-size >= F
Partitions without batches are not held to --min-avg-records or --min-fill.

Limits:
  --max-bytes N               read only the first N bytes of each .log (a
                              batch crossing the limit is not counted)
  --max-decompressed N        cap on one batch's decompressed size; a batch
                              over it is an error (exit 3). Only batches
                              that are decompressed are held to it: legacy
                              compressed wrappers, and with --detail all.
                              An entry read whole may be at most a quarter
                              more (docs/limits.md).

Exit status: 0 ok, 1 a check failed, 2 usage, 3 unreadable input.`

type countFlags struct {
	detail     bool
	out        outputFlag
	workers    int
	batchSize  int
	expect     []string
	minAvg     float64
	maxBatches int64
	minFill    float64
	quiet      bool
	maxBytes   int64
	maxDecomp  int
}

func newCountCmd() *cobra.Command {
	var f countFlags
	var sf source.Flags
	c := &cobra.Command{
		Use:     "count PATH...",
		Short:   "Count batches, records and records per batch of each partition",
		Long:    countLong,
		Example: "  kseg count /var/lib/kafka/orders-0\n  kseg count --detail --batch-size 16384 /var/lib/kafka\n  kseg count --expect-histogram orders-0=8x25 --max-batches 30 run/",
		Args:    needPaths("count needs at least one PATH (a segment file, partition directory or log directory)"),
		RunE: func(c *cobra.Command, args []string) error {
			return withSource(&sf, func(src *source.Set) error { return runCount(c, &f, src, args) })
		},
	}
	fs := c.Flags()
	fs.SortFlags = false
	fs.BoolVar(&f.detail, "detail", false, "add a table: bytes, min/avg/max, fill, codecs and compression ratio (decompresses), control batches, time span, producer ids")
	f.out.add(fs, "NDJSON: one object per partition")
	fs.IntVar(&f.workers, "workers", runtime.GOMAXPROCS(0), "partitions scanned in parallel")
	fs.IntVar(&f.batchSize, "batch-size", 0, "producer batch.size, for the fill ratio")
	fs.StringArrayVar(&f.expect, "expect-histogram", nil, "check: histogram H for every partition, or TOPIC-P=H for one (repeatable)")
	fs.Float64Var(&f.minAvg, "min-avg-records", 0, "check: mean records per batch at least N")
	fs.Int64Var(&f.maxBatches, "max-batches", -1, "check: at most N batches per partition")
	fs.Float64Var(&f.minFill, "min-fill", 0, "check: mean batch bytes / --batch-size at least F")
	fs.Int64Var(&f.maxBytes, "max-bytes", 0, "read only the first N bytes of each .log (0: all)")
	fs.IntVar(&f.maxDecomp, "max-decompressed", 0, "cap on one batch's decompressed size in bytes (0: the default, 64 MiB); an entry read whole may be a quarter more")
	fs.BoolVarP(&f.quiet, "quiet", "q", false, "no progress line on stderr (shown only when stderr is a terminal)")
	addSourceFlags(c, &sf)
	return c
}

func runCount(c *cobra.Command, f *countFlags, src *source.Set, args []string) error {
	fs := c.Flags()
	hists, err := countcheck.ParseHistograms(f.expect)
	if err != nil {
		return withCode(ExitUsage, err)
	}
	if f.workers < 1 {
		return withCode(ExitUsage, fmt.Errorf("--workers %d: want at least 1", f.workers))
	}
	if err := checkBatchSize(f.batchSize); err != nil {
		return err
	}
	if fs.Changed("min-fill") && f.batchSize == 0 {
		return withCode(ExitUsage, errors.New("--min-fill needs --batch-size (the producer's batch.size)"))
	}
	if fs.Changed("max-batches") && f.maxBatches < 0 {
		return withCode(ExitUsage, fmt.Errorf("--max-batches %d: want 0 or more", f.maxBatches))
	}
	if f.maxBytes < 0 {
		return withCode(ExitUsage, fmt.Errorf("--max-bytes %d: want 0 (all) or a positive byte count", f.maxBytes))
	}
	if fs.Changed("max-decompressed") && f.maxDecomp <= 0 {
		return withCode(ExitUsage, fmt.Errorf("--max-decompressed %d: want a positive byte count", f.maxDecomp))
	}
	parts, err := namedLogs(src.Partitions)(args)
	if err != nil {
		return withCode(ExitBadInput, err)
	}
	for i := range parts {
		if nl := parts[i].NotLogs(); len(nl) > 0 {
			return withCode(ExitBadInput, &located.Error{File: nl[0], Offset: -1,
				Err: fmt.Errorf("%w: count reads .log files (and KRaft .checkpoint snapshots)", segment.ErrNotLog)})
		}
	}
	opts := segment.CountOptions{Uncompressed: f.detail, MaxBytes: f.maxBytes, MaxDecompressed: f.maxDecomp}
	var prog *report.Progress
	if showProgress(c, f.quiet, false) { // the total costs a stat per file
		var logs []string
		for i := range parts {
			for _, s := range parts[i].Segments {
				logs = append(logs, s.Path)
			}
		}
		prog = report.NewProgress(c.ErrOrStderr(), true, "count", rfile.TotalSize(logs, f.maxBytes))
		opts.Progress = prog.Add
	}
	res, err := segment.CountPartitions(parts, f.workers, opts)
	prog.Done()
	if err != nil {
		return withCode(ExitBadInput, err)
	}
	style := report.TableStyleFor(c.OutOrStdout())
	out := bufio.NewWriterSize(c.OutOrStdout(), 64<<10) // a line per partition
	if f.out.json() {
		err = report.CountJSON(out, res, f.batchSize)
	} else {
		err = report.CountText(out, res, f.detail, f.batchSize, style)
	}
	if ferr := out.Flush(); err == nil {
		err = ferr
	}
	if err != nil {
		return err
	}
	checks := countcheck.Checks{Histograms: hists, MinAvg: f.minAvg, MaxBatches: f.maxBatches, MinFill: f.minFill, BatchSize: f.batchSize}
	failures := checks.Run(res)
	for _, m := range failures {
		fmt.Fprintf(c.ErrOrStderr(), "kseg: check failed: %s\n", m)
	}
	if len(failures) > 0 {
		return silentExit(ExitFindings)
	}
	return nil
}
