package explain

import (
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
	cand := map[*Batch]bool{a: true}
	cuts := make([]string, 2)
	done := make(chan int, 1)
	go func() { v, _ := replay([][]*Batch{{a, b}}, cand, 5, 100, cuts, true); done <- v }()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		t.Fatal("replay does not terminate")
	}
	if cuts[0] == "" || cuts[1] == "" {
		t.Errorf("cuts %q: every batch gets one", cuts)
	}
}

// Every partition of the real-world corpus (files kseg did not write) is
// explained without error and in bounded time.
func TestRealWorldPartitions(t *testing.T) {
	root := filepath.Join(realworld.Dir(t), "segments")
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
		t.Skip("no .log files in the corpus")
	}
	for _, d := range list {
		parts, err := segment.Partitions([]string{d})
		if err != nil {
			t.Errorf("%s: %v", d, err)
			continue
		}
		start := time.Now()
		res, err := Run(parts)
		if err != nil {
			t.Logf("%s: %v (unreadable input is an error, as in count)", d, err)
			continue
		}
		for _, b := range res.Batches {
			if b.Cut == "" {
				t.Errorf("%s: batch at %d has no cut", d, b.BaseOffset)
				break
			}
		}
		if el := time.Since(start); el > 10*time.Second {
			t.Errorf("%s: %v", d, el)
		}
	}
}
