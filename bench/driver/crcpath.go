package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"sync"
	"time"

	"github.com/kseg/kseg/batch"
	"github.com/kseg/kseg/segment"
)

// crcPath prints, from one run, the figures that bound audit's CRC scan
// over a file in the page cache: CRC-32C over bytes in cache, CRC-32C over
// bytes streamed from memory (the file loaded into the process, larger
// than the caches), read(2)'s copy out of the page cache, a read followed
// by a CRC of what was read at several block sizes (the floor of any path
// that copies on one core), and the CRC scan itself (segment.Stream with
// VerifyCRC, as audit runs it) at the same block sizes. Each figure is the
// best of rounds, taken in turns so that all see the same machine.
func crcPath(path string, rounds int) error {
	st, err := os.Stat(path)
	if err != nil {
		return err
	}
	size := st.Size()
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	// The first 256 MiB (far larger than the caches), for the CRC over
	// memory-streamed bytes, repeated to the file's size.
	whole := make([]byte, min(size, 256<<20))
	if _, err := io.ReadFull(f, whole); err != nil {
		return err
	}
	blocks := []int{128 << 10, 256 << 10, 512 << 10, 1 << 20}
	type fig struct {
		name string
		run  func() error
		best float64
	}
	var sink uint32
	figs := []*fig{
		{name: "CRC-32C in cache (1 MiB, repeated)", run: func() error {
			b := whole[:min(size, 1<<20)]
			for n := int64(0); n < size; n += int64(len(b)) {
				sink ^= batch.CRC32C(b)
			}
			return nil
		}},
		{name: "CRC-32C over bytes streamed from memory", run: func() error {
			for n := int64(0); n < size; {
				for off := 0; off < len(whole) && n < size; off += 1 << 20 {
					b := whole[off:min(len(whole), off+1<<20)]
					b = b[:min(int64(len(b)), size-n)]
					sink ^= batch.CRC32C(b)
					n += int64(len(b))
				}
			}
			return nil
		}},
	}
	for _, bs := range blocks {
		buf := make([]byte, bs)
		figs = append(figs, &fig{name: fmt.Sprintf("read(2) copy alone, %d KiB reads", bs>>10), run: func() error {
			for off := int64(0); off < size; off += int64(bs) {
				if _, err := f.ReadAt(buf[:min(int64(bs), size-off)], off); err != nil {
					return err
				}
			}
			return nil
		}})
	}
	for _, bs := range blocks {
		buf := make([]byte, bs)
		figs = append(figs, &fig{name: fmt.Sprintf("read(2) then CRC of the block, %d KiB", bs>>10), run: func() error {
			for off := int64(0); off < size; off += int64(bs) {
				b := buf[:min(int64(bs), size-off)]
				if _, err := f.ReadAt(b, off); err != nil {
					return err
				}
				sink ^= batch.CRC32C(b)
			}
			return nil
		}})
	}
	// Two cores, each copying and checking its own half in its own cache:
	// the ceiling of a scan split across CPUs (audit does not split one
	// segment; --workers splits partitions).
	halves := [2][]byte{make([]byte, 1<<20), make([]byte, 1<<20)}
	figs = append(figs, &fig{name: "read(2) then CRC, 1 MiB, two goroutines (halves)", run: func() error {
		var wg sync.WaitGroup
		var errs [2]error
		var sinks [2]uint32
		mid := size / 2
		for h := 0; h < 2; h++ {
			from, to := int64(0), mid
			if h == 1 {
				from, to = mid, size
			}
			wg.Add(1)
			go func() {
				defer wg.Done()
				buf := halves[h]
				for off := from; off < to; off += int64(len(buf)) {
					b := buf[:min(int64(len(buf)), to-off)]
					if _, err := f.ReadAt(b, off); err != nil {
						errs[h] = err
						return
					}
					sinks[h] ^= batch.CRC32C(b)
				}
			}()
		}
		wg.Wait()
		sink ^= sinks[0] ^ sinks[1]
		return errors.Join(errs[0], errs[1])
	}})
	for _, bs := range blocks {
		figs = append(figs, &fig{name: fmt.Sprintf("CRC scan (Stream, VerifyCRC), %d KiB reads", bs>>10), run: func() error {
			s, err := segment.OpenFile(path, 0, segment.Options{VerifyCRC: true, BlockSize: bs})
			if err != nil {
				return err
			}
			defer s.Close()
			for s.Next() {
			}
			return s.Err()
		}})
	}
	for r := 0; r < rounds; r++ {
		for _, g := range figs {
			t := time.Now()
			if err := g.run(); err != nil {
				return fmt.Errorf("%s: %w", g.name, err)
			}
			if sec := time.Since(t).Seconds(); r == 0 || sec < g.best {
				g.best = sec
			}
		}
	}
	_ = sink
	mbs := func(sec float64) float64 { return float64(size) / sec / 1e6 }
	fmt.Printf("%s: %d bytes, best of %d rounds (MB/s of file)\n", path, size, rounds)
	for _, g := range figs {
		fmt.Printf("  %-48s %8.1f MB/s\n", g.name, mbs(g.best))
	}
	inCache, streamed := mbs(figs[0].best), mbs(figs[1].best)
	read1M := mbs(figs[2+len(blocks)-1].best)
	bound := 1 / (1/read1M + 1/inCache)
	scan := mbs(figs[len(figs)-1].best)
	fmt.Printf("  copy then CRC, one core, at best (1/(1/read + 1/CRC in cache)): %.1f MB/s = %.2f of CRC in cache\n", bound, bound/inCache)
	fmt.Printf("  CRC scan (1 MiB reads): %.2f of CRC in cache, %.2f of CRC over streamed memory, %.2f of the copy-then-CRC bound\n",
		scan/inCache, scan/streamed, scan/bound)
	return nil
}
