package report

import (
	"bufio"
	"fmt"
	"io"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/kseg/kseg/internal/jsonobj"
	"github.com/kseg/kseg/internal/whatif"
	"github.com/kseg/kseg/producer"
)

// WhatifText writes kseg whatif's answer for people: per topic the
// original settings (given, or inferred with their confidence), the new
// ones, the sender fitted to the log with the replay's self-check, and
// per partition before → after.
func WhatifText(w io.Writer, results []*whatif.Result) error {
	bw := bufio.NewWriter(w)
	for i, r := range results {
		if i > 0 {
			bw.WriteByte('\n')
		}
		whatifTopicText(bw, r)
	}
	return bw.Flush()
}

// WhatifUnread says where the replay of a topic whose log passed the
// records whatif reads ended ("" when it was read whole).
func WhatifUnread(t *whatif.Topic) string {
	if len(t.Unread) == 0 {
		return ""
	}
	from := make([]string, len(t.Unread))
	for i, u := range t.Unread {
		from[i] = fmt.Sprintf("%d from offset %d", u.Partition, u.From)
	}
	return fmt.Sprintf("the log holds more than whatif reads (%d records, a producer session counting as %d more, shared by the partitions given): the replay ends at %s, the last record read of the partition that passed its share; not read: partition %s (--from and --to choose the stretch)",
		t.Bound, whatif.SessionCost, time.UnixMilli(t.End).UTC().Format("2006-01-02T15:04:05.000Z"), strings.Join(from, ", "))
}

func whatifTopicText(w *bufio.Writer, r *whatif.Result) {
	t := r.Topic
	fmt.Fprintf(w, "topic %s: %d records, %d partition%s (%s given), %d producer session%s\n",
		t.Name, t.Records(), t.Partitions, pluralS(t.Partitions), whatifParts(t.Named), len(t.Sessions), pluralS(len(t.Sessions)))
	if t.Unnamed != "" {
		fmt.Fprintf(w, "  note: %s is not named TOPIC-PARTITION: its records replay as partition 0 of a one-partition topic\n", t.Unnamed)
	}
	if n := WhatifUnread(t); n != "" {
		fmt.Fprintf(w, "  note: %s\n", n)
	}
	if t.NoPID {
		fmt.Fprintf(w, "  note: records of producer id -1 (non-idempotent producers) cannot be told apart: they replay as one producer, one accumulator;\n"+
			"        if several producers wrote them at once, the replay shares batches they did not share and predicts too few batches\n")
	}
	if r.Synthetic != "" {
		fmt.Fprintf(w, "  note: %s;\n        --synthetic: replaying a workload fitted to the log instead (its records and sizes, sent evenly over its time span)\n", r.Synthetic)
	}
	if r.Inferred {
		fmt.Fprintf(w, "  original settings (inferred by explain, no --was):\n")
		for _, in := range r.Inference {
			fmt.Fprintf(w, "    %s=%s", in.Key, in.Value)
			switch {
			case in.Confidence == "default":
				fmt.Fprintf(w, "  [not enough evidence: Kafka's default]")
			case in.Interval != "":
				fmt.Fprintf(w, "  [%s confidence, %s]", in.Confidence, in.Interval)
			default:
				fmt.Fprintf(w, "  [%s confidence]", in.Confidence)
			}
			w.WriteByte('\n')
		}
		for _, u := range r.InferredFromPart {
			fmt.Fprintf(w, "    note: inferred from the first %d data batches of %s-%d, within explain's bound on batches (offsets from %d on not read); --was gives the settings\n",
				u.Read, u.Topic, u.Partition, u.From)
		}
	} else {
		fmt.Fprintf(w, "  original settings (given): %s\n", propList(r.WasProps))
	}
	if len(r.Changed) == 0 {
		fmt.Fprintf(w, "  new settings: none differ from the original\n")
	} else {
		fmt.Fprintf(w, "  new settings: %s\n", propList(r.Changed))
	}
	if r.Fit == nil {
		fmt.Fprintf(w, "  no data records\n")
		return
	}
	if added, removed := producer.CodecFirstUse(r.Was.Compression, r.Now.Compression); added > 0 || removed > 0 {
		fmt.Fprintf(w, "  codec's first use: Java loads a codec in the first send() that uses it; the replay under %s\n", r.Now.Compression)
		if added > 0 {
			fmt.Fprintf(w, "    gives each producer session's first send %s's load (%s), the records due meanwhile waiting\n", r.Now.Compression, ms(added))
		}
		if removed > 0 {
			fmt.Fprintf(w, "    takes %s's load (%s) out of the log's arrivals where a session shows it (a gap after its first record)\n", r.Was.Compression, ms(removed))
		}
	}
	s := r.Fit.Sender
	fmt.Fprintf(w, "  sender fitted to the log: lag %s, close %s a batch, round trip %s (%d senders tried on %d records)\n",
		ms(s.Lag), ms(s.Close), ms(s.RTT), r.Fit.Evaluations, r.Fit.Records)
	if n := len(r.Fit.Plausible); n > 1 {
		fmt.Fprintf(w, "  %d senders reproduce the log about as well (the log cannot tell them apart): the runs mix them\n", n)
		for _, o := range r.Fit.Plausible[1:] {
			fmt.Fprintf(w, "    lag %s, close %s a batch, round trip %s\n", ms(o.Lag), ms(o.Close), ms(o.RTT))
		}
	}
	be, re := r.ReplayError()
	rq := r.Replay.TotalBatches()
	var lb int64
	for _, b := range r.LogBatches {
		lb += b
	}
	fmt.Fprintf(w, "  self-check, the replay under the original settings: %d batches [%d-%d] for the log's %d (%s), records per batch %s\n",
		rq.P50, rq.P5, rq.P95, lb, pct(be), pct(re))
	if !r.Reproduces() {
		fmt.Fprintf(w, "  warning: %s\n", whatif.NotReproduced)
	}
	if r.Predicted.SimRuns < len(r.Predicted.Runs) {
		fmt.Fprintf(w, "  %d runs composed of %d simulations of each of %d windows\n", len(r.Predicted.Runs), r.Predicted.SimRuns, r.Predicted.Windows)
	} else {
		fmt.Fprintf(w, "  %d runs\n", len(r.Predicted.Runs))
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintf(tw, "  partition\tbatches: log\treplay p50\t→ predicted p50\t[p5-p95]\trecords/batch: log\t→ predicted\t[p5-p95]\tbytes/batch: log\t→ predicted\trequests p50\t\n")
	for _, p := range t.Named {
		lb, lr, ly := r.LogBatches[p], r.LogRecords[p], r.LogBytes[p]
		pb := r.Predicted.Batches(int(p))
		rp := r.Predicted.RecordsPerBatch(int(p))
		yp := r.Predicted.BytesPerBatch(int(p))
		fmt.Fprintf(tw, "  %d\t%d\t%d\t%d\t[%d-%d]\t%s\t%s\t[%s-%s]\t%s\t%s\t%d\t\n", p, lb, r.Replay.Batches(int(p)).P50, pb.P50, pb.P5, pb.P95,
			wratio(lr, lb), wf1(rp.P50), wf1(rp.P5), wf1(rp.P95), wratio(ly, lb), wf1(yp.P50), r.Predicted.Requests(int(p)).P50)
	}
	var tl, tr, ty int64
	for p := range r.LogBatches {
		tl += r.LogBatches[p]
		tr += r.LogRecords[p]
		ty += r.LogBytes[p]
	}
	pb := r.Predicted.TotalBatches()
	rp := r.Predicted.RecordsPerBatch(-1)
	yp := r.Predicted.BytesPerBatch(-1)
	fmt.Fprintf(tw, "  topic\t%d\t%d\t%d\t[%d-%d]\t%s\t%s\t[%s-%s]\t%s\t%s\t%d\t\n", tl, rq.P50, pb.P50, pb.P5, pb.P95,
		wratio(tr, tl), wf1(rp.P50), wf1(rp.P5), wf1(rp.P95), wratio(ty, tl), wf1(yp.P50), r.Predicted.Requests(-1).P50)
	tw.Flush()
	if len(t.Named) > 1 && t.Sessions[0].Keyed() < int64(t.Sessions[0].Len()) {
		fmt.Fprintf(w, "  unkeyed records are re-spread by the sticky partitioner in every run: a partition's count is mostly its random choice, the topic's total is what the settings decide\n")
	}
	if len(t.Named) < t.Partitions {
		fmt.Fprintf(w, "  note: %d of the topic's %d partitions given: unkeyed records of the missing ones are not replayed\n", len(t.Named), t.Partitions)
	}
}

func pluralS(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}

func whatifParts(ps []int32) string {
	var b strings.Builder
	for i, p := range ps {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(strconv.Itoa(int(p)))
	}
	return b.String()
}

func propList(ps []producer.Property) string {
	var b strings.Builder
	for i, p := range ps {
		if i > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(p.Key + "=" + p.Value)
	}
	return b.String()
}

func ms(d time.Duration) string {
	return strconv.FormatFloat(float64(d)/1e6, 'f', -1, 64) + " ms"
}

func pct(x float64) string { return fmt.Sprintf("%+.1f%%", 100*x) }

func wf1(x float64) string { return strconv.FormatFloat(x, 'f', 1, 64) }

func wratio(a, b int64) string {
	if b == 0 {
		return "-"
	}
	return wf1(float64(a) / float64(b))
}

// WhatifJSON writes kseg whatif's NDJSON: per topic a "calibration"
// object, then one "whatif" object per partition given, then a
// "whatif_topic" object (docs/json.md).
func WhatifJSON(w io.Writer, results []*whatif.Result) error {
	bw := bufio.NewWriter(w)
	for _, r := range results {
		if r.Fit == nil {
			continue
		}
		t := r.Topic
		var j jsonobj.Obj
		j.Str("type", "calibration")
		j.Str("topic", t.Name)
		var set jsonobj.Obj
		for _, p := range r.WasProps {
			set.Raw(p.Key, propJSON(p.Value))
		}
		j.Raw("settings", string(set.Done()))
		j.Bool("inferred", r.Inferred)
		s := r.Fit.Sender
		var snd jsonobj.Obj
		snd.Raw("lag_ms", msJSON(s.Lag))
		snd.Raw("close_ms", msJSON(s.Close))
		snd.Raw("rtt_ms", msJSON(s.RTT))
		snd.Raw("jitter", fJSON(s.Jitter))
		snd.Raw("run_jitter", fJSON(s.RunJitter))
		snd.Raw("rtt_jitter", fJSON(s.RTTJitter))
		snd.Raw("broker_serial_share", fJSON(s.BrokerSerialShare))
		j.Raw("sender", string(snd.Done()))
		if len(r.Fit.Plausible) > 1 {
			// the other senders the runs mix (the log cannot tell them apart)
			var arr []byte
			arr = append(arr, '[')
			for k, o := range r.Fit.Plausible[1:] {
				if k > 0 {
					arr = append(arr, ',')
				}
				var po jsonobj.Obj
				po.Raw("lag_ms", msJSON(o.Lag))
				po.Raw("close_ms", msJSON(o.Close))
				po.Raw("rtt_ms", msJSON(o.RTT))
				arr = append(arr, po.Done()...)
			}
			arr = append(arr, ']')
			j.Raw("also_mixed", string(arr))
		}
		if len(t.Unread) > 0 {
			// the replay ends at t.End: partitions past it were not read
			var u jsonobj.Obj
			u.Int("bound", t.Bound)
			u.Int("end_ms", t.End)
			arr := []byte{'['}
			for k, x := range t.Unread {
				if k > 0 {
					arr = append(arr, ',')
				}
				var po jsonobj.Obj
				po.Int("partition", int64(x.Partition))
				po.Int("from_offset", x.From)
				arr = append(arr, po.Done()...)
			}
			u.Raw("partitions", string(append(arr, ']')))
			j.Raw("unread", string(u.Done()))
		}
		be, re := r.ReplayError()
		var e jsonobj.Obj
		e.Raw("batches", fJSON(be))
		e.Raw("records_per_batch", fJSON(re))
		j.Raw("replay_error", string(e.Done()))
		bw.Write(j.Done())
		bw.WriteByte('\n')
		for _, p := range t.Named {
			var j jsonobj.Obj
			j.Str("type", "whatif")
			j.Str("topic", t.Name)
			j.Int("partition", int64(p))
			lb, lr := r.LogBatches[p], r.LogRecords[p]
			var lg jsonobj.Obj
			lg.Int("batches", lb)
			lg.Int("records", lr)
			if lb > 0 {
				lg.Raw("records_per_batch", fJSON(float64(lr)/float64(lb)))
			} else {
				lg.Null("records_per_batch")
			}
			j.Raw("log", string(lg.Done()))
			var rp jsonobj.Obj
			rp.Raw("batches", quantJSON(r.Replay.Batches(int(p))))
			j.Raw("replay", string(rp.Done()))
			var pr jsonobj.Obj
			pr.Raw("batches", quantJSON(r.Predicted.Batches(int(p))))
			q := r.Predicted.RecordsPerBatch(int(p))
			var rq jsonobj.Obj
			rq.Raw("p5", fJSON(q.P5))
			rq.Raw("p50", fJSON(q.P50))
			rq.Raw("p95", fJSON(q.P95))
			pr.Raw("records_per_batch", string(rq.Done()))
			pr.Int("requests_p50", int64(r.Predicted.Requests(int(p)).P50))
			j.Raw("predicted", string(pr.Done()))
			bw.Write(j.Done())
			bw.WriteByte('\n')
		}
		var tj jsonobj.Obj
		tj.Str("type", "whatif_topic")
		tj.Str("topic", t.Name)
		var lb int64
		for _, b := range r.LogBatches {
			lb += b
		}
		var lg jsonobj.Obj
		lg.Int("batches", lb)
		tj.Raw("log", string(lg.Done()))
		var rp jsonobj.Obj
		rp.Raw("batches", quantJSON(r.Replay.TotalBatches()))
		tj.Raw("replay", string(rp.Done()))
		var pr jsonobj.Obj
		pr.Raw("batches", quantJSON(r.Predicted.TotalBatches()))
		tj.Raw("predicted", string(pr.Done()))
		bw.Write(tj.Done())
		bw.WriteByte('\n')
	}
	return bw.Flush()
}

func quantJSON(q producer.Quantiles) string {
	var j jsonobj.Obj
	j.Int("min", int64(q.Min))
	j.Int("p5", int64(q.P5))
	j.Int("p50", int64(q.P50))
	j.Int("p95", int64(q.P95))
	j.Int("max", int64(q.Max))
	return string(j.Done())
}

func fJSON(x float64) string { return strconv.FormatFloat(x, 'f', 4, 64) }

func msJSON(d time.Duration) string { return strconv.FormatFloat(float64(d)/1e6, 'f', -1, 64) }

// propJSON is a property's value as JSON: a number or a boolean as
// such, anything else a string.
func propJSON(v string) string {
	if _, err := strconv.ParseInt(v, 10, 64); err == nil {
		return v
	}
	if v == "true" || v == "false" {
		return v
	}
	return strconv.Quote(v)
}
