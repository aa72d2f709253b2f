package cmd

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"runtime"

	"github.com/kseg/kseg/internal/audit"
	"github.com/kseg/kseg/internal/source"
	"github.com/kseg/kseg/internal/spill"
	"github.com/kseg/kseg/report"
	"github.com/kseg/kseg/segment"
	"github.com/spf13/cobra"
)

func init() { subcommands = append(subcommands, newAuditCmd) }

const auditHelp = `Audit idempotent-producer sequences, epochs and transactions across a
partition's log, and check the .txnindex and producer snapshots against it.

PATH may be segment files, partition directories or a whole log directory.
Findings have a stable code and a severity (info, warning, error); see
docs/findings.md for the list.

Exit status: 0 no finding at or above --fail-on; 1 findings at or above it;
2 usage; 3 unreadable input.`

func newAuditCmd() *cobra.Command {
	var (
		out       outputFlag
		failOn    string
		compacted bool
		skipCRC   bool
		detail    bool
		workers   int
		sf        source.Flags
	)
	c := &cobra.Command{
		Use:   "audit PATH...",
		Short: "Check producer sequences, epochs, transactions, .txnindex and snapshots",
		Long:  auditHelp,
		Example: "  kseg audit /var/lib/kafka/orders-0\n" +
			"  kseg audit --json --fail-on error /var/lib/kafka",
		Args: needPaths("audit: give one or more segment files, partition directories or log directories"),
		RunE: func(c *cobra.Command, args []string) error {
			threshold, err := audit.ParseSeverity(failOn)
			if err != nil {
				return withCode(ExitUsage, fmt.Errorf("--fail-on: %w", err))
			}
			if workers < 1 {
				return withCode(ExitUsage, fmt.Errorf("--workers %d: want at least 1", workers))
			}
			return withSource(&sf, func(src *source.Set) error {
				return runAudit(namedLogs(src.Partitions), src, args, audit.Options{Compacted: compacted, SkipCRC: skipCRC, Detail: detail}, workers, out.json(), threshold, c.OutOrStdout())
			})
		},
	}
	f := c.Flags()
	out.add(f, "NDJSON: one finding per line, then a summary object per partition")
	f.StringVar(&failOn, "fail-on", "warning", "exit 1 when a finding at or above this severity exists: info, warning or error")
	f.BoolVar(&compacted, "compacted", false, "the topic is compacted (cleanup.policy=compact): downgrade what compaction explains")
	f.BoolVar(&skipCRC, "skip-crc", false, "do not verify batch CRCs (a pure header scan)")
	f.IntVar(&workers, "workers", runtime.GOMAXPROCS(0), "partitions audited in parallel (output stays in partition order)")
	f.BoolVar(&detail, "detail", false, "list each batch of a finding that covers several (JSON: a \"batches\" array)")
	addSourceFlags(c, &sf)
	return c
}

// runAudit streams: each partition's findings are rendered as soon as it
// and the partitions before it are audited (NDJSON straight out, text
// after the table of summaries, waiting in a spill buffer), so memory
// stays bounded however many findings there are.
// walk expands the paths (the command's sources); coord judges the open
// transactions of partitions read from a cluster.
func runAudit(walk func([]string) ([]segment.Partition, error), coord audit.Coordinators, paths []string, opts audit.Options, workers int, asJSON bool, failOn audit.Severity, stdout io.Writer) error {
	parts, err := audit.PartitionsFrom(paths, walk)
	if err != nil {
		return withCode(ExitBadInput, err)
	}
	out := bufio.NewWriterSize(stdout, 64<<10)
	held := spill.New(1 << 20) // the finding lines wait for the table: 1 MiB in memory, then a temporary file
	defer held.Close()
	text := report.NewAuditText(out, held, report.TableStyleFor(stdout))
	fail := false
	err = audit.Stream(parts, workers, opts, func(r *audit.Result) error {
		if err := audit.CheckTransactions(context.Background(), r, coord); err != nil { // kafka:// partitions: the coordinators' view
			return err
		}
		if m, ok := r.Max(); ok && m >= failOn {
			fail = true
		}
		if asJSON {
			return report.AuditJSONPartition(out, r)
		}
		return text.Add(r)
	})
	if err == nil && !asJSON {
		err = text.Flush()
	}
	if ferr := out.Flush(); err == nil {
		err = ferr
	}
	if err != nil {
		return withCode(ExitBadInput, err)
	}
	if fail {
		return silentExit(ExitFindings)
	}
	return nil
}
