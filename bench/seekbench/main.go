// Command seekbench measures --from/--to on a large partition, for
// bench/seek.sh.
//
//	seekbench grow SRC OUT COPIES   write OUT, a partition of COPIES copies of the
//	                                partition SRC's segments, one after another: each
//	                                copy's batches get offsets and timestamps shifted
//	                                past the previous copy's (CRCs recomputed), and
//	                                its .index/.timeindex entries follow (an index's
//	                                offsets are relative, so only timestamps change)
//	seekbench measure PART OFFSET MS  run kseg dump in process with --from OFFSET
//	                                --to OFFSET+10, then with --from @MS, then kseg count
//	                                over the whole partition; for each: the time to the
//	                                first batch line, the total time and the bytes the
//	                                process read (/proc/self/io rchar: log and indexes)
package main

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"fmt"
	"hash/crc32"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/kseg/kseg/cmd"
	"github.com/kseg/kseg/internal/procio"
)

func main() {
	var err error
	switch {
	case len(os.Args) == 5 && os.Args[1] == "grow":
		copies, _ := strconv.Atoi(os.Args[4])
		err = grow(os.Args[2], os.Args[3], max(copies, 1))
	case len(os.Args) == 5 && os.Args[1] == "measure":
		err = measure(os.Args[2], os.Args[3], os.Args[4])
	default:
		err = fmt.Errorf("usage: seekbench grow SRC OUT COPIES | seekbench measure PART OFFSET MS")
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "seekbench:", err)
		os.Exit(1)
	}
}

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// span is what the source partition holds: its segments' base offsets,
// the offset after its last record and its timestamps.
type span struct {
	bases        []int64
	next         int64
	minTs, maxTs int64
}

func grow(src, out string, copies int) error {
	names, err := filepath.Glob(filepath.Join(src, "*.log"))
	if err != nil || len(names) == 0 {
		return fmt.Errorf("%s: no .log files", src)
	}
	sort.Strings(names)
	sp := span{minTs: 1<<63 - 1, maxTs: -1 << 63}
	for _, n := range names {
		base, err := strconv.ParseInt(strings.TrimSuffix(filepath.Base(n), ".log"), 10, 64)
		if err != nil {
			return err
		}
		sp.bases = append(sp.bases, base)
		if err := eachBatch(n, nil, func(h []byte) {
			last := int64(binary.BigEndian.Uint64(h[0:])) + int64(int32(binary.BigEndian.Uint32(h[23:])))
			sp.next = max(sp.next, last+1)
			sp.minTs = min(sp.minTs, int64(binary.BigEndian.Uint64(h[27:])))
			sp.maxTs = max(sp.maxTs, int64(binary.BigEndian.Uint64(h[35:])))
		}); err != nil {
			return err
		}
	}
	if err := os.MkdirAll(out, 0o755); err != nil {
		return err
	}
	dt := sp.maxTs - sp.minTs + 1
	for k := 0; k < copies; k++ {
		doff, dts := int64(k)*sp.next, int64(k)*dt
		for i, n := range names {
			stem := fmt.Sprintf("%020d", sp.bases[i]+doff)
			f, err := os.Create(filepath.Join(out, stem+".log"))
			if err != nil {
				return err
			}
			w := bufio.NewWriterSize(f, 4<<20)
			err = eachBatch(n, w, func(b []byte) {
				binary.BigEndian.PutUint64(b[0:], binary.BigEndian.Uint64(b[0:])+uint64(doff))
				binary.BigEndian.PutUint64(b[27:], binary.BigEndian.Uint64(b[27:])+uint64(dts))
				binary.BigEndian.PutUint64(b[35:], binary.BigEndian.Uint64(b[35:])+uint64(dts))
				binary.BigEndian.PutUint32(b[17:], crc32.Checksum(b[21:], castagnoli))
			})
			if err == nil {
				err = w.Flush()
			}
			if cerr := f.Close(); err == nil {
				err = cerr
			}
			if err != nil {
				return err
			}
			srcStem := strings.TrimSuffix(n, ".log")
			idx, err := os.ReadFile(srcStem + ".index")
			if err != nil {
				return err
			}
			if err := os.WriteFile(filepath.Join(out, stem+".index"), idx, 0o644); err != nil {
				return err
			}
			tidx, err := os.ReadFile(srcStem + ".timeindex")
			if err != nil {
				return err
			}
			for j := 0; j+12 <= len(tidx); j += 12 {
				binary.BigEndian.PutUint64(tidx[j:], binary.BigEndian.Uint64(tidx[j:])+uint64(dts))
			}
			if err := os.WriteFile(filepath.Join(out, stem+".timeindex"), tidx, 0o644); err != nil {
				return err
			}
		}
		fmt.Fprintf(os.Stderr, "copy %d/%d\n", k+1, copies)
	}
	fmt.Printf("offsets 0..%d, timestamps %d..%d\n", int64(copies)*sp.next-1, sp.minTs, sp.minTs+int64(copies)*dt-1)
	return nil
}

// eachBatch calls fn with every v2 batch of the log at path (whole, from
// its base offset on), and writes the batches to w when it is not nil.
func eachBatch(path string, w io.Writer, fn func([]byte)) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	r := bufio.NewReaderSize(f, 4<<20)
	var buf []byte
	for {
		var head [12]byte
		if _, err := io.ReadFull(r, head[:]); err == io.EOF {
			return nil
		} else if err != nil {
			return fmt.Errorf("%s: %w", path, err)
		}
		n := int(binary.BigEndian.Uint32(head[8:]))
		if n < 49 || n > 64<<20 {
			return fmt.Errorf("%s: batch length %d", path, n)
		}
		buf = append(buf[:0], head[:]...)
		buf = append(buf, make([]byte, n)...)
		if _, err := io.ReadFull(r, buf[12:]); err != nil {
			return fmt.Errorf("%s: %w", path, err)
		}
		if buf[16] != 2 {
			return fmt.Errorf("%s: magic %d (v2 only)", path, buf[16])
		}
		fn(buf)
		if w != nil {
			if _, err := w.Write(buf); err != nil {
				return err
			}
		}
	}
}

// firstLine notes when the first batch line is written.
type firstLine struct {
	start time.Time
	at    time.Duration
}

func (f *firstLine) Write(p []byte) (int, error) {
	if f.at == 0 && (bytes.Contains(p, []byte("baseOffset: ")) || bytes.Contains(p, []byte("batches"))) {
		f.at = time.Since(f.start)
	}
	return len(p), nil
}

func measure(part, offset, ms string) error {
	off, err := strconv.ParseInt(offset, 10, 64)
	if err != nil {
		return err
	}
	to := strconv.FormatInt(off+10, 10)
	runs := []struct {
		name string
		args []string
	}{
		{"dump --from OFFSET --to OFFSET+10", []string{"dump", part, "--quiet", "--from", offset, "--to", to}},
		{"dump --from @TIME --to OFFSET+10", []string{"dump", part, "--quiet", "--from", "@" + ms, "--to", to}},
		{"count (whole partition)", []string{"count", part, "--quiet"}},
	}
	for _, r := range runs {
		for round := 0; round < 2; round++ { // the second round is page-cache warm
			w := &firstLine{start: time.Now()}
			r0 := procio.ReadChars()
			code := cmd.Execute(r.args, w, os.Stderr)
			total := time.Since(w.start)
			read := procio.ReadChars() - r0
			if code != 0 {
				return fmt.Errorf("%s: exit %d", r.name, code)
			}
			if round == 1 {
				fmt.Printf("%-36s first line %8.2f ms  total %10.2f ms  read %13d bytes\n", r.name,
					float64(w.at.Microseconds())/1000, float64(total.Microseconds())/1000, read)
			}
		}
	}
	return nil
}
