package remote

import (
	"encoding/base64"
	"fmt"
	"math"

	"github.com/kseg/kseg/content"
	"github.com/kseg/kseg/segment"
)

// rlmmSegment is what __remote_log_metadata says of one remote segment: its
// partition, offsets and latest state.
type rlmmSegment struct {
	topic      string
	partition  int32
	start, end int64
	state      string
}

// readRemoteLogMetadata reads the __remote_log_metadata partitions under
// path (a partition directory or a log directory) and returns every remote
// segment it names, by segment id (Kafka's Uuid string), in its latest state.
func readRemoteLogMetadata(path string) (map[string]*rlmmSegment, error) {
	parts, err := segment.Partitions([]string{path})
	if err != nil {
		return nil, err
	}
	segs := map[string]*rlmmSegment{}
	found := false
	for i := range parts {
		if parts[i].Topic != "__remote_log_metadata" {
			continue
		}
		found = true
		it := segment.NewIter(&parts[i])
		for it.NextRecord() { // control records are skipped
			e, err := content.DecodeRemoteLogMetadata(it.Record().Value)
			if err != nil || (e.Type != 0 && e.Type != 1) {
				continue // what kafka-dump-log would skip; deletes and snapshots name no new segment
			}
			id := base64.RawURLEncoding.EncodeToString(e.SegmentID[:])
			s := segs[id]
			if s == nil {
				s = &rlmmSegment{topic: e.Topic, partition: e.Partition, start: -1, end: -1}
				segs[id] = s
			}
			if e.Type == 0 {
				s.start, s.end = e.StartOffset, e.EndOffset
			}
			s.state = e.State
		}
		err := it.Err()
		it.Close()
		if err != nil {
			return nil, err
		}
	}
	if !found {
		return nil, fmt.Errorf("%s: no __remote_log_metadata partition", path)
	}
	return segs, nil
}

// withMetadata applies what __remote_log_metadata (under the metadata
// option's path) says to p's remote segments, whose ids are in ids (by
// Path): a segment whose latest state is not COPY_SEGMENT_FINISHED (a copy
// under way or failed, a deletion) is left out; a segment the metadata
// lists as copied but the store lacks is an error, unless the local log
// (whose first offset is localFirst) holds its offsets.
func withMetadata(p segment.Partition, ids map[string]string, path string, localFirst int64) (segment.Partition, error) {
	if path == "" {
		return p, nil
	}
	meta, err := readRemoteLogMetadata(path)
	if err != nil {
		return p, err
	}
	seen := map[string]bool{}
	var keep []segment.Segment
	for _, s := range p.Segments {
		id, ok := ids[s.Path]
		if !ok {
			keep = append(keep, s)
			continue
		}
		seen[id] = true
		if m := meta[id]; m != nil && m.state != "COPY_SEGMENT_FINISHED" {
			continue
		}
		keep = append(keep, s)
	}
	for id, m := range meta {
		if m.topic != p.Topic || m.partition != p.Partition || m.state != "COPY_SEGMENT_FINISHED" || seen[id] {
			continue
		}
		if m.start >= localFirst {
			continue
		}
		return p, fmt.Errorf("%s: remote segment %s (offsets %d-%d) is COPY_SEGMENT_FINISHED in %s but not in remote storage", p.Dir, id, m.start, m.end, path)
	}
	return segment.NewRemotePartition(p.Topic, p.Partition, p.Dir, keep), nil
}

// localFirstOffset is the first local offset of p's partition under local,
// or MaxInt64 when there is none.
func localFirstOffset(p segment.Partition, local string) int64 {
	if local == "" {
		return math.MaxInt64
	}
	parts, err := segment.Partitions([]string{local})
	if err != nil {
		return math.MaxInt64
	}
	for _, lp := range parts {
		if lp.Topic == p.Topic && lp.Partition == p.Partition && len(lp.Segments) > 0 {
			return lp.Segments[0].BaseOffset
		}
	}
	return math.MaxInt64
}
