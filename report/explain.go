package report

import (
	"bufio"
	"fmt"
	"github.com/kseg/kseg/internal/jsonobj"
	"io"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/kseg/kseg/content"
	"github.com/kseg/kseg/internal/explain"
)

// ExplainJSON writes kseg explain's NDJSON: one "batch" object per batch
// (partition by partition, in offset order), then one "partition" object per
// partition and producer id. A setting the log gives no evidence for is
// null.
func ExplainJSON(w io.Writer, res *explain.Result) error {
	bw := bufio.NewWriter(w)
	for _, b := range res.Batches {
		var j jsonobj.Obj
		j.Str("type", "batch")
		j.Str("topic", b.Topic())
		j.Int("partition", int64(b.Partition))
		j.Int("base_offset", b.BaseOffset)
		j.Int("records", int64(b.Records))
		j.Int("bytes", b.Bytes)
		j.Str("cut", b.Cut())
		j.Str("evidence", b.Evidence())
		bw.Write(j.Done())
		bw.WriteByte('\n')
	}
	for _, ps := range res.Partitions {
		s := &ps.Producer.Settings
		var j jsonobj.Obj
		j.Str("type", "partition")
		j.Str("topic", ps.Topic)
		j.Int("partition", int64(ps.Partition))
		j.Int("producer_id", ps.ProducerID)
		var set jsonobj.Obj
		set.Raw("batch_size", intervalJSON(s.BatchSize))
		set.Raw("linger_ms", intervalJSON(s.LingerMs))
		set.Raw("compression", strOrNull(s.Compression))
		if s.Ratio > 0 {
			set.Raw("compression_ratio", strconv.FormatFloat(float64(s.Ratio), 'f', 4, 32))
		} else {
			set.Raw("compression_ratio", "null")
		}
		set.Raw("idempotence", boolOrNull(s.Idempotence))
		set.Raw("acks", strOrNull(s.Acks))
		set.Raw("sync", boolOrNull(s.Sync))
		set.Raw("partitioner", strOrNull(s.Partitioner))
		set.Raw("max_in_flight", strOrNull(s.MaxInFlight))
		set.Raw("alternatives", strList(s.Alternatives))
		set.Raw("notes", strList(s.Notes))
		set.Raw("senders", sendersJSON(s.Senders))
		j.Raw("settings", string(set.Done()))
		var cuts jsonobj.Obj
		for _, c := range explain.Cuts {
			if n := ps.Cuts[c]; n > 0 {
				cuts.Int(c, int64(n))
			}
		}
		j.Raw("cuts", string(cuts.Done()))
		if u := unreadOf(res, ps.Topic, ps.Partition); u != nil {
			j.Int("unread_from", u.From)
		} else {
			j.Raw("unread_from", "null")
		}
		bw.Write(j.Done())
		bw.WriteByte('\n')
	}
	return bw.Flush()
}

// unreadOf is the partition's Unread, or nil when it was read whole.
func unreadOf(res *explain.Result, topic string, partition int32) *explain.Unread {
	for i := range res.Unread {
		if u := &res.Unread[i]; u.Topic == topic && u.Partition == partition {
			return u
		}
	}
	return nil
}

// unreadText says where explain stopped reading a partition.
func unreadText(u explain.Unread) string {
	return fmt.Sprintf("%s-%d: explained its first %d data batches; those from offset %d on were not read (--max-batches raises the bound, --from starts later)",
		u.Topic, u.Partition, u.Read, u.From)
}

// sendersJSON is explain's fitted senders as a JSON array ([] for none).
func sendersJSON(ss []explain.SenderStory) string {
	b := []byte{'['}
	for i, x := range ss {
		if i > 0 {
			b = append(b, ',')
		}
		var j jsonobj.Obj
		j.Int("linger_ms", x.LingerMs)
		j.Raw("linger_or_more", strconv.FormatBool(x.OrMore))
		j.Raw("lag_ms", strconv.FormatFloat(x.LagMs, 'f', 3, 64))
		j.Raw("close_ms", strconv.FormatFloat(x.CloseMs, 'f', 3, 64))
		j.Raw("rtt_ms", strconv.FormatFloat(x.RTTMs, 'f', 3, 64))
		j.Raw("batch_error", strconv.FormatFloat(x.BatchError, 'f', 4, 64))
		j.Raw("hist_error", strconv.FormatFloat(x.HistError, 'f', 4, 64))
		j.Int("records", int64(x.Records))
		b = append(b, j.Done()...)
	}
	return string(append(b, ']'))
}

// senderText is one fitted sender: its lag, close cost and round trip at
// the linger.ms it was fitted at, and how close its replay comes.
func senderText(x explain.SenderStory, likely bool) string {
	how := "or"
	if likely {
		how = "likely"
	}
	at := fmt.Sprintf("=%d", x.LingerMs)
	if x.OrMore {
		at = fmt.Sprintf(">=%d", x.LingerMs)
	}
	return fmt.Sprintf("%s linger.ms%s with lag %.2f ms, close %.2f ms, round trip %.2f ms (replay %+.1f%% batches over %d records)",
		how, at, x.LagMs, x.CloseMs, x.RTTMs, 100*x.BatchError, x.Records)
}

func intervalJSON(iv *explain.Interval) string {
	if iv == nil {
		return "null"
	}
	var j jsonobj.Obj
	j.Int("min", iv.Min)
	if iv.Max >= 0 {
		j.Int("max", iv.Max)
	} else {
		j.Raw("max", "null")
	}
	j.Int("likely", iv.Likely)
	j.Str("confidence", iv.Confidence)
	j.Int("batches", int64(iv.Batches))
	j.Str("evidence", iv.Evidence)
	return string(j.Done())
}

func strOrNull(s string) string {
	if s == "" {
		return "null"
	}
	return string(content.AppendJSONString(nil, s))
}

// strList is a JSON array of strings ([] for none).
func strList(ss []string) string {
	b := []byte{'['}
	for i, s := range ss {
		if i > 0 {
			b = append(b, ',')
		}
		b = content.AppendJSONString(b, s)
	}
	return string(append(b, ']'))
}

func boolOrNull(b *bool) string {
	if b == nil {
		return "null"
	}
	return strconv.FormatBool(*b)
}

// ExplainText writes the per-producer settings, the cut counts per
// partition and, with batches, one line per batch.
func ExplainText(w io.Writer, res *explain.Result, batches bool) error {
	bw := bufio.NewWriter(w)
	for _, p := range res.Producers {
		fmt.Fprintf(bw, "%s producer %s: partitions %s\n", p.Topic, explainPID(p.ProducerID), partList(p.Partitions))
		s := &p.Settings
		tw := tabwriter.NewWriter(bw, 0, 0, 2, ' ', 0)
		fmt.Fprintf(tw, "  batch.size\t%s\n", intervalText(s.BatchSize, "B"))
		fmt.Fprintf(tw, "  linger.ms\t%s\n", intervalText(s.LingerMs, "ms"))
		comp := orNotEnough(s.Compression)
		if s.Ratio > 0 {
			comp += fmt.Sprintf(" (estimated ratio %.3f)", s.Ratio)
		}
		fmt.Fprintf(tw, "  compression\t%s\n", comp)
		fmt.Fprintf(tw, "  idempotence\t%s\n", boolText(s.Idempotence))
		fmt.Fprintf(tw, "  acks\t%s\n", orNotEnough(s.Acks))
		fmt.Fprintf(tw, "  sync sends\t%s\n", boolText(s.Sync))
		fmt.Fprintf(tw, "  partitioner\t%s\n", orNotEnough(s.Partitioner))
		fmt.Fprintf(tw, "  max.in.flight\t%s\n", orNotEnough(s.MaxInFlight))
		for i, a := range s.Alternatives {
			label := ""
			if i == 0 {
				label = "  alternatives"
			}
			fmt.Fprintf(tw, "%s\t%d. %s\n", label, i+1, a)
		}
		for i, x := range s.Senders {
			label := ""
			if i == 0 {
				label = "  sender"
			}
			fmt.Fprintf(tw, "%s\t%s\n", label, senderText(x, i == 0))
		}
		for _, n := range s.Notes {
			fmt.Fprintf(tw, "  note\t%s\n", n)
		}
		tw.Flush()
		fmt.Fprintf(bw, "  cuts: %s\n", cutsText(p.Cuts))
	}
	if len(res.Producers) > 0 {
		fmt.Fprintln(bw)
	}
	for _, ps := range res.Partitions {
		fmt.Fprintf(bw, "%s-%d producer %s: %s\n", ps.Topic, ps.Partition, explainPID(ps.ProducerID), cutsText(ps.Cuts))
	}
	for _, u := range res.Unread {
		fmt.Fprintf(bw, "note: %s\n", unreadText(u))
	}
	if batches {
		fmt.Fprintln(bw)
		tw := tabwriter.NewWriter(bw, 0, 0, 2, ' ', 0)
		fmt.Fprintln(tw, "PARTITION\tOFFSET\tRECORDS\tBYTES\tCUT\tEVIDENCE")
		for _, b := range res.Batches {
			fmt.Fprintf(tw, "%s-%d\t%d\t%d\t%d\t%s\t%s\n", b.Topic(), b.Partition, b.BaseOffset, b.Records, b.Bytes, b.Cut(), b.Evidence())
		}
		tw.Flush()
	}
	return bw.Flush()
}

func explainPID(pid int64) string {
	if pid < 0 {
		return "none (-1)"
	}
	return strconv.FormatInt(pid, 10)
}

func partList(ps []int32) string {
	s := make([]string, len(ps))
	for i, p := range ps {
		s[i] = strconv.Itoa(int(p))
	}
	return strings.Join(s, ",")
}

func intervalText(iv *explain.Interval, unit string) string {
	if iv == nil {
		return "not enough evidence"
	}
	var s string
	switch {
	case iv.Max < 0:
		s = fmt.Sprintf(">= %d %s (no upper bound in the log)", iv.Min, unit)
		if iv.Likely >= iv.Min && iv.Likely > 0 {
			s += fmt.Sprintf(", likely %d", iv.Likely)
		}
	case iv.Min == iv.Max:
		s = fmt.Sprintf("%d %s", iv.Min, unit)
	default:
		s = fmt.Sprintf("%d..%d %s, likely %d", iv.Min, iv.Max, unit, iv.Likely)
	}
	return fmt.Sprintf("%s [%s confidence, %d batches: %s]", s, iv.Confidence, iv.Batches, iv.Evidence)
}

func orNotEnough(s string) string {
	if s == "" {
		return "not enough evidence"
	}
	return s
}

func boolText(b *bool) string {
	switch {
	case b == nil:
		return "not enough evidence"
	case *b:
		return "yes"
	}
	return "no"
}

func cutsText(cuts map[string]int) string {
	var parts []string
	for _, c := range explain.Cuts {
		if n := cuts[c]; n > 0 {
			parts = append(parts, fmt.Sprintf("%s %d", c, n))
		}
	}
	if len(parts) == 0 {
		return "no data batches"
	}
	return strings.Join(parts, ", ")
}

// ExplainAdvice writes, per producer with advice, what the reference
// producer predicts at the inferred settings and under the changed one.
func ExplainAdvice(w io.Writer, res *explain.Result, advice []*explain.Advice) error {
	bw := bufio.NewWriter(w)
	for i, p := range res.Producers {
		a := advice[i]
		if a == nil {
			continue
		}
		fill := ""
		if a.Fill > 0 {
			fill = fmt.Sprintf(" at %.0f%% of batch.size on average", 100*a.Fill)
		}
		has := fmt.Sprintf("the log has %d", a.LogBatches)
		if a.Capped {
			has = fmt.Sprintf("capped at the log's first %d records of %d, which the log holds in %d batches", a.Base.Records, a.LogRecords, a.LogBatches)
		}
		fmt.Fprintf(bw, "advice for %s producer %s: %.0f%% of batches cut by %s%s; the reference producer writes %d batches (%d–%d) at the inferred settings (%s); with %s it predicts %d batches (%d–%d).\n",
			p.Topic, explainPID(p.ProducerID), 100*a.Share, a.Dominant, fill, a.BaseCount, a.BaseMin, a.BaseMax, has, a.Change, a.NewCount, a.NewMin, a.NewMax)
	}
	return bw.Flush()
}

// intervalShort is an interval without its evidence, for tables.
func intervalShort(iv *explain.Interval, unit string) string {
	switch {
	case iv == nil:
		return "not enough evidence"
	case iv.Max < 0:
		return fmt.Sprintf(">= %d %s (%s)", iv.Min, unit, iv.Confidence)
	case iv.Min == iv.Max:
		return fmt.Sprintf("%d %s (%s)", iv.Min, unit, iv.Confidence)
	}
	return fmt.Sprintf("%d..%d %s, likely %d (%s)", iv.Min, iv.Max, unit, iv.Likely, iv.Confidence)
}
