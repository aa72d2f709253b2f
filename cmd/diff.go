package cmd

import (
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"github.com/kseg/kseg/internal/diff"
	"github.com/kseg/kseg/internal/source"
	"github.com/kseg/kseg/report"
)

func init() { subcommands = append(subcommands, newDiffCmd) }

const diffLong = `Compare the batch layout of two sets of partitions.

A and B are segment files, partition directories or log directories, for
example two runs of kseg produce with different linger.ms, or a simulated
run against a real broker's. Partitions are paired by name (<topic>-<n>);
when each side has exactly one partition they are paired whatever their
names. For each partition: batches, records and the records-per-batch
histograms side by side, and the first batch where the layouts diverge
(offset ranges and record counts of both).

--records also compares content: the same records (key, value, headers, in
order) on both sides however they are batched; records of control batches
(transaction markers) are not compared. The first differing record is shown
on each side: offset, key, value and headers (in record order, key=value,
null values as null), strings quoted and cut at 60 bytes.

Exit status: 0 the compared aspects are equal, 1 they differ, 2 usage,
3 unreadable input.`

func newDiffCmd() *cobra.Command {
	var records bool
	var out outputFlag
	var sf source.Flags
	c := &cobra.Command{
		Use:     "diff A B",
		Short:   "Compare the batch layout (and optionally the records) of two logs",
		Long:    diffLong,
		Example: "  kseg diff run-linger0/ run-linger5/\n  kseg diff --records sim/orders-0 broker/orders-0",
		Args: func(c *cobra.Command, args []string) error {
			if len(args) != 2 {
				return withCode(ExitUsage, fmt.Errorf("diff takes two paths (A and B), got %d", len(args)))
			}
			return nil
		},
		RunE: func(c *cobra.Command, args []string) error {
			return withSource(&sf, func(src *source.Set) error {
				return runDiff(c.OutOrStdout(), src, args[0], args[1], records, out.json())
			})
		},
	}
	c.Flags().BoolVar(&records, "records", false, "also compare record contents (key, value, headers) in order")
	out.add(c.Flags(), "one JSON document")
	addSourceFlags(c, &sf)
	return c
}

func runDiff(w io.Writer, src *source.Set, a, b string, records, asJSON bool) error {
	res, err := diff.CompareFrom(a, b, records, namedLogs(src.Partitions))
	if err != nil {
		return withCode(ExitBadInput, err)
	}
	if asJSON {
		err = report.DiffJSON(w, res)
	} else {
		err = report.DiffText(w, res)
	}
	if err != nil {
		return err
	}
	if !res.Equal {
		return silentExit(ExitFindings)
	}
	return nil
}
