package audit

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"

	"github.com/kseg/kseg/index"
)

// Partition is the set of files the audit reads for one partition.
type Partition struct {
	Name string // the directory's base name, e.g. orders-0
	Dir  string
	// Logs are the segment files in base-offset order.
	Logs []string
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

// Partitions expands paths (segment files, partition directories or log
// directories) into partitions, sorted by topic then partition number.
// Segment files named directly are grouped by directory.
//
// TODO: switch to segment.Partitions when it lands on main.
func Partitions(paths []string) ([]*Partition, error) {
	byDir := map[string]*Partition{}
	var order []*Partition
	add := func(dir string) *Partition {
		if p, ok := byDir[dir]; ok {
			return p
		}
		p := &Partition{Name: filepath.Base(dir), Dir: dir}
		byDir[dir] = p
		order = append(order, p)
		return p
	}
	for _, path := range paths {
		st, err := os.Stat(path)
		if err != nil {
			return nil, err
		}
		if !st.IsDir() {
			p := add(filepath.Dir(path))
			if !p.Whole {
				p.Logs = append(p.Logs, path)
			}
			continue
		}
		dirs, err := partitionDirs(path)
		if err != nil {
			return nil, err
		}
		for _, d := range dirs {
			p := add(d)
			if err := p.fill(); err != nil {
				return nil, err
			}
		}
	}
	for _, p := range order {
		if !p.Whole {
			sortByBase(p.Logs)
		}
	}
	sort.SliceStable(order, func(i, j int) bool {
		ti, ni, oki := index.ParsePartitionDir(order[i].Name)
		tj, nj, okj := index.ParsePartitionDir(order[j].Name)
		if oki && okj {
			if ti != tj {
				return ti < tj
			}
			return ni < nj
		}
		return order[i].Dir < order[j].Dir
	})
	return order, nil
}

// partitionDirs returns dir itself when it holds segment files, else its
// sub-directories named like partitions.
func partitionDirs(dir string) ([]string, error) {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	var subs []string
	for _, e := range ents {
		if e.IsDir() {
			if _, _, ok := index.ParsePartitionDir(e.Name()); ok {
				subs = append(subs, filepath.Join(dir, e.Name()))
			}
			continue
		}
		if sn, err := index.ParseSegmentName(e.Name()); err == nil && sn.Kind == index.KindLog {
			return []string{dir}, nil
		}
	}
	if len(subs) == 0 {
		// A partition directory with no segment at all (all files deleted)
		// is still a partition when its name says so.
		if _, _, ok := index.ParsePartitionDir(filepath.Base(dir)); ok {
			return []string{dir}, nil
		}
		return nil, fmt.Errorf("%s: no segment files and no partition directories (<topic>-<partition>) inside", dir)
	}
	return subs, nil
}

// fill lists the partition's files.
func (p *Partition) fill() error {
	ents, err := os.ReadDir(p.Dir)
	if err != nil {
		return err
	}
	p.Whole = true
	p.Logs, p.TxnIndexes, p.Snapshots = nil, nil, nil
	for _, e := range ents {
		if e.IsDir() {
			continue
		}
		sn, err := index.ParseSegmentName(e.Name())
		if err != nil {
			continue
		}
		path := filepath.Join(p.Dir, e.Name())
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
	return nil
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
