package report

import (
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/kseg/kseg/segment"
)

// CountObject is one partition of kseg count --json (the schema is
// documented in docs/json.md).
type CountObject struct {
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

// CountJSON writes one CountObject per partition (NDJSON). batchSize > 0
// adds the fill ratio.
func CountJSON(w io.Writer, res []segment.PartitionStats, batchSize int) error {
	enc := json.NewEncoder(w)
	for i := range res {
		if err := enc.Encode(newCountObject(&res[i], batchSize)); err != nil {
			return err
		}
	}
	return nil
}

// CountText writes the count line of every partition and, with detail, a
// table of the partitions' statistics (with a fill column when batchSize > 0)
// drawn in style.
func CountText(w io.Writer, res []segment.PartitionStats, detail bool, batchSize int, style TableStyle) error {
	names := shownNames(res)
	for i := range res {
		s := res[i].Stats
		fmt.Fprintln(w, CountLine(names[i], s.Batches, s.Records, s.RecordsPerBatch))
	}
	if !detail {
		return nil
	}
	fmt.Fprintln(w)
	return countTable(w, res, names, batchSize, style)
}

// shownNames are the partitions' names as the text output shows them: a
// name that two partitions share (orders-0 under a/ and under b/) is
// qualified with the partition's directory, so that the rows can be told
// apart; every other name is shown as it is.
func shownNames(res []segment.PartitionStats) []string {
	seen := map[string]int{}
	for i := range res {
		seen[res[i].Name()]++
	}
	names := make([]string, len(res))
	for i := range res {
		name, dir := res[i].Name(), res[i].Dir
		switch {
		case seen[name] < 2 || dir == "":
			names[i] = name
		case filepath.Base(dir) == name:
			names[i] = dir
		default:
			names[i] = name + " (" + dir + ")"
		}
	}
	return names
}

func round(x float64, digits int) float64 {
	v, _ := strconv.ParseFloat(strconv.FormatFloat(x, 'f', digits, 64), 64)
	return v
}

// newCountObject is p in the --json schema.
func newCountObject(p *segment.PartitionStats, batchSize int) CountObject {
	s := p.Stats
	o := CountObject{
		Topic: p.Topic, Partition: p.Partition.Partition, Name: p.Name(), Dir: p.Dir, Files: s.Files,
		Batches: s.Batches, Records: s.Records, Histogram: segment.FormatHistogram(s.RecordsPerBatch),
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

func countTable(w io.Writer, res []segment.PartitionStats, names []string, batchSize int, style TableStyle) error {
	t := newTable(w, style)
	head := []any{"partition", "batches", "records", "bytes", "avg rec", "min/max rec", "avg bytes"}
	if batchSize > 0 {
		head = append(head, "fill")
	}
	head = append(head, "codecs", "ratio", "control", "first timestamp", "span", "producer ids")
	t.Header(head...)
	for i := range res {
		s := res[i].Stats
		row := []any{names[i], s.Batches, s.Records, s.Bytes, fmt.Sprintf("%.2f", s.AvgRecords()),
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

// codecMix is "gzip:3 none:5", codecs sorted; "-" for none.
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

// pidList lists at most max producer ids, then "(+N more)"; "-" for none.
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
