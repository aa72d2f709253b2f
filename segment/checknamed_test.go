package segment_test

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/kseg/kseg/segment"
)

// An empty .log named on the command line is refused; the same empty file
// as the active segment of a partition a resolver assembled (lts://...?local=
// adds the local directory's segments) is not: it was not named. CI's tiered
// step failed on the second before the rule looked at how a file came.
func TestCheckNamedOnlyNamedFiles(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "t-0")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	active := filepath.Join(dir, "00000000000000000400.log")
	if err := os.WriteFile(active, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	named, err := segment.Partitions([]string{active})
	if err != nil {
		t.Fatal(err)
	}
	if err := segment.CheckNamed(named); !errors.Is(err, segment.ErrEmptyFile) {
		t.Errorf("an empty file named by itself: %v, want ErrEmptyFile", err)
	}
	walked, err := segment.Partitions([]string{dir})
	if err != nil {
		t.Fatal(err)
	}
	assembled := []segment.Partition{segment.NewRemotePartition("t", 0, "lts:///remote+"+dir, walked[0].Segments)}
	if err := segment.CheckNamed(assembled); err != nil {
		t.Errorf("an empty active segment of an assembled partition: %v", err)
	}
	if err := segment.CheckNamed(walked); err != nil {
		t.Errorf("an empty active segment of a partition directory: %v", err)
	}
}
