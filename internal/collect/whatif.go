package collect

import (
	"fmt"
	"strings"

	"github.com/kseg/kseg/internal/whatif"
	"github.com/kseg/kseg/producer"
	"github.com/kseg/kseg/report"
	"github.com/kseg/kseg/segment"
)

// WhatifSpec is one setting kseg report --whatif draws: its label as given
// and its producer properties.
type WhatifSpec struct {
	Label string
	Set   []producer.Property
}

// ParseWhatifSpec parses "KEY=VALUE[,KEY=VALUE...]" (Kafka's producer
// property names, as kseg whatif --set takes them).
func ParseWhatifSpec(s string) (WhatifSpec, error) {
	spec := WhatifSpec{Label: s}
	for _, kv := range strings.Split(s, ",") {
		p, err := producer.ParseProperty(kv)
		if err != nil {
			return spec, err
		}
		spec.Set = append(spec.Set, p)
	}
	return spec, nil
}

// whatifs answers every spec for the run's partitions and returns one
// report.WhatifTopic per topic: the log, the replay under the original
// settings and one band per spec.
func whatifs(parts []segment.Partition, opts Options) ([]report.WhatifTopic, error) {
	if len(opts.Whatif) == 0 {
		return nil, nil
	}
	// One read and one fit per topic, for the first setting; the others
	// replay the same traces with the same sender.
	first := opts.Whatif[0]
	res, _, err := whatif.Run(parts, whatif.Options{Set: first.Set, Was: opts.WhatifWas, Runs: opts.WhatifRuns, Seed: 1})
	if err != nil {
		return nil, fmt.Errorf("--whatif %s: %w", first.Label, err)
	}
	var out []report.WhatifTopic
	for _, r := range res {
		if r.Replay == nil || r.Predicted == nil {
			continue // a topic without records
		}
		t := topicOf(r)
		t.Settings = append(t.Settings, band(first.Label, r.Predicted))
		for _, spec := range opts.Whatif[1:] {
			pr, err := r.PredictAlso(spec.Set)
			if err != nil {
				return nil, fmt.Errorf("--whatif %s: %w", spec.Label, err)
			}
			t.Settings = append(t.Settings, band(spec.Label, pr))
		}
		out = append(out, t)
	}
	return out, nil
}

func topicOf(r *whatif.Result) report.WhatifTopic {
	var batches, records int64
	for p := range r.LogBatches {
		batches += r.LogBatches[p]
		records += r.LogRecords[p]
	}
	was := "original settings given"
	if r.Inferred {
		was = "original settings inferred by kseg explain"
	}
	var props []string
	for _, p := range r.WasProps {
		props = append(props, p.Key+"="+p.Value)
	}
	t := report.WhatifTopic{Topic: r.Topic.Name, Was: was + ": " + strings.Join(props, " "), LogBatches: batches,
		Replay: band("replay, original settings", r.Replay), Note: report.WhatifUnread(r.Topic)}
	if batches > 0 {
		t.LogRPB = float64(records) / float64(batches)
	}
	if f := r.Fit; f != nil {
		s := f.Sender
		be, _ := r.ReplayError() // the replay's, as kseg whatif prints it: the fit's own error can differ
		t.Fit = fmt.Sprintf("sender fitted to the log: lag %v, close %v a batch, round trip %v; self-check %+.1f%% batches", s.Lag, s.Close, s.RTT, 100*be)
		if !r.Reproduces() {
			t.Warning = whatif.NotReproduced
		}
	}
	return t
}

func band(label string, rr *producer.ReplayResult) report.WhatifBand {
	return report.WhatifBand{Label: label, Batches: rr.TotalBatches(), RPB: rr.RecordsPerBatch(-1), Requests: rr.Requests(-1).P50}
}
