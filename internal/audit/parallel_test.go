package audit

import (
	"path/filepath"
	"reflect"
	"testing"
)

// TestRunPartitionsMatchesRun: partitions audited on several goroutines
// give Run's results in the given order, and the first failing
// partition's error.
func TestRunPartitionsMatchesRun(t *testing.T) {
	ps, err := Partitions([]string{"../../testdata/segments/seed", "../../testdata/segments/txn", "../../testdata/segments/idempotent", "../../testdata/producer-oracle/k4-v10-b4096", "../../testdata/producer-oracle/k3-v100-b1024"})
	if err != nil {
		t.Fatal(err)
	}
	if len(ps) < 10 {
		t.Fatalf("only %d partitions", len(ps))
	}
	var want []*Result
	for _, p := range ps {
		r, err := Run(p, Options{})
		if err != nil {
			t.Fatal(err)
		}
		want = append(want, r)
	}
	for _, w := range []int{1, 3} {
		got, err := RunPartitions(ps, w, Options{})
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("%d workers: results differ from Run's", w)
		}
	}
	// A partition that cannot be read, in the middle: its error, as the
	// sequential loop would return it.
	bad := &Partition{Name: "missing-0", Dir: t.TempDir(), Logs: []string{filepath.Join(t.TempDir(), "00000000000000000000.log")}}
	list := append(append(append([]*Partition{}, ps[:5]...), bad), ps[5:]...)
	_, wantErr := Run(bad, Options{})
	if wantErr == nil {
		t.Fatal("a missing log audited without error")
	}
	for _, w := range []int{1, 3} {
		if _, err := RunPartitions(list, w, Options{}); err == nil || err.Error() != wantErr.Error() {
			t.Fatalf("%d workers: error %v, want %v", w, err, wantErr)
		}
	}
}

// TestStreamPartitions: Stream hands fn Run's results (findings read back
// with Each) in the given order, with several workers; on a partition that
// cannot be read, fn has had exactly the partitions before it.
func TestStreamPartitions(t *testing.T) {
	ps, err := Partitions([]string{"../../testdata/segments/seed", "../../testdata/segments/txn", "../../testdata/segments/idempotent", "../../testdata/producer-oracle/k3-v100-b1024"})
	if err != nil {
		t.Fatal(err)
	}
	want, err := RunPartitions(ps, 1, Options{})
	if err != nil {
		t.Fatal(err)
	}
	bad := &Partition{Name: "missing-0", Dir: t.TempDir(), Logs: []string{filepath.Join(t.TempDir(), "00000000000000000000.log")}}
	list := append(append(append([]*Partition{}, ps[:5]...), bad), ps[5:]...)
	_, wantErr := Run(bad, Options{})
	for _, w := range []int{1, 2, 5} {
		var got []*Result
		err := Stream(ps, w, Options{}, func(r *Result) error {
			c := &Result{Summary: r.Summary, Findings: collect(t, r), Producers: r.Producers}
			got = append(got, c)
			return nil
		})
		if err != nil || !reflect.DeepEqual(got, want) {
			t.Fatalf("%d workers: %d results (%v), differ from Run's", w, len(got), err)
		}
		var names []string
		err = Stream(list, w, Options{}, func(r *Result) error {
			names = append(names, r.Summary.Partition)
			return nil
		})
		if err == nil || err.Error() != wantErr.Error() || len(names) != 5 || names[4] != ps[4].Name {
			t.Fatalf("%d workers: error %v after %v, want %v after the first 5", w, err, names, wantErr)
		}
	}
}
