package producer

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
)

// EnvelopeName is the file kseg produce --runs writes beside the partition
// directories: the envelope as NDJSON, for kseg report.
const EnvelopeName = "kseg-envelope.ndjson"

// runLine is one run and partition of an envelope's NDJSON.
type runLine struct {
	Type            string  `json:"type"` // "run"
	Run             int     `json:"run"`
	Topic           string  `json:"topic"`
	Partition       int     `json:"partition"`
	Batches         int     `json:"batches"`
	Records         int64   `json:"records"`
	RecordsPerBatch []int32 `json:"records_per_batch"`
}

// envelopeLine is one partition's summary in an envelope's NDJSON.
type envelopeLine struct {
	Type               string    `json:"type"` // "envelope"
	Topic              string    `json:"topic"`
	Partition          int       `json:"partition"`
	Runs               int       `json:"runs"`
	Batches            Quantiles `json:"batches"`
	RecordsPerBatchP50 []int     `json:"records_per_batch_p50"`
}

// WriteNDJSON writes one runLine per run and partition, then one
// envelopeLine per partition.
func (env *Envelope) WriteNDJSON(w io.Writer) error {
	bw := bufio.NewWriter(w)
	enc := json.NewEncoder(bw)
	topic := env.Config.Topic
	for i := range env.Runs {
		l := &env.Runs[i]
		for p, recs := range l.Partitions {
			if recs == nil {
				recs = []int32{}
			}
			if err := enc.Encode(runLine{"run", l.Run, topic, p, len(recs), l.Records(p), recs}); err != nil {
				return err
			}
		}
	}
	for _, pe := range env.Partitions {
		p50 := pe.RecordsP50
		if p50 == nil {
			p50 = []int{}
		}
		if err := enc.Encode(envelopeLine{"envelope", topic, pe.Partition, len(env.Runs), pe.Batches, p50}); err != nil {
			return err
		}
	}
	return bw.Flush()
}

// writeEnvelopeFile writes env's NDJSON to dir/EnvelopeName.
func writeEnvelopeFile(env *Envelope, dir string) error {
	f, err := os.Create(dir + string(os.PathSeparator) + EnvelopeName)
	if err != nil {
		return err
	}
	if err := env.WriteNDJSON(f); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// ReadEnvelope reads an envelope NDJSON file back: the layouts of every
// run, summarised again (the envelope lines are checked against them).
func ReadEnvelope(path string) (*Envelope, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	env := &Envelope{}
	byRun := map[int]int{}
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<30)
	var envLines []envelopeLine
	for line := 1; sc.Scan(); line++ {
		var head struct{ Type string }
		if err := json.Unmarshal(sc.Bytes(), &head); err != nil {
			return nil, fmt.Errorf("%s:%d: %w", path, line, err)
		}
		switch head.Type {
		case "run":
			var r runLine
			if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
				return nil, fmt.Errorf("%s:%d: %w", path, line, err)
			}
			if r.Partition < 0 || r.Partition > 1<<20 {
				return nil, fmt.Errorf("%s:%d: partition %d", path, line, r.Partition)
			}
			i, ok := byRun[r.Run]
			if !ok {
				i = len(env.Runs)
				byRun[r.Run] = i
				env.Runs = append(env.Runs, Layout{Run: r.Run})
			}
			l := &env.Runs[i]
			for len(l.Partitions) <= r.Partition {
				l.Partitions = append(l.Partitions, nil)
			}
			l.Partitions[r.Partition] = r.RecordsPerBatch
			env.Config.Topic = r.Topic
			env.Config.Partitions = max(env.Config.Partitions, r.Partition+1)
		case "envelope":
			var e envelopeLine
			if err := json.Unmarshal(sc.Bytes(), &e); err != nil {
				return nil, fmt.Errorf("%s:%d: %w", path, line, err)
			}
			envLines = append(envLines, e)
		default:
			return nil, fmt.Errorf("%s:%d: unknown line type %q", path, line, head.Type)
		}
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	if len(env.Runs) == 0 {
		return nil, fmt.Errorf("%s: no runs", path)
	}
	for i := range env.Runs {
		for len(env.Runs[i].Partitions) < env.Config.Partitions {
			env.Runs[i].Partitions = append(env.Runs[i].Partitions, nil)
		}
	}
	env.summarise()
	for _, e := range envLines {
		if e.Partition < 0 || e.Partition >= len(env.Partitions) || e.Runs != len(env.Runs) || e.Batches != env.Partitions[e.Partition].Batches {
			return nil, fmt.Errorf("%s: envelope line of partition %d does not match its runs", path, e.Partition)
		}
	}
	return env, nil
}
