package whatif

import (
	"io"
	"math"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/kseg/kseg/producer"
	"github.com/kseg/kseg/segment"
)

type headerBatch struct {
	baseOffset, firstTs, maxTs int64
	records                    int64
	cost                       int64 // records, and SessionCost for a session's first batch in the partition
}

// dataBatches lists p's data batches by their headers.
func dataBatches(t *testing.T, p *segment.Partition) []headerBatch {
	t.Helper()
	var out []headerBatch
	seen := map[[2]int64]bool{}
	st := &segment.Stream{}
	defer st.Close()
	for _, seg := range p.Segments {
		if err := st.OpenSegment(seg, 0); err != nil {
			t.Fatal(err)
		}
		for st.Next() {
			sb := st.Batch()
			info, err := sb.Info()
			if err != nil {
				t.Fatal(err)
			}
			if !info.Control && info.Records > 0 {
				b := headerBatch{info.BaseOffset, sb.Header.BaseTimestamp, info.MaxTimestamp, int64(info.Records), int64(info.Records)}
				if k := [2]int64{info.ProducerID, int64(info.ProducerEpoch)}; !seen[k] {
					seen[k] = true
					b.cost += SessionCost
				}
				out = append(out, b)
			}
		}
		if err := st.Err(); err != nil {
			t.Fatal(err)
		}
	}
	return out
}

// ReadWithin reads at most its bound of records; a partition past its
// share ends the topic's replay at its last record read, and every
// partition stops at its first batch begun later (checked against the
// rule worked out here from the batch headers).
func TestReadWithin(t *testing.T) {
	cfg := producer.DefaultConfig()
	cfg.Records, cfg.ValueSize, cfg.BatchSize, cfg.Partitions = 3000, 100, 1024, 3
	cfg.SendInterval = 200 * time.Microsecond
	sticky := t.TempDir()
	if _, err := producer.Write(cfg, sticky); err != nil {
		t.Fatal(err)
	}
	seed := filepath.Join("..", "..", "testdata", "segments", "seed", "u05-small-0") // 25 batches of 8 records
	// 200 producers of a batch of 2 records each, 1 ms apart
	sessions := t.TempDir()
	var bs []testBatch
	for i := range 200 {
		bs = append(bs, testBatch{pid: int64(i), ts: []int64{1_700_000_000_000 + int64(i), 1_700_000_000_000 + int64(i)}})
	}
	writeBatches(t, sessions, 0, bs)
	for _, tc := range []struct {
		name  string
		dir   string
		bound int64
	}{
		{"one partition, whole", seed, 200 + SessionCost},
		{"one partition, whole below a bound", seed, 1000},
		{"one partition, cut", seed, 80 + SessionCost},
		{"one partition, cut inside a batch", seed, 84 + SessionCost},
		{"one partition, bound below a batch", seed, 3},
		{"sticky, whole", sticky, 3000 + 3*SessionCost},
		{"sticky, cut", sticky, 900 + 3*SessionCost},
		{"sticky, cut unevenly", sticky, 1400 + 3*SessionCost},
		{"a session a batch, whole", sessions, 200 * (2 + SessionCost)},
		{"a session a batch, cut", sessions, 50 * (2 + SessionCost)},
	} {
		for _, remote := range []bool{false, true} {
			name := tc.name
			if remote {
				name += ", remote"
			}
			t.Run(name, func(t *testing.T) { checkReadWithin(t, tc.dir, tc.bound, remote, cfg.Partitions) })
		}
	}
}

// checkReadWithin checks ReadWithin(dir's partitions, bound) against the
// rule; remote: the partitions' segments are given as remote ones (Open
// set), which are not counted before they are read.
func checkReadWithin(t *testing.T, dir string, bound int64, remote bool, nParts int) {
	parts, err := segment.Partitions([]string{dir})
	if err != nil {
		t.Fatal(err)
	}
	// the rule: fair shares (segment.FairShares, tested on its own) of
	// the partitions' costs, or of more than the bound for a remote one;
	// the topic's end at the earliest last timestamp of a partition cut
	// short
	all := make([][]headerBatch, len(parts))
	sizes := make([]int64, len(parts))
	for i := range parts {
		all[i] = dataBatches(t, &parts[i])
		for _, b := range all[i] {
			sizes[i] += b.cost
		}
		if remote {
			sizes[i] = bound + 1
			parts[i] = asRemote(t, parts[i])
		}
	}
	shares := segment.FairShares(sizes, bound)
	limit := make([]int, len(parts))
	end := int64(math.MaxInt64)
	for i := range parts {
		limit[i] = len(all[i])
		var n int64
		last := int64(math.MinInt64)
		for k, b := range all[i] {
			if n+b.cost > shares[i] {
				limit[i] = k
				if k == 0 {
					last = b.firstTs - 1
				}
				end = min(end, last)
				break
			}
			n += b.cost
			last = max(last, b.maxTs)
		}
	}
	wantRecords := make([]int64, max(nParts, 1))
	var wantUnread []Unread
	for i := range parts {
		k := 0
		for k < limit[i] && all[i][k].firstTs <= end {
			wantRecords[parts[i].Partition] += all[i][k].records
			k++
		}
		if k < len(all[i]) {
			wantUnread = append(wantUnread, Unread{Partition: parts[i].Partition, From: all[i][k].baseOffset})
		}
	}
	topics, err := ReadWithin(parts, bound)
	if err != nil {
		t.Fatal(err)
	}
	tp := topics[0]
	_, records, _ := tp.LogLayout()
	var total int64
	for p, n := range records {
		total += n
		if n != wantRecords[p] {
			t.Errorf("partition %d: %d records read, want %d", p, n, wantRecords[p])
		}
	}
	if cost := total + int64(len(tp.Sessions))*SessionCost; cost > bound && len(tp.Unread) > 0 {
		t.Errorf("%d records of %d sessions read, costing %d: above the bound %d", total, len(tp.Sessions), cost, bound)
	}
	if len(tp.Unread) != len(wantUnread) {
		t.Fatalf("unread %+v, want %+v", tp.Unread, wantUnread)
	}
	for i := range wantUnread {
		if tp.Unread[i] != wantUnread[i] {
			t.Errorf("unread %+v, want %+v", tp.Unread, wantUnread)
		}
	}
	if len(wantUnread) > 0 && (tp.End != end || tp.Bound != bound) {
		t.Errorf("end %d bound %d, want %d and %d", tp.End, tp.Bound, end, bound)
	}
	if len(wantUnread) < len(parts) {
		t.Logf("only %d of %d partitions cut", len(wantUnread), len(parts))
	}
}

// asRemote is p with its segments given as a remote source gives them
// (segment.Segment.Open set), so that segment.Partition.Local is false.
func asRemote(t *testing.T, p segment.Partition) segment.Partition {
	t.Helper()
	segs := make([]segment.Segment, len(p.Segments))
	for i, seg := range p.Segments {
		data, err := os.ReadFile(seg.Path)
		if err != nil {
			t.Fatal(err)
		}
		segs[i] = segment.Segment{Path: seg.Path, BaseOffset: seg.BaseOffset, Size: int64(len(data)),
			Open: func() (segment.Source, io.Closer, error) { return segment.BytesSource(seg.Path, data), nil, nil }}
	}
	r := segment.NewRemotePartition(p.Topic, p.Partition, p.Dir, segs)
	if r.Local() {
		t.Fatal("asRemote: still local")
	}
	return r
}
