package audit

import (
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"testing"
)

// TestReadAheadSameFindings: a partition's files read ahead on other
// goroutines (what Stream gives one partition on two workers) give the
// findings of one goroutine, in the same order, on a partition of 4 MB
// with sequence gaps and bytes flipped at random (checksum mismatches,
// broken lengths, resyncs).
func TestReadAheadSameFindings(t *testing.T) {
	for _, flips := range []int{0, 3, 40} {
		dir := filepath.Join(t.TempDir(), "gaps-0")
		path := gapLog(t, dir, 70000, 50)
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		if len(data) < 4<<20 {
			t.Fatalf("a %d-byte log: segment reads ahead only from 4 MiB", len(data))
		}
		rng := rand.New(rand.NewPCG(uint64(flips), 7))
		for range flips {
			data[rng.IntN(len(data))] ^= byte(1 + rng.IntN(255))
		}
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
		ps, err := Partitions([]string{dir})
		if err != nil {
			t.Fatal(err)
		}
		want, err := Run(ps[0], Options{})
		if err != nil {
			t.Fatal(err)
		}
		if flips > 0 && len(findings(want, CorruptBatch)) == 0 {
			t.Fatalf("%d flips: no corrupt-batch finding", flips)
		}
		got, err := Run(ps[0], Options{readAhead: 2})
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(got.Findings, want.Findings) || !reflect.DeepEqual(got.Summary, want.Summary) {
			t.Errorf("%d flips: %d findings read ahead, %d with one; first difference at %d",
				flips, len(got.Findings), len(want.Findings), firstDiff(got.Findings, want.Findings))
		}
		var streamed []Finding
		err = Stream(ps, 2, Options{}, func(r *Result) error {
			streamed = append(streamed, collect(t, r)...)
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(streamed, want.Findings) {
			t.Errorf("%d flips: Stream on two workers gave %d findings, Run %d", flips, len(streamed), len(want.Findings))
		}
	}
}
