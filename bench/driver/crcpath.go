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
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	b := &crcBench{path: path, f: f, size: st.Size()}
	// The first 256 MiB (far larger than the caches), for the CRC over
	// memory-streamed bytes, repeated to the file's size.
	b.whole = make([]byte, min(b.size, 256<<20))
	if _, err := io.ReadFull(f, b.whole); err != nil {
		return err
	}
	blocks := []int{128 << 10, 256 << 10, 512 << 10, 1 << 20}
	figs := b.memoryFigs()
	figs = append(figs, b.readFigs(blocks)...)
	figs = append(figs, b.readCRCFigs(blocks)...)
	figs = append(figs, b.halvesFig())
	figs = append(figs, b.scanFigs(blocks)...)
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
	b.print(figs, rounds, len(blocks))
	return nil
}

// crcBench is the file crcPath measures: open, with its first bytes
// loaded (whole). sink keeps the CRCs computed.
type crcBench struct {
	path  string
	f     *os.File
	size  int64
	whole []byte
	sink  uint32
}

// crcFig is one figure of crcPath: its best time over the rounds.
type crcFig struct {
	name string
	run  func() error
	best float64
}

// memoryFigs are CRC-32C over bytes in cache and over bytes streamed
// from memory.
func (c *crcBench) memoryFigs() []*crcFig {
	size, whole := c.size, c.whole
	return []*crcFig{
		{name: "CRC-32C in cache (1 MiB, repeated)", run: func() error {
			b := whole[:min(size, 1<<20)]
			for n := int64(0); n < size; n += int64(len(b)) {
				c.sink ^= batch.CRC32C(b)
			}
			return nil
		}},
		{name: "CRC-32C over bytes streamed from memory", run: func() error {
			for n := int64(0); n < size; {
				for off := 0; off < len(whole) && n < size; off += 1 << 20 {
					b := whole[off:min(len(whole), off+1<<20)]
					b = b[:min(int64(len(b)), size-n)]
					c.sink ^= batch.CRC32C(b)
					n += int64(len(b))
				}
			}
			return nil
		}},
	}
}

// readFigs are read(2)'s copy out of the page cache alone, one figure
// per block size.
func (c *crcBench) readFigs(blocks []int) []*crcFig {
	var figs []*crcFig
	for _, bs := range blocks {
		buf := make([]byte, bs)
		figs = append(figs, &crcFig{name: fmt.Sprintf("read(2) copy alone, %d KiB reads", bs>>10), run: func() error {
			for off := int64(0); off < c.size; off += int64(bs) {
				if _, err := c.f.ReadAt(buf[:min(int64(bs), c.size-off)], off); err != nil {
					return err
				}
			}
			return nil
		}})
	}
	return figs
}

// readCRCFigs are a read followed by a CRC of what was read, one figure
// per block size.
func (c *crcBench) readCRCFigs(blocks []int) []*crcFig {
	var figs []*crcFig
	for _, bs := range blocks {
		buf := make([]byte, bs)
		figs = append(figs, &crcFig{name: fmt.Sprintf("read(2) then CRC of the block, %d KiB", bs>>10), run: func() error {
			for off := int64(0); off < c.size; off += int64(bs) {
				b := buf[:min(int64(bs), c.size-off)]
				if _, err := c.f.ReadAt(b, off); err != nil {
					return err
				}
				c.sink ^= batch.CRC32C(b)
			}
			return nil
		}})
	}
	return figs
}

// halvesFig is two cores, each copying and checking its own half in its
// own cache: the ceiling of a scan split across CPUs (audit does not
// split one segment; --workers splits partitions).
func (c *crcBench) halvesFig() *crcFig {
	halves := [2][]byte{make([]byte, 1<<20), make([]byte, 1<<20)}
	return &crcFig{name: "read(2) then CRC, 1 MiB, two goroutines (halves)", run: func() error {
		var wg sync.WaitGroup
		var errs [2]error
		var sinks [2]uint32
		mid := c.size / 2
		for h := 0; h < 2; h++ {
			from, to := int64(0), mid
			if h == 1 {
				from, to = mid, c.size
			}
			wg.Add(1)
			go func() {
				defer wg.Done()
				buf := halves[h]
				for off := from; off < to; off += int64(len(buf)) {
					b := buf[:min(int64(len(buf)), to-off)]
					if _, err := c.f.ReadAt(b, off); err != nil {
						errs[h] = err
						return
					}
					sinks[h] ^= batch.CRC32C(b)
				}
			}()
		}
		wg.Wait()
		c.sink ^= sinks[0] ^ sinks[1]
		return errors.Join(errs[0], errs[1])
	}}
}

// scanFigs are the CRC scan itself (segment.Stream with VerifyCRC, as
// audit runs it), one figure per block size.
func (c *crcBench) scanFigs(blocks []int) []*crcFig {
	var figs []*crcFig
	for _, bs := range blocks {
		figs = append(figs, &crcFig{name: fmt.Sprintf("CRC scan (Stream, VerifyCRC), %d KiB reads", bs>>10), run: func() error {
			s, err := segment.OpenFile(c.path, 0, segment.Options{VerifyCRC: true, BlockSize: bs})
			if err != nil {
				return err
			}
			defer s.Close()
			for s.Next() {
			}
			return s.Err()
		}})
	}
	return figs
}

// print writes every figure and the ratios between them; figs are in
// crcPath's order, nBlocks figures per block-size group.
func (c *crcBench) print(figs []*crcFig, rounds, nBlocks int) {
	mbs := func(sec float64) float64 { return float64(c.size) / sec / 1e6 }
	fmt.Printf("%s: %d bytes, best of %d rounds (MB/s of file)\n", c.path, c.size, rounds)
	for _, g := range figs {
		fmt.Printf("  %-48s %8.1f MB/s\n", g.name, mbs(g.best))
	}
	inCache, streamed := mbs(figs[0].best), mbs(figs[1].best)
	read1M := mbs(figs[2+nBlocks-1].best)
	bound := 1 / (1/read1M + 1/inCache)
	scan := mbs(figs[len(figs)-1].best)
	fmt.Printf("  copy then CRC, one core, at best (1/(1/read + 1/CRC in cache)): %.1f MB/s = %.2f of CRC in cache\n", bound, bound/inCache)
	fmt.Printf("  CRC scan (1 MiB reads): %.2f of CRC in cache, %.2f of CRC over streamed memory, %.2f of the copy-then-CRC bound\n",
		scan/inCache, scan/streamed, scan/bound)
}
