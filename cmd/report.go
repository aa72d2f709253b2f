package cmd

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"time"

	"github.com/spf13/cobra"

	"github.com/kseg/kseg/internal/atomicfile"
	"github.com/kseg/kseg/internal/collect"
	"github.com/kseg/kseg/internal/source"
	"github.com/kseg/kseg/producer"
	"github.com/kseg/kseg/report"
)

func init() { subcommands = append(subcommands, newReportCmd) }

const reportLong = `Write one self-contained HTML page (inline CSS and SVG, no scripts, nothing
fetched) with pictures of batching for each partition: records-per-batch
histogram, batch size along the offsets (against --batch-size), batches over
time (CreateTime gaps show linger), producer sequences with audit findings
marked, and the codec mix with the compression ratio. A table under each
chart holds the same numbers (kseg count --detail, kseg audit).

Each PATH is a log directory, a partition directory or a segment file and
becomes one run; a directory of log directories (a kseg produce --workload
sweep) gives one run per sub-directory. Runs are shown side by side.
Partitions with more than 2000 batches are sampled at a regular stride in
the per-batch charts (the caption says so); counts and tables are exact.

With --replicas the runs are copies of the same partitions, one per broker
(kseg replicas): each partition held by two or more runs gets a time line of
every copy's leader epochs along the offsets, from its log start to its log
end, with each divergence marked and each pair's verdict.

The page is written atomically (temporary file, then rename); an existing
--out file is replaced only with --force.

Exit status: 0 ok, 2 usage, 3 unreadable input.`

type reportFlags struct {
	out, title string
	force      bool
	batchSize  int
	noAudit    bool
	quiet      bool
	explain    bool
	replicas   bool
	whatif     []string
	was        []string
	whatifRuns int
}

func newReportCmd() *cobra.Command {
	var f reportFlags
	var sf source.Flags
	c := &cobra.Command{
		Use:     "report PATH... --out FILE.html",
		Short:   "Write an HTML page with charts of batching, sequences and codecs",
		Long:    reportLong,
		Example: "  kseg report testdata/segments/seed --out seed.html\n  kseg report --batch-size 1024 --force --out sweep.html sweep/\n  kseg report simulated/ broker-copy/ --out compare.html",
		Args:    needPaths("report needs at least one PATH (a log directory, partition directory or segment file)"),
		RunE: func(c *cobra.Command, args []string) error {
			return withSource(&sf, func(src *source.Set) error { return runReport(c, &f, src, args) })
		},
	}
	fs := c.Flags()
	fs.SortFlags = false
	fs.StringVarP(&f.out, "out", "o", "", "HTML file to write (required)")
	fs.BoolVar(&f.force, "force", false, "replace an existing --out file")
	fs.IntVar(&f.batchSize, "batch-size", 0, "producer batch.size: draws the fill line and the fill ratio")
	fs.StringVar(&f.title, "title", "", "page title (default: the run names)")
	fs.BoolVar(&f.noAudit, "no-audit", false, "skip the producer audit (no findings marked)")
	fs.BoolVarP(&f.quiet, "quiet", "q", false, "no progress on stderr")
	fs.BoolVar(&f.explain, "explain", false, "colour each batch's point by its cut reason and show the inferred producer settings (kseg explain)")
	fs.BoolVar(&f.replicas, "replicas", false, "the runs are copies of the same partitions (one per broker): draw each partition's leader epochs of every copy on one time line, with where they diverge (kseg replicas)")
	fs.StringArrayVar(&f.whatif, "whatif", nil, "draw what these producer settings would do to each topic's own traffic (kseg whatif): KEY=VALUE[,KEY=VALUE...] by Kafka's names, repeatable (one band each)")
	fs.StringArrayVar(&f.was, "was", nil, "with --whatif: a setting that wrote the logs, KEY=VALUE, repeatable (default: kseg explain's inference)")
	fs.IntVar(&f.whatifRuns, "whatif-runs", 200, "with --whatif: replays per setting")
	addSourceFlags(c, &sf)
	return c
}

func runReport(c *cobra.Command, f *reportFlags, src *source.Set, args []string) error {
	if f.out == "" {
		return withCode(ExitUsage, errors.New("report needs --out FILE.html"))
	}
	if err := checkBatchSize(f.batchSize); err != nil {
		return err
	}
	if st, err := os.Stat(f.out); err == nil {
		if st.IsDir() {
			return withCode(ExitUsage, fmt.Errorf("--out %s is a directory", f.out))
		}
		if !f.force {
			return withCode(ExitUsage, fmt.Errorf("--out %s exists; use --force to replace it", f.out))
		}
	}
	runs, err := collect.ResolveRuns(args)
	if err != nil {
		return withCode(ExitBadInput, err)
	}
	opts := collect.Options{Audit: !f.noAudit, Explain: f.explain, Replicas: f.replicas, Walk: namedLogs(src.Partitions), Coordinators: src, WhatifRuns: f.whatifRuns}
	if err := whatifFlags(f, &opts); err != nil {
		return withCode(ExitUsage, err)
	}
	prog := report.NewProgress(c.ErrOrStderr(), showProgress(c, f.quiet, false), "report", 2*collect.TotalBytes(runs, opts))
	if prog != nil {
		opts.Progress = prog.Add
	}
	err = collect.Runs(runs, opts)
	prog.Done()
	if err != nil {
		return withCode(ExitBadInput, err)
	}
	opt := report.HTMLOptions{Title: f.title, BatchSize: f.batchSize, Generated: time.Now(), Version: versionString()}
	if err := atomicfile.WriteFile(f.out, f.force, func(w *bufio.Writer) error { return report.WriteHTML(w, runs, opt) }); err != nil {
		return withCode(ExitBadInput, err)
	}
	st, _ := os.Stat(f.out)
	parts := 0
	for _, r := range runs {
		parts += len(r.Partitions)
	}
	fmt.Fprintf(c.OutOrStdout(), "wrote %s (%d bytes): %d run(s), %d partition(s)\n", f.out, st.Size(), len(runs), parts)
	return nil
}

// whatifFlags turns --whatif, --was and --whatif-runs into opts.
func whatifFlags(f *reportFlags, opts *collect.Options) error {
	if len(f.whatif) == 0 {
		if len(f.was) > 0 {
			return errors.New("--was needs --whatif")
		}
		return nil
	}
	if f.whatifRuns < 1 {
		return fmt.Errorf("--whatif-runs must be at least 1, got %d", f.whatifRuns)
	}
	for _, w := range f.whatif {
		spec, err := collect.ParseWhatifSpec(w)
		if err != nil {
			return fmt.Errorf("--whatif %s: %w", w, err)
		}
		probe := producer.DefaultConfig()
		if _, err := probe.ApplyProperties(spec.Set); err != nil {
			return fmt.Errorf("--whatif %s: %w", w, err)
		}
		opts.Whatif = append(opts.Whatif, spec)
	}
	for _, w := range f.was {
		p, err := producer.ParseProperty(w)
		if err != nil {
			return fmt.Errorf("--was %s: %w", w, err)
		}
		opts.WhatifWas = append(opts.WhatifWas, p)
	}
	if opts.WhatifWas != nil {
		probe := producer.DefaultConfig()
		if _, err := probe.ApplyProperties(opts.WhatifWas); err != nil {
			return fmt.Errorf("--was: %w", err)
		}
	}
	return nil
}
