package report

import (
	"encoding/json"
	"fmt"
	"io"
	"sort"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/kseg/kseg/index"
	"github.com/kseg/kseg/internal/replicas"
)

// kseg replicas --json: NDJSON, one object per line (docs/json.md).

type replicaEpoch struct {
	Epoch       int32 `json:"epoch"`
	StartOffset int64 `json:"start_offset"`
}

type replicaLine struct {
	Type          string         `json:"type"`
	Copy          string         `json:"copy"`
	LogStart      int64          `json:"log_start"`
	LogEnd        int64          `json:"log_end"`
	Epochs        []replicaEpoch `json:"epochs"`
	Partition     string         `json:"partition"`
	EpochsFrom    string         `json:"epochs_from"`
	BatchEpochs   []replicaEpoch `json:"batch_epochs"`
	EpochNotes    []string       `json:"epoch_notes,omitempty"`
	FirstOffset   int64          `json:"first_offset"`
	Batches       int64          `json:"batches"`
	Records       int64          `json:"records"`
	HighWatermark *int64         `json:"high_watermark"`
	RecoveryPoint *int64         `json:"recovery_point"`
	Broker        *int32         `json:"broker,omitempty"`
	Leader        bool           `json:"leader,omitempty"`
	Notes         []string       `json:"notes,omitempty"`
}

type pairBelow struct {
	Copy        string `json:"copy"`
	FirstOffset int64  `json:"first_offset"`
	LastOffset  int64  `json:"last_offset"`
	Batches     int64  `json:"batches"`
	Records     int64  `json:"records"`
}

type pairLine struct {
	Type          string     `json:"type"`
	Copies        [2]string  `json:"copies"`
	Status        string     `json:"status"`
	Partition     string     `json:"partition"`
	CommonStart   int64      `json:"common_start"`
	SharedBatches int64      `json:"shared_batches"`
	BelowStart    *pairBelow `json:"below_start,omitempty"`
	Behind        string     `json:"behind,omitempty"`
	BehindFrom    *int64     `json:"behind_from,omitempty"`
	BehindRecords *int64     `json:"behind_records,omitempty"`
	BehindCause   string     `json:"behind_cause,omitempty"`
}

type divergenceLine struct {
	Type       string    `json:"type"`
	Copies     [2]string `json:"copies"`
	Offset     int64     `json:"offset"`
	Epoch      int32     `json:"epoch"`
	Cause      string    `json:"cause"`
	Partition  string    `json:"partition"`
	TruncateTo int64     `json:"truncate_to"`
	Loses      string    `json:"loses,omitempty"`
	Detail     string    `json:"detail"`
	MoreRuns   int64     `json:"runs_not_listed,omitempty"`
}

type onlyOnLine struct {
	Type           string `json:"type"`
	Copy           string `json:"copy"`
	FirstOffset    int64  `json:"first_offset"`
	LastOffset     int64  `json:"last_offset"`
	Epoch          int32  `json:"epoch"`
	ProducerID     int64  `json:"producer_id"`
	Records        int64  `json:"records"`
	Partition      string `json:"partition"`
	Vs             string `json:"vs"`
	ProducerEpoch  int16  `json:"producer_epoch"`
	FirstSequence  int32  `json:"first_sequence"`
	LastSequence   int32  `json:"last_sequence"`
	Batches        int64  `json:"batches"`
	FirstTimestamp int64  `json:"first_timestamp"`
	MaxTimestamp   int64  `json:"max_timestamp"`
}

type replicasSummary struct {
	Type       string `json:"type"`
	Partitions int    `json:"partitions"`
	Diverged   int    `json:"diverged"`
}

func epochsJSON(h []index.EpochEntry) []replicaEpoch {
	out := make([]replicaEpoch, 0, len(h))
	for _, e := range h {
		out = append(out, replicaEpoch{e.Epoch, e.StartOffset})
	}
	return out
}

func optOffset(v int64) *int64 {
	if v < 0 {
		return nil
	}
	return &v
}

// ReplicasJSON writes the comparisons as NDJSON: per partition a "replica"
// line per copy, a "pair" line per pair, then per diverging pair a
// "divergence" line and its "only_on" lines; a "summary" line last.
func ReplicasJSON(w io.Writer, results []*replicas.Result) error {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	diverged := 0
	for _, r := range results {
		for _, c := range r.Copies {
			l := replicaLine{Type: "replica", Copy: c.Name, LogStart: c.LogStart, LogEnd: c.LogEnd, Epochs: epochsJSON(c.Epochs),
				Partition: r.Partition, EpochsFrom: c.EpochsFrom, BatchEpochs: epochsJSON(c.BatchEpochs), EpochNotes: c.EpochNotes,
				FirstOffset: c.FirstOffset, Batches: c.Batches, Records: c.Records,
				HighWatermark: optOffset(c.HighWatermark), RecoveryPoint: optOffset(c.RecoveryPoint), Leader: c.Leader, Notes: c.Notes}
			if c.Broker >= 0 {
				b := c.Broker
				l.Broker = &b
			}
			if err := enc.Encode(l); err != nil {
				return err
			}
		}
		for _, p := range r.Pairs {
			l := pairLine{Type: "pair", Copies: [2]string{p.A, p.B}, Status: p.Status, Partition: r.Partition,
				CommonStart: p.CommonStart, SharedBatches: p.Shared}
			if p.Below != nil {
				l.BelowStart = &pairBelow{p.Below.Copy, p.Below.FirstOffset, p.Below.LastOffset, p.Below.Batches, p.Below.Records}
			}
			if p.Status == replicas.StatusBehind {
				l.Behind, l.BehindFrom, l.BehindRecords, l.BehindCause = p.Behind, &p.BehindFrom, &p.BehindRecords, p.BehindCause
			}
			if err := enc.Encode(l); err != nil {
				return err
			}
		}
		if r.Diverged() {
			diverged++
		}
		for _, p := range r.Pairs {
			if p.Status != replicas.StatusDiverged {
				continue
			}
			if err := enc.Encode(divergenceLine{Type: "divergence", Copies: [2]string{p.A, p.B}, Offset: p.Offset, Epoch: p.Epoch,
				Cause: p.Cause, Partition: r.Partition, TruncateTo: p.TruncateTo, Loses: p.Loses, Detail: p.Detail,
				MoreRuns: p.MoreRunsA + p.MoreRunsB}); err != nil {
				return err
			}
			for _, side := range []struct {
				runs []replicas.Run
				vs   string
			}{{p.OnlyA, p.B}, {p.OnlyB, p.A}} {
				for _, x := range side.runs {
					if err := enc.Encode(onlyOnLine{Type: "only_on", Copy: x.Copy, FirstOffset: x.FirstOffset, LastOffset: x.LastOffset,
						Epoch: x.Epoch, ProducerID: x.ProducerID, Records: x.Records, Partition: r.Partition, Vs: side.vs,
						ProducerEpoch: x.ProducerEpoch, FirstSequence: x.FirstSequence, LastSequence: x.LastSequence,
						Batches: x.Batches, FirstTimestamp: x.FirstTimestamp, MaxTimestamp: x.MaxTimestamp}); err != nil {
						return err
					}
				}
			}
		}
	}
	return enc.Encode(replicasSummary{Type: "summary", Partitions: len(results), Diverged: diverged})
}

func epochsText(h []index.EpochEntry) string {
	if len(h) == 0 {
		return "-"
	}
	parts := make([]string, len(h))
	for i, e := range h {
		parts[i] = fmt.Sprintf("%d@%d", e.Epoch, e.StartOffset)
	}
	return strings.Join(parts, " ")
}

func offText(v int64) string {
	if v < 0 {
		return "-"
	}
	return strconv.FormatInt(v, 10)
}

func tsText(ms int64) string {
	if ms < 0 {
		return "-"
	}
	return time.UnixMilli(ms).UTC().Format("2006-01-02T15:04:05.000Z")
}

// ReplicasText writes the comparisons for people: per partition a table of
// the copies, then each pair's verdict, and for a divergence the runs only
// one side holds.
func ReplicasText(w io.Writer, results []*replicas.Result) error {
	var b strings.Builder
	diverged := 0
	for k, r := range results {
		if k > 0 {
			b.WriteString("\n")
		}
		under, short := copyLabels(r.Copies)
		if under != "" {
			fmt.Fprintf(&b, "partition %s: %d copies under %s\n", r.Partition, len(r.Copies), under)
		} else {
			fmt.Fprintf(&b, "partition %s: %d copies\n", r.Partition, len(r.Copies))
		}
		tw := tabwriter.NewWriter(&b, 0, 0, 2, ' ', 0)
		fmt.Fprintln(tw, "  copy\tlog start\tlog end\tbatches\trecords\thigh watermark\trecovery point\tepochs (epoch@start offset)\t")
		for _, c := range r.Copies {
			name := short(c.Name)
			if c.Leader {
				name += " (leader)"
			}
			fmt.Fprintf(tw, "  %s\t%d\t%d\t%d\t%d\t%s\t%s\t%s (%s)\t\n", name, c.LogStart, c.LogEnd, c.Batches, c.Records,
				offText(c.HighWatermark), offText(c.RecoveryPoint), epochsText(c.Epochs), c.EpochsFrom)
		}
		tw.Flush()
		for _, c := range r.Copies {
			for _, n := range c.EpochNotes {
				fmt.Fprintf(&b, "  %s: %s (batches: %s)\n", short(c.Name), n, epochsText(c.BatchEpochs))
			}
			for _, n := range c.Notes {
				fmt.Fprintf(&b, "  %s: %s\n", short(c.Name), n)
			}
		}
		for _, p := range r.Pairs {
			fmt.Fprintf(&b, "  %s vs %s: ", short(p.A), short(p.B))
			switch p.Status {
			case replicas.StatusAgree:
				fmt.Fprintf(&b, "agree (%d batches from offset %d)", p.Shared, p.CommonStart)
			case replicas.StatusBehind:
				fmt.Fprintf(&b, "agree up to offset %d; %s is behind by %d records (%s)", p.BehindFrom, short(p.Behind), p.BehindRecords, p.BehindCause)
			case replicas.StatusDiverged:
				fmt.Fprintf(&b, "DIVERGE at offset %d (last shared epoch %d, Kafka truncates to %s): %s", p.Offset, p.Epoch, offText(p.TruncateTo), p.Cause)
			}
			b.WriteString("\n")
			if p.Below != nil {
				fmt.Fprintf(&b, "    below the common log start %d (retention, not compared): %s holds %d batches, %d records, offsets %d-%d\n",
					p.CommonStart, short(p.Below.Copy), p.Below.Batches, p.Below.Records, p.Below.FirstOffset, p.Below.LastOffset)
			}
			if p.Status != replicas.StatusDiverged {
				continue
			}
			fmt.Fprintf(&b, "    %s\n", shortIn(p.Detail, r.Copies, short))
			for _, side := range []struct {
				runs []replicas.Run
				more int64
			}{{p.OnlyA, p.MoreRunsA}, {p.OnlyB, p.MoreRunsB}} {
				for _, x := range side.runs {
					fmt.Fprintf(&b, "    only on %s: offsets %d-%d, epoch %d, producer %d", short(x.Copy), x.FirstOffset, x.LastOffset, x.Epoch, x.ProducerID)
					if x.ProducerID >= 0 {
						fmt.Fprintf(&b, " (epoch %d, sequences %d-%d)", x.ProducerEpoch, x.FirstSequence, x.LastSequence)
					}
					fmt.Fprintf(&b, ", %d records in %d batches, %s to %s\n", x.Records, x.Batches, tsText(x.FirstTimestamp), tsText(x.MaxTimestamp))
				}
				if side.more > 0 {
					fmt.Fprintf(&b, "    ... and %d more runs\n", side.more)
				}
			}
		}
		if r.Diverged() {
			diverged++
		}
	}
	behind := 0
	for _, r := range results {
		for _, p := range r.Pairs {
			if p.Status == replicas.StatusBehind {
				behind++
			}
		}
	}
	switch {
	case diverged > 0:
		fmt.Fprintf(&b, "\ncopies diverge in %d of %d partitions\n", diverged, len(results))
	case behind > 0:
		fmt.Fprintf(&b, "\nno divergence (%s); one copy behind the other in %s\n", plural(len(results), "partition"), plural(behind, "pair"))
	default:
		fmt.Fprintf(&b, "\ncopies agree (%s)\n", plural(len(results), "partition"))
	}
	_, err := io.WriteString(w, b.String())
	return err
}

func plural(n int, what string) string {
	if n == 1 {
		return "1 " + what
	}
	return strconv.Itoa(n) + " " + what + "s"
}

// copyLabels names the copies of one partition for a table a person reads:
// copies taken off several brokers' disks share a long directory prefix
// (/var/lib/kafka/data-1/..., or a download folder), which is printed once
// and stripped from every name, leaving what tells them apart. Names without
// a common directory (kafka:// replicas are broker-N) are kept.
func copyLabels(cs []replicas.Copy) (under string, short func(string) string) {
	keep := func(n string) string { return n }
	if len(cs) < 2 {
		return "", keep
	}
	common := -1 // bytes of the shared prefix, ending just after a '/'
	first := cs[0].Name
	for _, c := range cs[1:] {
		n := 0
		for n < len(first) && n < len(c.Name) && first[n] == c.Name[n] {
			n++
		}
		if common < 0 || n < common {
			common = n
		}
	}
	common = strings.LastIndexByte(first[:common], '/') + 1
	if common == 0 {
		return "", keep
	}
	seen := map[string]bool{}
	for _, c := range cs {
		rest := c.Name[common:]
		if rest == "" || seen[rest] {
			return "", keep
		}
		seen[rest] = true
	}
	prefix := first[:common]
	return prefix, func(n string) string {
		if rest, ok := strings.CutPrefix(n, prefix); ok && rest != "" {
			return rest
		}
		return n
	}
}

// shortIn relabels the copies named in a sentence (a divergence's detail),
// longest name first so that no name is cut inside a longer one.
func shortIn(text string, cs []replicas.Copy, short func(string) string) string {
	names := make([]string, 0, len(cs))
	for _, c := range cs {
		names = append(names, c.Name)
	}
	sort.Slice(names, func(i, j int) bool { return len(names[i]) > len(names[j]) })
	pairs := make([]string, 0, 2*len(names))
	for _, n := range names {
		pairs = append(pairs, n, short(n))
	}
	return strings.NewReplacer(pairs...).Replace(text)
}
