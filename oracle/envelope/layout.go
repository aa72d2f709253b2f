package main

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"

	"github.com/kseg/kseg/segment"
)

// BatchInfo is what the envelope data keeps of one batch the broker wrote.
type BatchInfo struct {
	BaseOffset int64
	Records    int
	Bytes      int64 // the whole batch, 61-byte header included
}

// readPartition lists the batches of a partition directory, in offset order,
// read from its .log files with kseg's own reader (checksums verified).
// A partition that never got a record has no .log data: no batches.
func readPartition(dir string) ([]BatchInfo, error) {
	logs, err := filepath.Glob(filepath.Join(dir, "*.log"))
	if err != nil {
		return nil, err
	}
	if _, err := os.Stat(dir); err != nil {
		return nil, err
	}
	sort.Strings(logs)
	var out []BatchInfo
	for _, path := range logs {
		s, err := segment.OpenFile(path, 0, segment.Options{VerifyCRC: true})
		if err != nil {
			return nil, err
		}
		for s.Next() {
			in, err := s.Batch().Info()
			if err != nil {
				s.Close()
				return nil, err
			}
			if in.Control || in.Magic < 2 {
				s.Close()
				return nil, fmt.Errorf("%s at %d: a control or legacy batch in a producer's partition", path, in.Pos)
			}
			out = append(out, BatchInfo{BaseOffset: in.BaseOffset, Records: in.Records, Bytes: in.Size})
		}
		err = s.Err()
		s.Close()
		if err != nil {
			return nil, err
		}
	}
	return out, nil
}
