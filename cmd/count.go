package cmd

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/olekukonko/tablewriter"
	"github.com/spf13/cobra"

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

Exit status: 0 ok, 1 a check failed, 2 usage, 3 unreadable input.`

type countFlags struct {
	detail, asJSON bool
	workers        int
	batchSize      int
	expect         []string
	minAvg         float64
	maxBatches     int64
	minFill        float64
	quiet          bool
	maxBytes       int64
	maxDecomp      int
}

func newCountCmd() *cobra.Command {
	var f countFlags
	c := &cobra.Command{
		Use:     "count PATH...",
		Short:   "Count batches, records and records per batch of each partition",
		Long:    countLong,
		Example: "  kseg count /var/lib/kafka/orders-0\n  kseg count --detail --batch-size 16384 /var/lib/kafka\n  kseg count --expect-histogram orders-0=8x25 --max-batches 30 run/",
		Args: func(c *cobra.Command, args []string) error {
			if len(args) == 0 {
				return withCode(ExitUsage, errors.New("count needs at least one PATH (a segment file, partition directory or log directory)"))
			}
			return nil
		},
		RunE: func(c *cobra.Command, args []string) error {
			return runCount(c, &f, args)
		},
	}
	c.SetFlagErrorFunc(func(_ *cobra.Command, err error) error { return withCode(ExitUsage, err) })
	fs := c.Flags()
	fs.SortFlags = false
	fs.BoolVar(&f.detail, "detail", false, "add a table: bytes, min/avg/max, fill, codecs and compression ratio (decompresses), control batches, time span, producer ids")
	fs.BoolVar(&f.asJSON, "json", false, "one JSON object per partition (NDJSON)")
	fs.IntVar(&f.workers, "workers", runtime.GOMAXPROCS(0), "partitions scanned in parallel")
	fs.IntVar(&f.batchSize, "batch-size", 0, "producer batch.size, for the fill ratio")
	fs.StringArrayVar(&f.expect, "expect-histogram", nil, "check: histogram H for every partition, or TOPIC-P=H for one (repeatable)")
	fs.Float64Var(&f.minAvg, "min-avg-records", 0, "check: mean records per batch at least N")
	fs.Int64Var(&f.maxBatches, "max-batches", -1, "check: at most N batches per partition")
	fs.Float64Var(&f.minFill, "min-fill", 0, "check: mean batch bytes / --batch-size at least F")
	fs.Int64Var(&f.maxBytes, "max-bytes", 0, "read only the first N bytes of each .log (0: all)")
	fs.IntVar(&f.maxDecomp, "max-decompressed", 0, "cap on one batch's decompressed size in bytes (0: the default, 64 MiB)")
	fs.BoolVarP(&f.quiet, "quiet", "q", false, "no progress line on stderr (shown only when stderr is a terminal)")
	return c
}

// histogramCheck is one --expect-histogram.
type histogramCheck struct {
	partition string // "" = every partition
	want      map[int]int
}

func parseExpect(vals []string) ([]histogramCheck, error) {
	var out []histogramCheck
	for _, v := range vals {
		var hc histogramCheck
		h := v
		if name, rest, ok := strings.Cut(v, "="); ok {
			if name == "" {
				return nil, fmt.Errorf("--expect-histogram %q: empty partition name before '='", v)
			}
			hc.partition, h = name, rest
		}
		m, err := report.ParseHistogram(h)
		if err != nil {
			return nil, fmt.Errorf("--expect-histogram %q: %w", v, err)
		}
		hc.want = m
		out = append(out, hc)
	}
	return out, nil
}

func runCount(c *cobra.Command, f *countFlags, args []string) error {
	fs := c.Flags()
	checks, err := parseExpect(f.expect)
	if err != nil {
		return withCode(ExitUsage, err)
	}
	if f.workers < 1 {
		return withCode(ExitUsage, fmt.Errorf("--workers %d: want at least 1", f.workers))
	}
	if f.batchSize < 0 {
		return withCode(ExitUsage, fmt.Errorf("--batch-size %d: want a positive byte count", f.batchSize))
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
	parts, err := segment.Partitions(args)
	if err != nil {
		return withCode(ExitBadInput, err)
	}
	opts := segment.CountOptions{Uncompressed: f.detail, MaxBytes: f.maxBytes, MaxDecompressed: f.maxDecomp}
	var total int64
	for i := range parts {
		for _, s := range parts[i].Segments {
			n := fileBytes([]string{s.Path})
			if f.maxBytes > 0 && n > f.maxBytes {
				n = f.maxBytes
			}
			total += n
		}
	}
	prog := report.NewProgress(c.ErrOrStderr(), showProgress(c, f.quiet, false), "count", total)
	if prog != nil {
		opts.Progress = prog.Add
	}
	res, err := segment.CountPartitions(parts, f.workers, opts)
	prog.Done()
	if err != nil {
		return withCode(ExitBadInput, err)
	}
	w := c.OutOrStdout()
	switch {
	case f.asJSON:
		enc := json.NewEncoder(w)
		for i := range res {
			if err := enc.Encode(countJSON(&res[i], f.batchSize)); err != nil {
				return err
			}
		}
	default:
		for i := range res {
			s := res[i].Stats
			fmt.Fprintln(w, report.CountLine(res[i].Name(), s.Batches, s.Records, s.RecordsPerBatch))
		}
		if f.detail {
			fmt.Fprintln(w)
			if err := countTable(w, res, f.batchSize); err != nil {
				return err
			}
		}
	}
	failures := runChecks(res, f, checks, fs.Changed("max-batches"))
	for _, m := range failures {
		fmt.Fprintf(c.ErrOrStderr(), "kseg: check failed: %s\n", m)
	}
	if len(failures) > 0 {
		return silentExit(ExitFindings)
	}
	return nil
}

func runChecks(res []segment.PartitionStats, f *countFlags, checks []histogramCheck, maxBatches bool) []string {
	var out []string
	found := map[string]bool{}
	for i := range res {
		name, s := res[i].Name(), res[i].Stats
		for _, hc := range checks {
			if hc.partition != "" && hc.partition != name {
				continue
			}
			found[hc.partition] = true
			if !maps.Equal(hc.want, s.RecordsPerBatch) {
				out = append(out, fmt.Sprintf("%s: records per batch: expected %q, got %q", name, report.Histogram(hc.want), report.Histogram(s.RecordsPerBatch)))
			}
		}
		if maxBatches && s.Batches > f.maxBatches {
			out = append(out, fmt.Sprintf("%s: batches: expected at most %d, got %d", name, f.maxBatches, s.Batches))
		}
		if s.Batches == 0 {
			continue
		}
		if f.minAvg > 0 && s.AvgRecords() < f.minAvg {
			out = append(out, fmt.Sprintf("%s: mean records per batch: expected at least %s, got %.2f", name, strconv.FormatFloat(f.minAvg, 'f', -1, 64), s.AvgRecords()))
		}
		if f.minFill > 0 && s.Fill(f.batchSize) < f.minFill {
			out = append(out, fmt.Sprintf("%s: fill (mean batch bytes / batch.size %d): expected at least %s, got %.3f", name, f.batchSize, strconv.FormatFloat(f.minFill, 'f', -1, 64), s.Fill(f.batchSize)))
		}
	}
	for _, hc := range checks {
		if hc.partition != "" && !found[hc.partition] {
			out = append(out, fmt.Sprintf("%s: records per batch: expected %q, got no such partition", hc.partition, report.Histogram(hc.want)))
		}
	}
	return out
}

// countObject is the --json schema (documented in the README).
type countObject struct {
	Topic             string           `json:"topic"`
	Partition         int32            `json:"partition"`
	Name              string           `json:"name"`
	Dir               string           `json:"dir"`
	Files             int              `json:"files"`
	Batches           int64            `json:"batches"`
	Records           int64            `json:"records"`
	Histogram         string           `json:"histogram"`
	RecordsPerBatch   map[string]int   `json:"records_per_batch"`
	Bytes             int64            `json:"bytes"`
	MinRecords        int              `json:"min_records"`
	MaxRecords        int              `json:"max_records"`
	AvgRecords        float64          `json:"avg_records"`
	AvgBatchBytes     float64          `json:"avg_batch_bytes"`
	Fill              *float64         `json:"fill"`
	Codecs            map[string]int64 `json:"codecs"`
	CompressedBatches int64            `json:"compressed_batches"`
	CompressedBytes   int64            `json:"compressed_bytes"`
	UncompressedBytes *int64           `json:"uncompressed_bytes"`
	CompressionRatio  *float64         `json:"compression_ratio"`
	ControlBatches    int64            `json:"control_batches"`
	FirstOffset       int64            `json:"first_offset"`
	LastOffset        int64            `json:"last_offset"`
	MinTimestamp      int64            `json:"min_timestamp"`
	MaxTimestamp      int64            `json:"max_timestamp"`
	ProducerIDs       []int64          `json:"producer_ids"`
}

func round(x float64, digits int) float64 {
	v, _ := strconv.ParseFloat(strconv.FormatFloat(x, 'f', digits, 64), 64)
	return v
}

func countJSON(p *segment.PartitionStats, batchSize int) countObject {
	s := p.Stats
	o := countObject{
		Topic: p.Topic, Partition: p.Partition.Partition, Name: p.Name(), Dir: p.Dir, Files: s.Files,
		Batches: s.Batches, Records: s.Records, Histogram: report.Histogram(s.RecordsPerBatch),
		RecordsPerBatch: map[string]int{}, Bytes: s.Bytes, MinRecords: s.MinRecords, MaxRecords: s.MaxRecords,
		AvgRecords: round(s.AvgRecords(), 4), AvgBatchBytes: round(s.AvgBytes(), 2), Codecs: s.Codecs,
		CompressedBatches: s.CompressedBatches, CompressedBytes: s.CompressedBytes, ControlBatches: s.ControlBatches,
		FirstOffset: s.FirstOffset, LastOffset: s.LastOffset, MinTimestamp: s.MinTimestamp, MaxTimestamp: s.MaxTimestamp,
		ProducerIDs: s.ProducerIDs,
	}
	if o.ProducerIDs == nil {
		o.ProducerIDs = []int64{}
	}
	for k, v := range s.RecordsPerBatch {
		o.RecordsPerBatch[strconv.Itoa(k)] = v
	}
	if batchSize > 0 && s.Batches > 0 {
		v := round(s.Fill(batchSize), 4)
		o.Fill = &v
	}
	if s.Measured {
		u := s.UncompressedBytes
		o.UncompressedBytes = &u
		if s.CompressedBytes > 0 {
			r := round(s.Ratio(), 4)
			o.CompressionRatio = &r
		}
	}
	return o
}

func countTable(w io.Writer, res []segment.PartitionStats, batchSize int) error {
	t := tablewriter.NewWriter(w)
	head := []any{"partition", "batches", "records", "bytes", "avg rec", "min/max rec", "avg bytes"}
	if batchSize > 0 {
		head = append(head, "fill")
	}
	head = append(head, "codecs", "ratio", "control", "first timestamp", "span", "producer ids")
	t.Header(head...)
	for i := range res {
		s := res[i].Stats
		row := []any{res[i].Name(), s.Batches, s.Records, s.Bytes, fmt.Sprintf("%.2f", s.AvgRecords()),
			fmt.Sprintf("%d/%d", s.MinRecords, s.MaxRecords), fmt.Sprintf("%.0f", s.AvgBytes())}
		if batchSize > 0 {
			row = append(row, fmt.Sprintf("%.3f", s.Fill(batchSize)))
		}
		ratio := "-"
		if r := s.Ratio(); r > 0 {
			ratio = fmt.Sprintf("%.2f", r)
		}
		first, span := "-", "-"
		if s.MinTimestamp >= 0 {
			first = time.UnixMilli(s.MinTimestamp).UTC().Format("2006-01-02T15:04:05.000Z")
			span = (time.Duration(s.MaxTimestamp-s.MinTimestamp) * time.Millisecond).String()
		}
		row = append(row, codecMix(s.Codecs), ratio, s.ControlBatches, first, span, pidList(s.ProducerIDs, 4))
		if err := t.Append(row...); err != nil {
			return err
		}
	}
	return t.Render()
}

func codecMix(m map[string]int64) string {
	keys := slices.Sorted(maps.Keys(m))
	parts := make([]string, 0, len(keys))
	for _, k := range keys {
		parts = append(parts, fmt.Sprintf("%s:%d", k, m[k]))
	}
	if len(parts) == 0 {
		return "-"
	}
	return strings.Join(parts, " ")
}

func pidList(pids []int64, max int) string {
	if len(pids) == 0 {
		return "-"
	}
	var parts []string
	for i, p := range pids {
		if i == max {
			parts = append(parts, fmt.Sprintf("(+%d more)", len(pids)-max))
			break
		}
		parts = append(parts, strconv.FormatInt(p, 10))
	}
	return strings.Join(parts, " ")
}
