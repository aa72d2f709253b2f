package report

import (
	"bufio"
	"fmt"
	"io"
	"path/filepath"
	"text/tabwriter"

	"github.com/kseg/kseg/producer"
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
				p.Partition, p.Batches, p.Records, Histogram(p.RecordsPerBatch))
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
		var j jsonObj
		j.str("type", "batch")
		j.str("topic", topic)
		j.int("partition", int64(b.Partition))
		j.int("base_offset", b.BaseOffset)
		j.int("records", int64(b.Records))
		j.int("bytes", int64(b.Bytes))
		j.str("cut", b.Cut)
		bw.Write(j.done())
		bw.WriteByte('\n')
	}
	return bw.Flush()
}
