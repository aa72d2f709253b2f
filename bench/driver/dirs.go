package main

import (
	"os"
	"sync"

	"github.com/kseg/kseg/segment"
)

// walkDir lists the partitions of a log directory (segment.Partitions):
// the cost of finding the files, without opening them.
func walkDir(dir string) (int64, error) {
	ps, err := segment.Partitions([]string{dir})
	return int64(len(ps)), err
}

// readDir lists the partitions, then opens and reads every segment on two
// goroutines: the floor under count and audit on many small partitions.
// It returns the bytes read.
func readDir(dir string) (int64, error) {
	ps, err := segment.Partitions([]string{dir})
	if err != nil {
		return 0, err
	}
	var paths []string
	for _, p := range ps {
		for _, s := range p.Segments {
			paths = append(paths, s.Path)
		}
	}
	var (
		mu    sync.Mutex
		total int64
		first error
		wg    sync.WaitGroup
	)
	next := make(chan string)
	for range 2 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			buf := make([]byte, 1<<20)
			for p := range next {
				n, err := readAll(p, buf)
				mu.Lock()
				total += n
				if err != nil && first == nil {
					first = err
				}
				mu.Unlock()
			}
		}()
	}
	for _, p := range paths {
		next <- p
	}
	close(next)
	wg.Wait()
	return total, first
}

func readAll(path string, buf []byte) (int64, error) {
	f, err := os.Open(path)
	if err != nil {
		return 0, err
	}
	defer f.Close()
	var n int64
	for {
		m, err := f.Read(buf)
		n += int64(m)
		if m == 0 || err != nil {
			return n, nil
		}
	}
}
