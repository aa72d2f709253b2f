package cmd

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/kseg/kseg/internal/explain"
	"github.com/kseg/kseg/internal/source"
	"github.com/kseg/kseg/report"
)

func init() { subcommands = append(subcommands, newExplainCmd) }

const explainLong = `Explain why each batch was cut and which producer settings made the log.

PATH is a segment file, a partition directory or a log directory. For each
producer id (per topic) kseg infers, from batch sizes, record sizes and
timestamps with the Java producer's sizing rules:
  batch.size   an interval: a batch's bytes (lower bound) and, for batches
               cut by size, its bytes plus the next record's (upper bound)
  linger.ms    an interval: record spans (lower) and the wait for the next
               record after a linger cut (upper), and a likely value
  compression, the ratio estimate, idempotence/acks, sync sends, partitioner
               (keyed when keys agree with murmur2(key) mod partitions)
and for each batch the cut: size, linger, sync, drain (taken with another
partition's ready batch), flush (close/flush), large-record, or unknown.
"not enough evidence" (null in --json) when the log does not decide.

The topic's partition count, for the key check, is one more than the
highest partition given: name every partition of the topic.
A producer whose batches all hold one record, never two in one
millisecond, is named sync; an asynchronous producer with linger.ms below
its send interval writes the same log.

Exit status: 0 ok, 2 usage, 3 unreadable input, 4 --advice could not run
the reference producer (an internal error).`

func newExplainCmd() *cobra.Command {
	var batches, advise bool
	var maxBatches int
	var out outputFlag
	var sf source.Flags
	c := &cobra.Command{
		Use:     "explain PATH...",
		Short:   "Infer each batch's cut reason and the producer settings that made a log",
		Long:    explainLong,
		Example: "  kseg explain testdata/segments/seed/u05-small-0\n  kseg explain --batches run/\n  kseg explain --json /var/lib/kafka/orders-0",
		Args:    needPaths("explain needs at least one PATH (a segment file, partition directory or log directory)"),
		RunE: func(c *cobra.Command, args []string) error {
			return withSource(&sf, func(src *source.Set) error { return runExplain(c, src, args, out.json(), batches, advise, maxBatches) })
		},
	}
	fs := c.Flags()
	out.add(fs, "NDJSON: one object per batch, then one per partition and producer")
	fs.BoolVar(&batches, "batches", false, "list every batch with its cut and evidence")
	fs.IntVar(&maxBatches, "max-batches", explain.DefaultMaxBatches, "explain at most this many data batches, shared by the partitions (each of about 350 bytes at the peak); a partition past its share is explained from its first batches and says where it stopped")
	fs.BoolVar(&advise, "advice", false, "run the reference producer on the log's workload at the inferred settings and with the setting behind the dominant cut changed")
	addSourceFlags(c, &sf)
	return c
}

func runExplain(c *cobra.Command, src *source.Set, args []string, asJSON, batches, advise bool, maxBatches int) error {
	if maxBatches <= 0 {
		return withCode(ExitUsage, fmt.Errorf("--max-batches must be at least 1, got %d", maxBatches))
	}
	parts, err := namedLogs(src.Partitions)(args)
	if err != nil {
		return withCode(ExitBadInput, err)
	}
	res, err := explain.RunWith(parts, explain.Options{MaxBatches: maxBatches})
	if err != nil {
		return withCode(ExitBadInput, err)
	}
	if asJSON {
		return report.ExplainJSON(c.OutOrStdout(), res)
	}
	if err := report.ExplainText(c.OutOrStdout(), res, batches); err != nil || !advise {
		return err
	}
	advice := make([]*explain.Advice, len(res.Producers))
	for i, p := range res.Producers {
		if advice[i], err = p.Advise(); err != nil {
			return withCode(ExitInternal, fmt.Errorf("advice for %s producer %d: %w", p.Topic, p.ProducerID, err))
		}
	}
	fmt.Fprintln(c.OutOrStdout())
	return report.ExplainAdvice(c.OutOrStdout(), res, advice)
}
