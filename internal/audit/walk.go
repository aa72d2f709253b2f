package audit

import (
	"io"
	"path/filepath"
	"sort"

	"github.com/kseg/kseg/index"
	"github.com/kseg/kseg/segment"
)

// Partition is the set of files the audit reads for one partition.
type Partition struct {
	Name string // the directory's base name, e.g. orders-0
	Dir  string
	// Logs are the segment files in base-offset order.
	Logs []string
	// Remote, when set, gives the bytes of Logs (Remote[i] is Logs[i]):
	// segments fetched from a broker or a remote store, or in memory.
	Remote []segment.Segment
	// TxnIndexes and Snapshots are the partition's .txnindex files and
	// producer snapshots, in offset order. Empty when only files were given.
	TxnIndexes []string
	Snapshots  []string
	// CleanerFiles reports .cleaned or .swap files: the log cleaner has
	// been at work on this partition.
	CleanerFiles bool
	// Whole is true when the directory was given (or found), false when
	// only some of its segment files were named: then the audit does not
	// compare against .txnindex files or snapshots.
	Whole bool
}

// FromSources is a partition whose segments are held in srcs, in offset
// order, named by their Name (a segment file name, so that base offsets
// can be read from it).
func FromSources(name string, srcs ...segment.Source) *Partition {
	p := &Partition{Name: name}
	for _, s := range srcs {
		p.Logs = append(p.Logs, s.Name)
		p.Remote = append(p.Remote, segment.Segment{Path: s.Name, Size: s.Size,
			Open: func() (segment.Source, io.Closer, error) { return s, nil, nil }})
	}
	return p
}

// Partitions expands paths (segment files, partition directories or log
// directories) with segment.Partitions, the walker every command shares,
// and adds the files the audit compares the log against. An error holds a
// *segment.Error naming the path (at byte -1).
func Partitions(paths []string) ([]*Partition, error) {
	return PartitionsFrom(paths, segment.Partitions)
}

// PartitionsFrom is Partitions with the paths expanded by walk (a
// command's sources, which read kafka:// and remote stores too).
func PartitionsFrom(paths []string, walk func([]string) ([]segment.Partition, error)) ([]*Partition, error) {
	parts, err := walk(paths)
	if err != nil {
		return nil, locate(failingPath(paths, walk), -1, err)
	}
	out := make([]*Partition, 0, len(parts))
	for i := range parts {
		out = append(out, FromSegments(&parts[i]))
	}
	return out, nil
}

// FromSegments is the audit's partition of a walked one: the files named,
// or the whole directory with the files the log is compared against.
func FromSegments(sp *segment.Partition) *Partition {
	p := &Partition{Name: filepath.Base(sp.Dir), Dir: sp.Dir}
	if sp.Explicit() || sp.Window() != nil {
		// Named files, remote segments, or a window (--from/--to, filters):
		// the segments as given, opened as they say (a window's seek and
		// selection), without the directory's snapshots and indexes, which
		// describe the whole log.
		for _, s := range sp.Segments {
			p.Logs = append(p.Logs, s.Path)
			if s.Open != nil || s.Window != nil {
				p.Remote = sp.Segments
			}
		}
	} else {
		p.fill(sp.Listing()) // the walker's listing: the directory is read once
	}
	return p
}

// failingPath is the path walk fails on, found by trying each alone (""
// when none fails alone).
func failingPath(paths []string, walk func([]string) ([]segment.Partition, error)) string {
	if len(paths) == 1 {
		return paths[0]
	}
	for _, p := range paths {
		if _, err := walk([]string{p}); err != nil {
			return p
		}
	}
	return ""
}

// fill sorts the files of the partition's directory (names, as listed by
// the walker) into logs, transaction indexes and producer snapshots.
func (p *Partition) fill(names []string) {
	p.Whole = true
	p.Logs, p.TxnIndexes, p.Snapshots = nil, nil, nil
	for _, name := range names {
		sn, err := index.ParseSegmentName(name)
		if err != nil {
			continue
		}
		path := filepath.Join(p.Dir, name)
		switch sn.State {
		case index.StateCleaned, index.StateSwap:
			p.CleanerFiles = true
			continue
		case index.StateNone:
		default:
			continue
		}
		switch sn.Kind {
		case index.KindLog:
			p.Logs = append(p.Logs, path)
		case index.KindTxnIndex:
			p.TxnIndexes = append(p.TxnIndexes, path)
		case index.KindSnapshot:
			p.Snapshots = append(p.Snapshots, path)
		}
	}
	sortByBase(p.Logs)
	sortByBase(p.TxnIndexes)
	sortByBase(p.Snapshots)
}

// baseOf is the offset in a file's name, or -1.
func baseOf(path string) int64 {
	sn, err := index.ParseSegmentName(filepath.Base(path))
	if err != nil {
		return -1
	}
	return sn.BaseOffset
}

func sortByBase(paths []string) {
	sort.SliceStable(paths, func(i, j int) bool { return baseOf(paths[i]) < baseOf(paths[j]) })
}
