package explain

import (
	"math"
	"os"
	"path/filepath"
	"sort"
	"testing"
	"time"

	"github.com/kseg/kseg/internal/realworld"
	"github.com/kseg/kseg/segment"
)

// Timestamps need not grow (explicit ProducerRecord timestamps): a batch
// whose successor is stamped before its own first record still ends, and
// the replay terminates.
func TestReplayBackwardTimestamps(t *testing.T) {
	a := &Batch{FirstTs: 100, LastTs: 100, idx: 0}
	b := &Batch{FirstTs: 50, LastTs: 60, idx: 1}
	a.next, a.succ = b, b
	b.first.ts = 50
	cand := newCandSet(2)
	cand.set(a)
	cuts := make([]string, 2)
	done := make(chan int, 1)
	go func() {
		v, _ := replay(newReplayLog([][]*Batch{{a, b}}, cand), 5, 100, cuts, 9, math.MaxInt)
		done <- v
	}()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		t.Fatal("replay does not terminate")
	}
	if cuts[0] == "" || cuts[1] == "" {
		t.Errorf("cuts %q: every batch gets one", cuts)
	}
}

// realWorldPartitionDirs lists the partition directories of the real-world
// corpus (files kseg did not write).
func realWorldPartitionDirs(tb testing.TB) []string {
	root := filepath.Join(realworld.Dir(tb), "segments")
	dirs := map[string]bool{}
	filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() && filepath.Ext(p) == ".log" {
			dirs[filepath.Dir(p)] = true
		}
		return nil
	})
	var list []string
	for d := range dirs {
		list = append(list, d)
	}
	sort.Strings(list)
	if len(list) == 0 {
		tb.Skip("no .log files in the corpus")
	}
	return list
}

// Every partition of the real-world corpus is explained without error,
// every batch with a cut. (Its time is BenchmarkRealWorldPartitions'.)
func TestRealWorldPartitions(t *testing.T) {
	for _, d := range realWorldPartitionDirs(t) {
		parts, err := segment.Partitions([]string{d})
		if err != nil {
			t.Errorf("%s: %v", d, err)
			continue
		}
		res, err := Run(parts)
		if err != nil {
			t.Logf("%s: %v (unreadable input is an error, as in count)", d, err)
			continue
		}
		for _, b := range res.Batches {
			if b.Cut() == "" {
				t.Errorf("%s: batch at %d has no cut", d, b.BaseOffset)
				break
			}
		}
	}
}

// BenchmarkRealWorldPartitions times explain over each partition of the
// real-world corpus (a replay that explodes shows here: one version took
// 16 s on customers_keyed-0, against 0.4 s now).
func BenchmarkRealWorldPartitions(b *testing.B) {
	for _, d := range realWorldPartitionDirs(b) {
		parts, err := segment.Partitions([]string{d})
		if err != nil {
			continue
		}
		if _, err := Run(parts); err != nil {
			continue // unreadable input; the test logs it
		}
		b.Run(filepath.Base(d), func(b *testing.B) {
			for b.Loop() {
				if _, err := Run(parts); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// chain builds one partition's batches from [first, last] record times,
// linked as the reader links them.
func chain(spans ...[2]int64) []*Batch {
	var bs []*Batch
	for i, s := range spans {
		b := &Batch{FirstTs: s[0], LastTs: s[1], idx: int32(i)}
		b.first.ts = s[0]
		if i > 0 {
			bs[i-1].next, bs[i-1].succ = b, b
		}
		bs = append(bs, b)
	}
	return bs
}

// A node with five requests unanswered holds the drain: at linger.ms=0
// five batches go at once, the sixth takes records until the first
// response (9 ms), and so on with one round trip. With that round trip the
// replay finds no contradiction and names every batch linger; without a
// busy node it cannot, nor with a round trip the log does not show.
func TestReplayHoldsBusyNode(t *testing.T) {
	spans := [][2]int64{{0, 0}, {1, 1}, {2, 2}, {3, 3}, {4, 4}, {5, 9}, {10, 10}, {11, 11}, {12, 12}, {13, 13}, {14, 18}, {19, 19}}
	bs := chain(spans...)
	cuts := make([]string, len(bs))
	if v, held := replay(newReplayLog([][]*Batch{bs}, nil), 0, 19, cuts, 0, math.MaxInt); v == 0 || held != 0 {
		t.Errorf("no busy node: %d contradictions, %d held; want some and none", v, held)
	}
	v, held := replay(newReplayLog([][]*Batch{bs}, nil), 0, 19, cuts, 9, math.MaxInt)
	if v != 0 || held != 2 {
		t.Errorf("round trip 9 ms: %d contradictions, %d held; want 0 and 2", v, held)
	}
	for i, c := range cuts {
		if c != CutLinger {
			t.Errorf("batch %d: cut %s, want linger", i, c)
		}
	}
	for _, rtt := range []int64{5, 14} {
		if v, _ := replay(newReplayLog([][]*Batch{bs}, nil), 0, 19, cuts, rtt, math.MaxInt); v == 0 {
			t.Errorf("round trip %d ms: no contradiction", rtt)
		}
	}
	// A hold of 40 ms where others took 9: no round trip fits both.
	spans[10] = [2]int64{14, 49}
	spans[11] = [2]int64{50, 50}
	bs = chain(spans...)
	for rtt := int64(1); rtt <= 50; rtt++ {
		if v, _ := replay(newReplayLog([][]*Batch{bs}, nil), 0, 50, cuts, rtt, math.MaxInt); v == 0 {
			t.Errorf("inconsistent holds: round trip %d ms explains them", rtt)
		}
	}
}

// At linger.ms=0 each batch goes in a request of its own as soon as it is
// made: five one-record batches of three partitions in the first
// millisecond fill the five slots, and the sixth batch takes records until
// the first response, 9 ms later. Counted as the two drains they look
// like in milliseconds, the slots would not be full and the sixth batch
// would be a contradiction.
func TestReplayCountsRequestsInOneMillisecond(t *testing.T) {
	p0 := chain([2]int64{0, 0}, [2]int64{0, 0}, [2]int64{10, 10})
	p1 := chain([2]int64{0, 0}, [2]int64{0, 0}, [2]int64{10, 10})
	p2 := chain([2]int64{0, 0}, [2]int64{0, 9}, [2]int64{10, 10})
	n := 0
	for _, bs := range [][]*Batch{p0, p1, p2} {
		for _, b := range bs {
			b.idx = int32(n)
			n++
		}
	}
	cuts := make([]string, n)
	v, held := replay(newReplayLog([][]*Batch{p0, p1, p2}, nil), 0, 10, cuts, 9, math.MaxInt)
	if v != 0 || held == 0 {
		t.Errorf("%d contradictions, %d held; want none and a hold", v, held)
	}
	if c := cuts[p2[1].idx]; c != CutLinger {
		t.Errorf("the batch held to the first response: cut %s, want linger", c)
	}
}
