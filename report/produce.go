package report

import (
	"bufio"
	"encoding/json"
	"fmt"
	"github.com/kseg/kseg/internal/jsonobj"
	"io"
	"math"
	"path/filepath"
	"strconv"
	"text/tabwriter"

	"github.com/kseg/kseg/producer"
	"github.com/kseg/kseg/segment"
)

// ProduceCounts writes the count line of every partition a producer run
// wrote, then how many faults were injected, if any.
func ProduceCounts(w io.Writer, topic string, res *producer.Result) {
	for _, p := range res.Partitions {
		fmt.Fprintln(w, CountLine(fmt.Sprintf("%s-%d", topic, p.Partition), p.Batches, p.Records, p.RecordsPerBatch))
	}
	if len(res.Faults) > 0 {
		fmt.Fprintf(w, "injected %d fault(s), listed in %s\n", len(res.Faults), filepath.Join(res.Dir, producer.SidecarName))
	}
}

// Sweep writes each run's ProduceCounts under "== <name>", then a summary
// table with one row per run and partition. results[i] is runs[i]'s.
func Sweep(w io.Writer, runs []producer.SweepRun, results []*producer.Result) error {
	for i, r := range runs {
		fmt.Fprintf(w, "== %s\n", r.Name)
		ProduceCounts(w, r.Config.Topic, results[i])
	}
	fmt.Fprintln(w)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "RUN\tLINGER.MS\tBATCH.SIZE\tCOMPRESSION\tPARTITION\tBATCHES\tRECORDS\tRECORDS PER BATCH")
	for i, r := range runs {
		for _, p := range results[i].Partitions {
			fmt.Fprintf(tw, "%s\t%d\t%d\t%v\t%d\t%d\t%d\t%s\n", r.Name, r.Config.LingerMs, r.Config.BatchSize, r.Config.Compression,
				p.Partition, p.Batches, p.Records, segment.FormatHistogram(p.RecordsPerBatch))
		}
	}
	return tw.Flush()
}

// ProduceJSON writes one NDJSON line per written batch, in drain order, with
// the model's own reason for its cut (the ground truth kseg explain is
// tested against): {"type":"batch","topic","partition","base_offset",
// "records","bytes","cut"}.
func ProduceJSON(w io.Writer, topic string, res *producer.Result) error {
	bw := bufio.NewWriter(w)
	for _, b := range res.Batches {
		var j jsonobj.Obj
		j.Str("type", "batch")
		j.Str("topic", topic)
		j.Int("partition", int64(b.Partition))
		j.Int("base_offset", b.BaseOffset)
		j.Int("records", int64(b.Records))
		j.Int("bytes", int64(b.Bytes))
		j.Str("cut", b.Cut)
		bw.Write(j.Done())
		bw.WriteByte('\n')
	}
	return bw.Flush()
}

// envelopeLine is one partition's line of a kseg produce --runs: the count
// line of the median run with the batch-count range, e.g.
// "kseg-ref-0: 64 batches (61–67 over 200 runs), 2000 records, 31 records
// per batch (30–33)": the median of the runs' mean records per batch and
// its range. With one
// run it is the plain count line.
func envelopeLine(env *producer.Envelope, p int) string {
	name := fmt.Sprintf("%s-%d", env.Config.Topic, p)
	med := &env.Runs[env.Median]
	if len(env.Runs) == 1 {
		return CountLine(name, int64(med.Batches(p)), med.Records(p), med.Histogram(p))
	}
	q := env.Partitions[p].Batches
	rpb, lo, hi := env.RecordsPerBatch(p)
	return fmt.Sprintf("%s: %d batches (%d–%d over %d runs), %d records, %s records per batch (%s–%s)", name, med.Batches(p), q.Min, q.Max, len(env.Runs), med.Records(p),
		perBatch(rpb), perBatch(lo), perBatch(hi))
}

// perBatch formats a mean of records per batch: one decimal under 10.
func perBatch(x float64) string {
	if x < 10 {
		return strconv.FormatFloat(x, 'f', 1, 64)
	}
	return strconv.FormatFloat(x, 'f', 0, 64)
}

// ProduceEnvelope writes envelopeLine for every partition, then the
// injected faults of the written run, if any (res may be nil: a dry run).
func ProduceEnvelope(w io.Writer, env *producer.Envelope, res *producer.Result) {
	for p := range env.Partitions {
		fmt.Fprintln(w, envelopeLine(env, p))
	}
	if res != nil && len(res.Faults) > 0 {
		fmt.Fprintf(w, "injected %d fault(s), listed in %s\n", len(res.Faults), filepath.Join(res.Dir, producer.SidecarName))
	}
}

// SweepEnvelopes is Sweep for sweeps simulated several times (or dry):
// each run's envelope lines, then the summary table with the batch-count
// range. results may be nil (dry run).
func SweepEnvelopes(w io.Writer, runs []producer.SweepRun, envs []*producer.Envelope, results []*producer.Result) error {
	for i, r := range runs {
		fmt.Fprintf(w, "== %s\n", r.Name)
		var res *producer.Result
		if results != nil {
			res = results[i]
		}
		ProduceEnvelope(w, envs[i], res)
	}
	fmt.Fprintln(w)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "RUN\tLINGER.MS\tBATCH.SIZE\tCOMPRESSION\tPARTITION\tBATCHES\tRECORDS\tRECORDS PER BATCH")
	for i, r := range runs {
		env := envs[i]
		med := &env.Runs[env.Median]
		for p, pe := range env.Partitions {
			batches := fmt.Sprint(med.Batches(p))
			if len(env.Runs) > 1 {
				batches += fmt.Sprintf(" (%d–%d)", pe.Batches.Min, pe.Batches.Max)
			}
			fmt.Fprintf(tw, "%s\t%d\t%d\t%v\t%d\t%s\t%d\t%s\n", r.Name, r.Config.LingerMs, r.Config.BatchSize, r.Config.Compression,
				p, batches, med.Records(p), segment.FormatHistogram(med.Histogram(p)))
		}
	}
	return tw.Flush()
}

// Placements writes where each real partition falls in the prediction
// (kseg produce --compare), one block per partition.
func Placements(w io.Writer, pls []producer.Placement) {
	for _, pl := range pls {
		verdict := "inside"
		if !pl.Inside {
			verdict = "OUTSIDE"
		}
		fmt.Fprintf(w, "%s: %d batches, percentile %.0f of %d runs (predicted %d–%d, median %d; %s %d–%d): %s\n",
			pl.Name, pl.Batches, pl.BatchesPercentile, pl.Runs, pl.Predicted.Min, pl.Predicted.Max, pl.Predicted.P50,
			pl.Tolerance, pl.BatchesLo, pl.BatchesHi, verdict)
		fmt.Fprintf(w, "  first batch: %d records, percentile %.0f (%s %d–%d)\n", pl.FirstBatch, pl.FirstBatchPercentile, pl.Tolerance, pl.FirstLo, pl.FirstHi)
		if len(pl.Outside) == 0 {
			fmt.Fprintf(w, "  records per batch: inside the %s band at every batch\n", pl.Tolerance)
		} else {
			fmt.Fprintf(w, "  records per batch: leave the %s band at batch %d (%d of %d batches outside)\n", pl.Tolerance, pl.Outside[0], len(pl.Outside), pl.Batches)
		}
	}
}

// placementJSON is one line of kseg produce --compare --json.
type placementJSON struct {
	Type                 string             `json:"type"` // "compare"
	Name                 string             `json:"name"`
	Partition            int                `json:"partition"`
	Runs                 int                `json:"runs"`
	Tolerance            string             `json:"tolerance"`
	Batches              int                `json:"batches"`
	BatchesPercentile    float64            `json:"batches_percentile"`
	Predicted            producer.Quantiles `json:"predicted_batches"`
	BatchesBounds        [2]int             `json:"batches_bounds"`
	FirstBatch           int                `json:"first_batch"`
	FirstBatchPercentile float64            `json:"first_batch_percentile"`
	FirstBatchBounds     [2]int             `json:"first_batch_bounds"`
	Outside              []int              `json:"outside_band"`
	Inside               bool               `json:"inside"`
}

// PlacementsJSON writes one "compare" NDJSON line per real partition.
func PlacementsJSON(w io.Writer, pls []producer.Placement) error {
	enc := json.NewEncoder(w)
	for _, pl := range pls {
		out := pl.Outside
		if out == nil {
			out = []int{}
		}
		if err := enc.Encode(placementJSON{"compare", pl.Name, pl.Partition, pl.Runs, pl.Tolerance.String(), pl.Batches,
			round1(pl.BatchesPercentile), pl.Predicted, [2]int{pl.BatchesLo, pl.BatchesHi}, pl.FirstBatch,
			round1(pl.FirstBatchPercentile), [2]int{pl.FirstLo, pl.FirstHi}, out, pl.Inside}); err != nil {
			return err
		}
	}
	return nil
}

func round1(v float64) float64 { return math.Round(v*10) / 10 }
