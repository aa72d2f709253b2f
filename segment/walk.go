package segment

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strings"

	"github.com/kseg/kseg/index"
	"github.com/kseg/kseg/internal/rfile"
)

// ErrNoPartitions is returned for a directory holding neither log files nor
// partition directories.
var ErrNoPartitions = errors.New("no segment files and no partition directories (<topic>-<partition>) inside")

// ErrNotLog is the cause for a file named on the command line that is not
// a log segment: a known non-log kind (an index, a producer snapshot,
// partition.metadata) given to a command that counts batches, or a file
// not named like a log in which no batch frames.
var ErrNotLog = errors.New("not a log segment")

// ErrEmptyFile is the cause (with ErrNotLog) for an empty file named on the
// command line as a log: normal for the active segment inside a partition
// directory, but there is nothing to read in it.
var ErrEmptyFile = errors.New("empty file")

// Partition is one partition's log files as found on disk.
type Partition struct {
	// Topic and Partition come from the directory name "<topic>-<n>". When
	// the directory is not named that way (a loose file, a test fixture
	// directory) Topic is the directory's base name and Partition is -1.
	Topic     string
	Partition int32
	// Dir is the partition directory (for loose files, their directory).
	Dir string
	// Segments are the .log files, sorted by base offset. When the
	// partition came from files named on the command line, only those.
	Segments []Segment
	// Snapshots are the KRaft snapshots (<offset>-<epoch>.checkpoint and
	// bootstrap.checkpoint): log-format files that are not part of the log.
	Snapshots []Segment
	// explicit is set when the partition was assembled from named files;
	// extra holds the named files that are not log-format (indexes,
	// producer snapshots), which only Files returns.
	explicit bool
	// named: explicit because files were named on the command line (not a
	// partition a resolver assembled, whose local segments come from a
	// directory and may end in an empty active segment): CheckNamed's.
	named bool
	extra []Segment
	// names are the directory's files (not sub-directories) in name
	// order, as listed when the partition was read from its directory.
	names []string
	// window is the query's window (Query.Apply).
	window *Window
}

// Segment is one log-format file of a partition, or a segment held
// elsewhere (fetched from a broker, in remote storage).
type Segment struct {
	// Path is the file, or for a segment with Open a name the user
	// recognises (used in output and errors).
	Path       string
	BaseOffset int64
	// Open, when set, gives the segment's bytes; without it Path is opened
	// as a file. The closer (may be nil) is called when the segment is done.
	Open func() (Source, io.Closer, error)
	// Size, for a segment with Open, is its size when known (progress).
	Size int64
	// Window, when set (Query.Apply), is what is read of the segment:
	// OpenSource and Stream.OpenSegment seek to it and yield only it.
	Window *Window
	// Ranged marks a segment whose source applies --from/--to itself (a
	// kafka:// fetch): its reader's OffsetRange gives the window's range.
	Ranged bool
	// Indexed marks a segment with Open whose Path is a local file with
	// its .index and .timeindex beside it, describing the bytes Open gives
	// (LocalTieredStorage): a seek uses them as for a partition's files.
	Indexed bool
	// unnamed marks a file named on the command line whose name is not a
	// log's (nor another known kind's): framed as a log, and not one if
	// no batch frames at its start.
	unnamed bool
}

// Resolver resolves a source argument that is not a local path
// ("kafka://...", "s3://...") into partitions whose segments have Open
// set; ok is false when arg is a path, which PartitionsVia then walks.
type Resolver func(arg string) (parts []Partition, ok bool, err error)

// NewRemotePartition is a partition assembled from segments held elsewhere
// (Dir is a name for it, such as the source argument).
func NewRemotePartition(topic string, partition int32, dir string, segs []Segment) Partition {
	p := Partition{Topic: topic, Partition: partition, Dir: dir, Segments: segs, explicit: true}
	sortSegments(p.Segments)
	return p
}

// Name is "<topic>-<partition>", or the bare directory name for a directory
// not named like a partition.
func (p *Partition) Name() string {
	if p.Partition < 0 {
		return p.Topic
	}
	return fmt.Sprintf("%s-%d", p.Topic, p.Partition)
}

// Partitions turns files, partition directories and log directories into
// partitions: a directory holding .log or KRaft .checkpoint files is a
// partition; any other directory is a log directory whose "<topic>-<n>"
// sub-directories are the partitions. Files named directly are grouped by
// directory, in offset order. Partitions are sorted by topic, then
// partition number, then directory; a partition reached twice is listed
// once. Every argument is a local path (see PartitionsVia for others).
func Partitions(paths []string) ([]Partition, error) {
	return PartitionsVia(paths, nil)
}

// PartitionsVia is Partitions with the arguments resolve claims resolved
// by it (nil: none), their partitions merged and sorted with the others.
func PartitionsVia(paths []string, resolve Resolver) ([]Partition, error) {
	var out []Partition
	byDir := map[string]int{} // cleaned dir -> index in out
	add := func(p Partition) {
		key := filepath.Clean(p.Dir)
		if i, ok := byDir[key]; ok {
			q := &out[i]
			if q.explicit && p.explicit {
				q.Segments = mergeSegments(q.Segments, p.Segments)
				q.Snapshots = mergeSegments(q.Snapshots, p.Snapshots)
				q.extra = mergeSegments(q.extra, p.extra)
			} else if !p.explicit {
				out[i] = p // the whole directory wins over a subset of it
			}
			return
		}
		byDir[key] = len(out)
		out = append(out, p)
	}
	for _, path := range paths {
		if resolve != nil {
			ps, ok, err := resolve(path)
			if err != nil {
				return nil, err
			}
			if ok {
				for _, p := range ps {
					add(p)
				}
				continue
			}
		}
		st, err := os.Stat(path)
		if err != nil {
			return nil, err
		}
		if !st.IsDir() {
			if !st.Mode().IsRegular() {
				// A FIFO, socket or device (/dev/zero) is no log: refused
				// here, before anything opens it.
				return nil, &Error{File: path, Offset: -1, Err: rfile.ErrNotRegular}
			}
			p := newPartition(filepath.Dir(path))
			p.explicit, p.named = true, true
			sn, _ := parseName(filepath.Base(path))
			seg := Segment{Path: path, BaseOffset: sn.BaseOffset}
			switch sn.Kind {
			case index.KindLog:
				p.Segments = []Segment{seg}
			case index.KindCheckpoint, index.KindBootstrap:
				p.Snapshots = []Segment{seg}
			default:
				// Not named like a log file: framed as one when counted
				// only if it is not a known non-log kind.
				if sn.Kind == index.KindUnknown {
					seg.unnamed = true
					p.Segments = []Segment{seg}
				} else {
					p.extra = []Segment{seg}
				}
			}
			add(p)
			continue
		}
		dirs, err := partitionDirs(path)
		if err != nil {
			return nil, err
		}
		ps, err := readPartitions(dirs)
		if err != nil {
			return nil, err
		}
		for _, p := range ps {
			add(p)
		}
	}
	sort.SliceStable(out, func(i, j int) bool {
		a, b := &out[i], &out[j]
		if a.Topic != b.Topic {
			return a.Topic < b.Topic
		}
		if a.Partition != b.Partition {
			return a.Partition < b.Partition
		}
		return a.Dir < b.Dir
	})
	return out, nil
}

func newPartition(dir string) Partition {
	base := filepath.Base(filepath.Clean(dir))
	if topic, num, ok := index.ParsePartitionDir(base); ok {
		return Partition{Topic: topic, Partition: num, Dir: dir}
	}
	return Partition{Topic: base, Partition: -1, Dir: dir}
}

func mergeSegments(a, b []Segment) []Segment {
	seen := map[string]bool{}
	for _, s := range a {
		seen[filepath.Clean(s.Path)] = true
	}
	for _, s := range b {
		if !seen[filepath.Clean(s.Path)] {
			a = append(a, s)
		}
	}
	sortSegments(a)
	return a
}

func sortSegments(s []Segment) {
	sort.SliceStable(s, func(i, j int) bool {
		if s[i].BaseOffset != s[j].BaseOffset {
			return s[i].BaseOffset < s[j].BaseOffset
		}
		return s[i].Path < s[j].Path
	})
}

// isPartitionFile reports files that make a directory a partition: .log
// files and <offset>-<epoch>.checkpoint KRaft snapshots. bootstrap.checkpoint
// lives in the log directory itself, so it does not count.
func isPartitionFile(name string) bool {
	if strings.HasSuffix(name, ".log") {
		return true
	}
	sn, err := index.ParseSegmentName(name)
	return err == nil && sn.Kind == index.KindCheckpoint
}

// partitionDirs returns p itself when it holds segment files, else its
// sub-directories that look like partitions.
func partitionDirs(p string) ([]string, error) {
	ents, err := os.ReadDir(p)
	if err != nil {
		return nil, err
	}
	for _, e := range ents {
		if !e.IsDir() && isPartitionFile(e.Name()) {
			return []string{p}, nil
		}
	}
	var out []string
	var self string // p resolved, once a symlink needs it
	for _, e := range ents {
		if _, _, ok := index.ParsePartitionDir(e.Name()); !ok {
			continue
		}
		q := filepath.Join(p, e.Name())
		if e.Type()&os.ModeSymlink != 0 {
			// A partition directory linked from elsewhere (a moved
			// partition, a second disk) is a partition: followed once,
			// the walk goes no deeper. A link that loops (ELOOP), dangles,
			// or leads back to p or above it is left out.
			st, err := os.Stat(q)
			if err != nil || !st.IsDir() {
				continue
			}
			if self == "" {
				if self, err = filepath.EvalSymlinks(p); err != nil {
					self = filepath.Clean(p)
				}
			}
			real, err := filepath.EvalSymlinks(q)
			if err != nil || real == self || strings.HasPrefix(self, real+string(filepath.Separator)) {
				continue
			}
		} else if !e.IsDir() {
			continue
		}
		out = append(out, q)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("%s: %w", p, ErrNoPartitions)
	}
	return out, nil
}

// parseName classifies a file in a partition directory; a .log file whose
// stem is not an offset still counts as a log (base offset 0). Files in a
// transient state (.deleted, .cleaned, .swap) are left out.
func parseName(name string) (index.SegmentName, bool) {
	sn, err := index.ParseSegmentName(name)
	if err != nil {
		if strings.HasSuffix(name, ".log") {
			return index.SegmentName{Name: name, Kind: index.KindLog}, true
		}
		return sn, false
	}
	return sn, sn.State == index.StateNone
}

// readPartitions reads the partition directories dirs on GOMAXPROCS
// goroutines (listing a directory is a few system calls that wait on the
// kernel, so a log directory of thousands of small partitions lists in
// about half the time on two CPUs). The result is in the order of dirs;
// on failure, the error of the first failing directory in that order.
func readPartitions(dirs []string) ([]Partition, error) {
	out := make([]Partition, len(dirs))
	errs := make([]error, len(dirs))
	workers := min(runtime.GOMAXPROCS(0), len(dirs)/64+1)
	eachIndex(len(dirs), workers, func() func(int) {
		buf := make([]byte, 8<<10)
		return func(i int) { out[i], errs[i] = readPartition(dirs[i], buf) }
	})
	if err := firstErr(errs); err != nil {
		return nil, err
	}
	return out, nil
}

// readPartition lists a partition directory's log-format files (buf is
// listFiles' buffer).
func readPartition(dir string, buf []byte) (Partition, error) {
	p := newPartition(dir)
	names, err := listFiles(dir, buf)
	if err != nil {
		return p, err
	}
	if names == nil {
		names = []string{}
	}
	p.names = names
	for _, name := range names {
		sn, ok := parseName(name)
		if !ok {
			continue
		}
		seg := Segment{Path: filepath.Join(dir, name), BaseOffset: sn.BaseOffset}
		switch sn.Kind {
		case index.KindLog:
			p.Segments = append(p.Segments, seg)
		case index.KindCheckpoint, index.KindBootstrap:
			p.Snapshots = append(p.Snapshots, seg)
		}
	}
	sortSegments(p.Segments)
	sortSegments(p.Snapshots)
	return p, nil
}

// Files lists the partition's files for a dump, in base-offset order: each
// .log or KRaft snapshot, then (with all) its .index, .timeindex,
// .txnindex and the producer .snapshot named by that offset. For a
// partition assembled from named files, exactly those files.
func (p *Partition) Files(all bool) ([]string, error) {
	if p.explicit {
		fs := append(append(append([]Segment(nil), p.Segments...), p.Snapshots...), p.extra...)
		sortSegments(fs)
		out := make([]string, len(fs))
		for i, s := range fs {
			out[i] = s.Path
		}
		return out, nil
	}
	names := p.names
	if names == nil { // a Partition made by hand, not by the walker
		var err error
		if names, err = listFiles(p.Dir, make([]byte, 8<<10)); err != nil {
			return nil, err
		}
	}
	rank := map[index.FileKind]int{index.KindLog: 0, index.KindCheckpoint: 0, index.KindBootstrap: 0,
		index.KindIndex: 1, index.KindTimeIndex: 2, index.KindTxnIndex: 3, index.KindSnapshot: 4}
	type f struct {
		name string
		off  int64
		rank int
	}
	var fs []f
	for _, name := range names {
		sn, ok := parseName(name)
		if !ok {
			continue
		}
		r, ok := rank[sn.Kind]
		if !ok || (!all && r != 0) {
			continue
		}
		fs = append(fs, f{filepath.Join(p.Dir, name), sn.BaseOffset, r})
	}
	sort.SliceStable(fs, func(i, j int) bool {
		if fs[i].off != fs[j].off {
			return fs[i].off < fs[j].off
		}
		if fs[i].rank != fs[j].rank {
			return fs[i].rank < fs[j].rank
		}
		return fs[i].name < fs[j].name
	})
	out := make([]string, len(fs))
	for i, x := range fs {
		out[i] = x.name
	}
	return out, nil
}

// Size is the total size of the partition's log segments in bytes (files
// that cannot be stat'ed count 0; opening them reports the error).
func (p *Partition) Size() int64 {
	var n int64
	for _, s := range p.Segments {
		if s.Open != nil {
			n += s.Size
		} else if st, err := os.Stat(s.Path); err == nil {
			n += st.Size()
		}
	}
	return n
}

// Listing returns the names of the files (not sub-directories) in the
// partition's directory, in name order, as listed when the partition was
// read from it; nil for a partition assembled from named files or held
// elsewhere (Explicit).
func (p *Partition) Listing() []string { return p.names }

// NotLogs returns the files named on the command line that are of a known
// kind other than log-format (indexes, producer snapshots, checkpoints
// other than KRaft snapshots): Files lists them for a dump, and commands
// that count batches refuse them (ErrNotLog).
func (p *Partition) NotLogs() []string {
	var out []string
	for _, s := range p.extra {
		out = append(out, s.Path)
	}
	return out
}

// CheckNamed refuses, with ErrNotLog and ErrEmptyFile, an empty file named
// on the command line as a log (a .log, a KRaft snapshot, or a file of no
// known kind): inside a partition directory an empty .log is the active
// segment, but one named by itself holds nothing to read. kseg's commands
// call it on what they walked; kafka-dump-log's --files form does not, and
// prints its header lines for an empty file as Kafka does. It stats only
// the files named, never a directory's.
func CheckNamed(parts []Partition) error {
	for i := range parts {
		if !parts[i].named {
			continue
		}
		for _, segs := range [][]Segment{parts[i].Segments, parts[i].Snapshots} {
			for _, s := range segs {
				if s.Open != nil {
					continue
				}
				if st, err := os.Stat(s.Path); err == nil && st.Mode().IsRegular() && st.Size() == 0 {
					return &Error{File: s.Path, Offset: 0, Err: fmt.Errorf("%w: %w", ErrNotLog, ErrEmptyFile)}
				}
			}
		}
	}
	return nil
}

// Explicit reports whether the partition was assembled from files named on
// the command line (only those segments) rather than from its directory.
func (p *Partition) Explicit() bool { return p.explicit }
