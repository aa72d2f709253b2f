package report

import (
	"github.com/kseg/kseg/batch"
	"github.com/kseg/kseg/internal/audit"
	"github.com/kseg/kseg/internal/explain"
	"github.com/kseg/kseg/internal/replicas"
	"github.com/kseg/kseg/producer"
	"github.com/kseg/kseg/segment"
)

// What the page shows of a partition, at most; whoever fills a
// PartitionData (internal/collect) keeps no more than this.
const (
	// MaxPoints is how many batches a per-batch chart shows at most; above
	// it the batches are sampled at a regular stride (the caption says so).
	MaxPoints = 2000
	// TableFindings is how many audit findings are listed under a partition.
	TableFindings = 50
	// MaxMarks is how many located findings the sequence chart marks.
	MaxMarks = 200
)

// BatchPoint is one top-level batch as the report's charts see it.
type BatchPoint struct {
	BaseOffset, LastOffset int64
	Records                int32
	Bytes                  int64 // the whole entry, log overhead included
	MaxTimestamp           int64 // -1 when none
	ProducerID             int64 // -1 when none (and for legacy messages)
	ProducerEpoch          int16
	BaseSequence           int32
	Codec                  batch.Codec
	Control                bool
}

// PartitionData is everything the report shows of one partition, as
// internal/collect gathers it; WriteHTML only renders it.
type PartitionData struct {
	Name  string
	Dir   string
	Stats *segment.Stats
	// Points are the batches in log order, every Stride-th one when the
	// partition has more than MaxPoints batches.
	Points []BatchPoint
	Stride int64
	// MinBytes and MaxBytes bound the batch sizes (of all batches).
	MinBytes, MaxBytes int64
	// Gaps are the largest time gaps between consecutive batches
	// (CreateTime max timestamps), largest first.
	Gaps []Gap
	// Audit is the partition's audit; nil with AuditErr when it failed.
	// Its Findings hold only the first TableFindings the page lists;
	// FindingsTotal counts them all and Marks holds the first MaxMarks
	// located at an offset (the sequence chart's triangles), so a log
	// with millions of findings costs the report no more memory than one
	// with a hundred.
	Audit         *audit.Result
	AuditErr      string
	FindingsTotal int
	Marks         []audit.Finding
	// Cuts is each batch's cut reason by base offset and Explained the
	// producers writing to the partition, as kseg explain infers them
	// (nil unless the report explains).
	Cuts      map[int64]string
	Explained []*explain.Producer
	// Envelope is the predicted distribution of this partition's layout
	// when kseg produce --runs wrote the log (nil otherwise).
	Envelope *producer.PartitionEnvelope
	Runs     int // simulated runs behind Envelope
	// Replica is this partition as one copy among the runs holding the
	// same partition (kseg replicas: its epochs, log start and end), and
	// ReplicaPairs the comparisons it is the first copy of; nil when no
	// other run holds the partition.
	Replica      *replicas.Copy
	ReplicaPairs []replicas.Pair
}

// Gap is the time between two consecutive batches.
type Gap struct {
	AfterOffset int64 // last offset of the earlier batch
	Millis      int64
}

// Run is one log directory (or set of files) in the report.
type Run struct {
	Name       string
	Path       string
	Partitions []PartitionData
	// Envelope is the run's kseg-envelope.ndjson (kseg produce --runs),
	// nil when there is none.
	Envelope *producer.Envelope
	// Sweep is the plan of the kseg produce --workload sweep the run
	// belongs to (shared by its runs), nil otherwise.
	Sweep *producer.SweepPlan
	// Whatif is the run's what-if per topic (kseg report --whatif).
	Whatif []WhatifTopic
}
