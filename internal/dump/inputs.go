package dump

import (
	"path/filepath"
	"strings"

	"github.com/kseg/kseg/internal/rfile"
	"github.com/kseg/kseg/segment"
)

// The segments a dump reads: files, and logs held elsewhere that
// segment.Partitions, or a function like it, resolved.

// File is the segment Dump reads from the file at path, whatever its kind.
func File(path string) segment.Segment { return segment.Segment{Path: path} }

// Inputs are the segments to dump: --files as given, or the kseg-form
// paths expanded by partitions (segments in offset order, partitions
// sorted; indexes and snapshots too with --all-files). partitions is how
// the caller resolves paths, segment.Partitions or one like it: a path it
// resolves to segments held elsewhere (a broker, remote storage) gives
// segments with Open; every other input is a File.
func (a *Args) Inputs(partitions func(paths []string) ([]segment.Partition, error)) ([]segment.Segment, error) {
	if a.KafkaForm {
		out := make([]segment.Segment, len(a.Files))
		for i, f := range a.Files {
			out[i] = File(f)
		}
		return out, nil
	}
	parts, err := partitions(a.Paths)
	if err != nil {
		return nil, err
	}
	var out []segment.Segment
	for i := range parts {
		segs, err := partitionInputs(&parts[i], a.AllFiles)
		if err != nil {
			return nil, err
		}
		out = append(out, segs...)
	}
	return out, nil
}

// partitionInputs are p's files to dump (with all, its indexes and
// snapshots too), each the segment p holds by that name when p's segments
// are held elsewhere, else a File.
func partitionInputs(p *segment.Partition, all bool) ([]segment.Segment, error) {
	names, err := p.Files(all)
	if err != nil {
		return nil, err
	}
	held := map[string]segment.Segment{}
	stems := map[string]bool{} // with a window: the kept segments' files
	for _, s := range p.Segments {
		if s.Open != nil || s.Window != nil {
			held[s.Path] = s
		}
		stems[strings.TrimSuffix(s.Path, filepath.Ext(s.Path))] = true
	}
	out := make([]segment.Segment, 0, len(names))
	for _, name := range names {
		s, ok := held[name]
		if !ok {
			if p.Window() != nil && !stems[strings.TrimSuffix(name, filepath.Ext(name))] {
				continue // a segment outside --from/--to, or its index
			}
			s = File(name)
		}
		out = append(out, s)
	}
	return out, nil
}

// Size is the total size of the files among segs' paths: what a dump of
// them reads, for a progress line's ETA.
func Size(segs []segment.Segment) int64 {
	paths := make([]string, len(segs))
	for i, s := range segs {
		paths[i] = s.Path
	}
	return rfile.TotalSize(paths, 0)
}
