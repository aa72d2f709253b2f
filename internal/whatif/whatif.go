package whatif

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"

	"github.com/kseg/kseg/internal/explain"
	"github.com/kseg/kseg/producer"
	"github.com/kseg/kseg/segment"
)

// Options are kseg whatif's settings.
type Options struct {
	// Set are the new settings (a --config file's, then --set's); Was
	// the original ones, or nil to take them from explain's inference.
	Set, Was []producer.Property
	Runs     int // runs per prediction (default 200)
	Seed     uint64
	// Synthetic replaces arrivals that are not send() times by a
	// workload fitted to the log instead of refusing the topic.
	Synthetic bool
	Workers   int
	// FitRecords bounds the records each sender tried in the fit
	// replays (0: producer.FitSender's default).
	FitRecords int
}

// ErrReplay marks a replay of the model that failed: an internal error,
// not the input's.
var ErrReplay = errors.New("replay failed")

// Inferred is one original setting as explain inferred it.
type Inferred struct {
	Key, Value string
	Confidence string // high, medium, low; "default" when the log does not say
	Interval   string // the inferred interval, when there is one
}

// Result is the what-if of one topic.
type Result struct {
	Topic     *Topic
	Was, Now  producer.Config
	WasProps  []producer.Property // the original settings by Kafka's names
	Changed   []producer.Property // the new settings that differ
	Inferred  bool
	Inference []Inferred
	// InferredFromPart are the topic's partitions explain read only in
	// part (explain.DefaultMaxBatches) for Inference.
	InferredFromPart []explain.Unread
	Synthetic        string // why the arrivals were synthesized ("" when they were not)
	Fit              *producer.Fit
	LogBatches       []int64
	LogRecords       []int64
	LogBytes         []int64
	Replay           *producer.ReplayResult // the original settings, fitted sender
	Predicted        *producer.ReplayResult // the new settings, fitted sender

	replayOpts producer.ReplayOptions
}

// predict replays the topic under cfg with the sender fitted to its log.
func (r *Result) predict(cfg producer.Config) (*producer.ReplayResult, error) {
	res, err := producer.ReplayMix(r.Topic.Sessions, cfg, r.Fit.Plausible, r.replayOpts)
	if err != nil {
		return nil, fmt.Errorf("topic %s: %w under the new settings: %w", r.Topic.Name, ErrReplay, err)
	}
	return res, nil
}

// PredictAlso replays the topic under the original settings changed by
// set, with the same fitted sender and runs as Predicted: another what-if
// of the same log without reading it or fitting again (kseg report draws
// several). It returns nil for a topic without records.
func (r *Result) PredictAlso(set []producer.Property) (*producer.ReplayResult, error) {
	if r.Fit == nil {
		return nil, nil
	}
	cfg := r.Was
	if _, err := cfg.ApplyProperties(set); err != nil {
		return nil, err
	}
	return r.predict(cfg)
}

// NotReproduced is what kseg says when a result does not Reproduce its log.
const NotReproduced = "the replay misses the log's own batch count by more than max(1 batch, 5%) and its runs' noise: " +
	"either the original settings are not the log's or the model cannot make this log; the predicted medians are not to be trusted"

// Reproduces is the self-check's verdict: the replay's median batches
// under the original settings are within max(1 batch, 5%) of the log's
// (over the topic), or the log's count is within the median's 95%
// interval over the runs (the order statistics n/2 ± 0.98√n): with few
// runs a wide replay's median moves by more than 5% from seed to seed.
// When neither holds, the fit has not found the log's sender, or the
// original settings are not the log's, and a prediction's median follows
// neither.
func (r *Result) Reproduces() bool {
	if r.Replay == nil || len(r.Replay.Runs) == 0 {
		return true
	}
	var lb int64
	for _, b := range r.LogBatches {
		lb += b
	}
	if d := math.Abs(float64(int64(r.Replay.TotalBatches().P50) - lb)); d <= max(1, 0.05*float64(lb)) {
		return true
	}
	totals := make([]int64, len(r.Replay.Runs))
	for i := range r.Replay.Runs {
		totals[i] = r.Replay.Runs[i].TotalBatches()
	}
	slices.Sort(totals)
	n := len(totals)
	half := int(math.Ceil(0.98 * math.Sqrt(float64(n))))
	lo, hi := totals[max(0, n/2-half)], totals[min(n-1, (n-1)/2+half)]
	return lo <= lb && lb <= hi
}

// ReplayError is the self-check: the replay's median batches (over the
// topic) against the log's, and its median records per batch against the
// log's, as relative errors.
func (r *Result) ReplayError() (batches, recordsPerBatch float64) {
	var lb, lr int64
	for p := range r.LogBatches {
		lb += r.LogBatches[p]
		lr += r.LogRecords[p]
	}
	if lb == 0 {
		return 0, 0
	}
	q := r.Replay.TotalBatches()
	batches = float64(int64(q.P50)-lb) / float64(lb)
	rpb := r.Replay.RecordsPerBatch(-1).P50
	logRPB := float64(lr) / float64(lb)
	return batches, (rpb - logRPB) / logRPB
}

// Run reads parts and answers the what-if for each topic. ignored lists
// the keys of Set and Was the model does not use. A topic whose
// timestamps are not arrivals is an error wrapping ErrNotArrivals unless
// opts.Synthetic.
func Run(parts []segment.Partition, opts Options) (results []*Result, ignored []string, err error) {
	if opts.Runs <= 0 {
		opts.Runs = 200
	}
	topics, err := Read(parts)
	if err != nil {
		return nil, nil, err
	}
	var ex *explain.Result
	for _, t := range topics {
		r := &Result{Topic: t}
		r.LogBatches, r.LogRecords, r.LogBytes = t.LogLayout()
		if t.Evidence != "" {
			if !opts.Synthetic {
				return nil, nil, fmt.Errorf("%w: %s (--synthetic replays a workload fitted to the log instead)", ErrNotArrivals, t.Evidence)
			}
			r.Synthetic = t.Evidence
			t.Synthesize()
		}
		was := producer.DefaultConfig()
		if opts.Was != nil {
			ig, err := was.ApplyProperties(opts.Was)
			if err != nil {
				return nil, nil, err
			}
			ignored = append(ignored, ig...)
		} else {
			if ex == nil {
				if ex, err = explain.RunWith(parts, explainOptions); err != nil {
					return nil, nil, err
				}
			}
			r.Inferred = true
			r.Inference = infer(ex, t.Name, &was)
			for _, u := range ex.Unread {
				if u.Topic == t.Name {
					r.InferredFromPart = append(r.InferredFromPart, u)
				}
			}
		}
		now := was
		ig, err := now.ApplyProperties(opts.Set)
		if err != nil {
			return nil, nil, err
		}
		ignored = append(ignored, ig...)
		r.Was, r.Now = was, now
		r.WasProps = was.Properties()
		nowProps := now.Properties()
		for i, p := range nowProps {
			if p.Value != r.WasProps[i].Value {
				r.Changed = append(r.Changed, p)
			}
		}
		if t.Records() == 0 {
			results = append(results, r)
			continue
		}
		fit, err := producer.FitSender(t.Sessions, was, fitOptions(opts))
		if err != nil {
			return nil, nil, fmt.Errorf("topic %s: fitting the sender: %w", t.Name, err)
		}
		r.Fit = fit
		ro := producer.ReplayOptions{Runs: opts.Runs, Seed: opts.Seed, Workers: opts.Workers}
		if r.Replay, err = producer.ReplayMix(t.Sessions, was, fit.Plausible, ro); err != nil {
			return nil, nil, fmt.Errorf("topic %s: %w: %w", t.Name, ErrReplay, err)
		}
		logCodec := was.Compression
		ro.LogCodec = &logCodec
		r.replayOpts = ro
		if r.Predicted, err = r.predict(now); err != nil {
			return nil, nil, err
		}
		results = append(results, r)
	}
	slices.Sort(ignored)
	return results, slices.Compact(ignored), nil
}

// fitOptions are a what-if fit's: the sender's details as the what-if
// data scored them (docs/calibration.md), and a fit that replays the
// log as the prediction then does.
func fitOptions(opts Options) producer.FitOptions {
	return producer.FitOptions{Seed: opts.Seed, Workers: opts.Workers, MaxRecords: opts.FitRecords,
		PollGranularity: producer.DefaultTiming().PollGranularity, SplitClose: true, SerialBroker: true,
		RunJitter: producer.WhatifRunJitter, Draws: producer.WhatifFitDraws, RunHist: true, GridStart: true,
		WindowRecords: producer.DefaultWindowRecords}
}

// explainOptions bound the explain run that infers the original settings
// (a test lowers its bound).
var explainOptions = explain.Options{}

// infer sets cfg from explain's inference for topic (its producer with
// the most batches) and says what it took.
func infer(ex *explain.Result, topic string, cfg *producer.Config) []Inferred {
	var best *explain.Producer
	for _, p := range ex.Producers {
		if p.Topic == topic && (best == nil || len(p.Batches) > len(best.Batches)) {
			best = p
		}
	}
	var out []Inferred
	interval := func(key string, iv *explain.Interval, def int64, set func(int64)) {
		if iv == nil {
			out = append(out, Inferred{Key: key, Value: strconv.FormatInt(def, 10), Confidence: "default"})
			return
		}
		hi := "no upper bound"
		if iv.Max >= 0 {
			hi = strconv.FormatInt(iv.Max, 10)
		}
		set(iv.Likely)
		out = append(out, Inferred{Key: key, Value: strconv.FormatInt(iv.Likely, 10), Confidence: iv.Confidence,
			Interval: fmt.Sprintf("%d..%s", iv.Min, hi)})
	}
	if best == nil {
		return nil
	}
	s := &best.Settings
	interval("batch.size", s.BatchSize, int64(cfg.BatchSize), func(x int64) { cfg.BatchSize = int(x) })
	interval("linger.ms", s.LingerMs, cfg.LingerMs, func(x int64) { cfg.LingerMs = x })
	if s.Compression != "" && s.Compression != "mixed" {
		_, _ = cfg.ApplyProperties([]producer.Property{{Key: "compression.type", Value: s.Compression}})
		out = append(out, Inferred{Key: "compression.type", Value: s.Compression, Confidence: "high"})
	} else {
		out = append(out, Inferred{Key: "compression.type", Value: cfg.Compression.String(), Confidence: "default"})
	}
	if s.Idempotence != nil && !*s.Idempotence {
		cfg.Idempotence, cfg.Acks = false, 1
		out = append(out, Inferred{Key: "enable.idempotence", Value: "false", Confidence: "high"})
	} else if s.Idempotence != nil {
		out = append(out, Inferred{Key: "enable.idempotence", Value: "true", Confidence: "high"})
	}
	if s.Sync != nil && *s.Sync {
		cfg.Sync = true
		out = append(out, Inferred{Key: "sync", Value: "true (send().get())", Confidence: "medium"})
	}
	return out
}
