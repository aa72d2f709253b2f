package segment

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"
)

// mkTree creates files (paths relative to root, "/" separated; a trailing
// "/" makes a directory) and returns root.
func mkTree(t *testing.T, files ...string) string {
	t.Helper()
	root := t.TempDir()
	for _, f := range files {
		p := filepath.Join(root, filepath.FromSlash(f))
		if strings.HasSuffix(f, "/") {
			if err := os.MkdirAll(p, 0o755); err != nil {
				t.Fatal(err)
			}
			continue
		}
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return root
}

type partSummary struct {
	Name      string
	Segments  []string // base names
	Snapshots []string
}

func summarize(root string, ps []Partition) []partSummary {
	var out []partSummary
	for _, p := range ps {
		s := partSummary{Name: p.Name()}
		for _, g := range p.Segments {
			s.Segments = append(s.Segments, filepath.Base(g.Path))
		}
		for _, g := range p.Snapshots {
			s.Snapshots = append(s.Snapshots, filepath.Base(g.Path))
		}
		out = append(out, s)
	}
	return out
}

const (
	l0   = "00000000000000000000.log"
	l142 = "00000000000000000142.log"
	l9   = "00000000000000000009.log"
)

func TestPartitions(t *testing.T) {
	logDir := []string{
		"t-10/" + l0, "t-2/" + l142, "t-2/" + l9, "t-2/00000000000000000009.index",
		"t-2/00000000000000000009.log.deleted", "t-2/leader-epoch-checkpoint",
		"a-0/" + l0, "bootstrap.checkpoint", "not-a-partition/" + l0, "meta-0/00000000000000000100-0000000001.checkpoint",
		"meta-0/" + l0, "recovery-point-offset-checkpoint", "empty-3/",
	}
	tests := []struct {
		name  string
		tree  []string
		args  []string // relative to root; "." is root
		want  []partSummary
		isErr error
	}{
		{"log dir sorted by topic then number", logDir, []string{"."}, []partSummary{
			{"a-0", []string{l0}, nil},
			{"empty-3", nil, nil},
			{"meta-0", []string{l0}, []string{"00000000000000000100-0000000001.checkpoint"}},
			{"t-2", []string{l9, l142}, nil},
			{"t-10", []string{l0}, nil},
		}, nil},
		{"partition dir", logDir, []string{"t-2"}, []partSummary{{"t-2", []string{l9, l142}, nil}}, nil},
		{"named files grouped and sorted", logDir, []string{"t-2/" + l142, "t-2/" + l9, "t-2/" + l142}, []partSummary{{"t-2", []string{l9, l142}, nil}}, nil},
		{"directory wins over named file", logDir, []string{"t-2/" + l142, "t-2"}, []partSummary{{"t-2", []string{l9, l142}, nil}}, nil},
		{"unnamed directory keeps its name", logDir, []string{"not-a-partition"}, []partSummary{{"not-a-partition", []string{l0}, nil}}, nil},
		{"no partitions", []string{"x/", "y/z"}, []string{"."}, nil, ErrNoPartitions},
		{"missing", nil, []string{"nope"}, nil, os.ErrNotExist},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			root := mkTree(t, tc.tree...)
			var args []string
			for _, a := range tc.args {
				args = append(args, filepath.Join(root, a))
			}
			ps, err := Partitions(args)
			if tc.isErr != nil {
				if !errors.Is(err, tc.isErr) {
					t.Fatalf("err = %v, want %v", err, tc.isErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got := summarize(root, ps); !reflect.DeepEqual(got, tc.want) {
				t.Errorf("got  %+v\nwant %+v", got, tc.want)
			}
		})
	}
}

func TestPartitionFiles(t *testing.T) {
	root := mkTree(t, "t-2/"+l142, "t-2/"+l9, "t-2/00000000000000000009.index", "t-2/00000000000000000009.timeindex",
		"t-2/00000000000000000142.snapshot", "t-2/00000000000000000009.txnindex", "t-2/leader-epoch-checkpoint",
		"t-2/partition.metadata", "t-2/00000000000000000142.index.deleted")
	ps, err := Partitions([]string{filepath.Join(root, "t-2")})
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		all  bool
		want []string
	}{
		{false, []string{l9, l142}},
		{true, []string{l9, "00000000000000000009.index", "00000000000000000009.timeindex", "00000000000000000009.txnindex", l142, "00000000000000000142.snapshot"}},
	} {
		fs, err := ps[0].Files(tc.all)
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, f := range fs {
			got = append(got, filepath.Base(f))
		}
		if !reflect.DeepEqual(got, tc.want) {
			t.Errorf("all=%v: got %v want %v", tc.all, got, tc.want)
		}
	}
	// Named files: exactly those, indexes kept for dumps but not counted.
	ps, err = Partitions([]string{filepath.Join(root, "t-2", "00000000000000000009.index"), filepath.Join(root, "t-2", l9)})
	if err != nil {
		t.Fatal(err)
	}
	if len(ps[0].Segments) != 1 {
		t.Errorf("segments %v: an index is not a log", ps[0].Segments)
	}
	fs, _ := ps[0].Files(false)
	if len(fs) != 2 {
		t.Errorf("files %v, want the two named", fs)
	}
}

// TestListingAndParallelWalk: a log directory of many partitions is read
// on several goroutines; the partitions come back sorted, each with the
// files of its own directory (sub-directories left out), and a failing
// directory fails the walk.
func TestListingAndParallelWalk(t *testing.T) {
	var files []string
	for i := range 300 {
		d := "t-" + strconv.Itoa(i) + "/"
		files = append(files, d+l0, d+"00000000000000000000.index", d+"partition.metadata")
		if i%7 == 0 {
			files = append(files, d+l142, d+"sub/")
		}
	}
	root := mkTree(t, files...)
	ps, err := Partitions([]string{root})
	if err != nil {
		t.Fatal(err)
	}
	if len(ps) != 300 {
		t.Fatalf("%d partitions", len(ps))
	}
	for i, p := range ps {
		want := []string{"00000000000000000000.index", l0, "partition.metadata"}
		if i%7 == 0 {
			want = []string{"00000000000000000000.index", l0, l142, "partition.metadata"}
		}
		if p.Partition != int32(i) || !reflect.DeepEqual(p.Listing(), want) || len(p.Segments) != len(want)-2 {
			t.Fatalf("partition %d: %s listing %v segments %d", i, p.Name(), p.Listing(), len(p.Segments))
		}
	}
	named, err := Partitions([]string{filepath.Join(root, "t-0", l0)})
	if err != nil || named[0].Listing() != nil {
		t.Errorf("named file: listing %v, err %v; want none", named[0].Listing(), err)
	}
	if os.Geteuid() == 0 {
		return // root reads unreadable directories
	}
	bad := filepath.Join(root, "t-150")
	if err := os.Chmod(bad, 0); err != nil {
		t.Fatal(err)
	}
	defer os.Chmod(bad, 0o755)
	if _, err := Partitions([]string{root}); !errors.Is(err, os.ErrPermission) {
		t.Errorf("unreadable partition directory: %v", err)
	}
}

// TestListFilesMatchesReadDir: the walker's directory reader lists what
// os.ReadDir lists, less sub-directories, over more entries than one
// getdents buffer holds.
func TestListFilesMatchesReadDir(t *testing.T) {
	files := []string{".hidden", "sub/", "z.log", "a b.index", "00000000000000000000.log", "x/"}
	for i := range 400 {
		files = append(files, fmt.Sprintf("%020d.snapshot", i*7))
	}
	root := mkTree(t, files...)
	if err := os.Symlink("sub", filepath.Join(root, "link")); err != nil {
		t.Fatal(err)
	}
	ents, err := os.ReadDir(root)
	if err != nil {
		t.Fatal(err)
	}
	var want []string
	for _, e := range ents {
		if !e.IsDir() {
			want = append(want, e.Name())
		}
	}
	got, err := listFiles(root, make([]byte, 512))
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, want) || len(got) != 404+1 {
		t.Errorf("listFiles: %d names, os.ReadDir: %d\n%v\n%v", len(got), len(want), got[:6], want[:6])
	}
	if _, err := listFiles(filepath.Join(root, "missing"), make([]byte, 512)); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("missing directory: %v", err)
	}
}
