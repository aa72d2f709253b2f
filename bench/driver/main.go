// Command driver measures the machine's limits and kseg's library paths on
// one segment file, for bench/run.sh. Each mode prints one line:
// "<mode> <bytes> <seconds> <MB/s>" (MB = 10^6 bytes).
//
//	driver read FILE     sequential read in 1 MiB blocks (page cache)
//	driver crc FILE      CRC-32C over the file's first 1 MiB, repeated to the file's size (in cache: the pure CRC speed)
//	driver crcmem FILE   CRC-32C over the file's first 256 MiB from memory, repeated (memory-bound)
//	driver headers FILE  segment.Stream: frame every batch, decode headers
//	driver crcscan FILE  frame every batch and verify its CRC
//	driver deep FILE     decompress and decode every record
//	driver codec FILE    decompress every batch's payload only (the codec library alone)
//	driver codecdeep FILE [ROUNDS]  the codec library alone (payloads preloaded, every
//	                     API of the library that decodes Kafka's payloads, best one)
//	                     and deep iteration (segment.Stream, Batch.Records, every
//	                     record), interleaved ROUNDS times (5); best of each, ratio
//	driver crcpath FILE [ROUNDS]  what bounds audit's CRC scan, in one run: CRC-32C
//	                     in cache, over streamed memory, read(2)'s copy, read then
//	                     CRC, and the scan itself, at 64 KiB, 256 KiB and 1 MiB reads
//	driver crcmmap FILE  verify every batch's CRC over an mmap of the file (no copy), beside crcscan
//	driver crcmmappop FILE  the same with MAP_POPULATE
//	driver findings OUT N   write a log of N one-record batches with N-2 unmergeable sequence gaps
//	driver walk DIR      list a log directory's partitions (segment.Partitions); prints partitions, not bytes
//	driver readdir DIR   list, then open and read every segment on 2 goroutines (the floor under count/audit)
//	driver parts DIR     count and audit over a log directory of many partitions, 1 and 2 workers,
//	                     beside reading the bytes alone (a table, not one line; see parts.go)
//	driver wire BROKER TOPIC [FETCH [ROUNDS [MODE...]]]  below kseg count over the wire, partition 0 of
//	                     TOPIC read with FETCH-byte Fetches (4 MiB): franz-go's client alone and
//	                     one plain socket read into a reused buffer (socketalloc: a new one per
//	                     response), CPU seconds, alternating
//	                     ROUNDS times (3); see wire.go
//	driver realistic CODEC OUT MB   write a segment of about MB*10^6 bytes of record values
//	                     that compress 2-4x (JSON-like events, English-like text, ~10%
//	                     random bytes), 16 KiB batches, for the codec rows
package main

import (
	"fmt"
	"io"
	"os"
	"runtime/pprof"
	"strconv"
	"time"

	"github.com/kseg/kseg/batch"
	"github.com/kseg/kseg/segment"
)

func main() {
	if prof := os.Getenv("DRIVER_CPUPROFILE"); prof != "" {
		pf, err := os.Create(prof)
		if err == nil && pprof.StartCPUProfile(pf) == nil {
			defer pprof.StopCPUProfile()
		}
	}
	if len(os.Args) == 4 && os.Args[1] == "findings" {
		if err := findingsLog(os.Args[2], os.Args[3]); err != nil {
			fmt.Fprintln(os.Stderr, "driver:", err)
			os.Exit(1)
		}
		return
	}
	if len(os.Args) == 3 && os.Args[1] == "parts" {
		if err := manyParts(os.Args[2], 5); err != nil {
			fmt.Fprintln(os.Stderr, "driver:", err)
			os.Exit(1)
		}
		return
	}
	if len(os.Args) == 5 && os.Args[1] == "realistic" {
		if err := realistic(os.Args[2], os.Args[3], os.Args[4]); err != nil {
			fmt.Fprintln(os.Stderr, "driver:", err)
			os.Exit(1)
		}
		return
	}
	if len(os.Args) >= 3 && os.Args[1] == "crcpath" {
		rounds := 5
		if len(os.Args) == 4 {
			rounds, _ = strconv.Atoi(os.Args[3])
		}
		if err := crcPath(os.Args[2], max(rounds, 1)); err != nil {
			fmt.Fprintln(os.Stderr, "driver:", err)
			os.Exit(1)
		}
		return
	}
	if len(os.Args) >= 4 && os.Args[1] == "wire" {
		if err := wireArgs(os.Args[2:]); err != nil {
			fmt.Fprintln(os.Stderr, "driver:", err)
			os.Exit(1)
		}
		return
	}
	if len(os.Args) >= 3 && os.Args[1] == "codecdeep" {
		rounds := 5
		if len(os.Args) == 4 {
			rounds, _ = strconv.Atoi(os.Args[3])
		}
		if err := codecDeep(os.Args[2], max(rounds, 1)); err != nil {
			fmt.Fprintln(os.Stderr, "driver:", err)
			os.Exit(1)
		}
		return
	}
	if len(os.Args) != 3 {
		fmt.Fprintln(os.Stderr, "usage: driver read|crc|headers|crcscan|deep|codec FILE | realistic CODEC OUT MB")
		os.Exit(2)
	}
	mode, path := os.Args[1], os.Args[2]
	start = time.Now()
	passes, _ := strconv.Atoi(os.Getenv("DRIVER_PASSES"))
	var n int64
	var err error
	for range max(passes, 1) {
		var m int64
		m, err = run(mode, path)
		n += m
		if err != nil {
			break
		}
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "driver:", err)
		os.Exit(1)
	}
	sec := time.Since(start).Seconds()
	fmt.Printf("%s %d %.3f %.1f\n", mode, n, sec, float64(n)/sec/1e6)
}

// start is when timing begins; the crc mode moves it past loading the bytes.
var start time.Time

func run(mode, path string) (int64, error) {
	switch mode {
	case "walk":
		return walkDir(path)
	case "crcmmap":
		return crcMmap(path, false)
	case "crcmmappop":
		return crcMmap(path, true)
	case "readdir":
		return readDir(path)
	case "read":
		return readFile(path)
	case "crc", "crcmem":
		return crcBuffer(path, mode == "crcmem")
	}
	return scanSegment(mode, path)
}

// readFile reads path through, 1 MiB at a time.
func readFile(path string) (int64, error) {
	f, err := os.Open(path)
	if err != nil {
		return 0, err
	}
	defer f.Close()
	buf := make([]byte, 1<<20)
	var n int64
	for {
		m, err := f.Read(buf)
		n += int64(m)
		if err == io.EOF {
			return n, nil
		}
		if err != nil {
			return n, err
		}
	}
}

// crcBuffer loads the start of path (1 MiB, or 256 MiB with mem) and
// times CRC-32C over it, repeated to the file's size.
func crcBuffer(path string, mem bool) (int64, error) {
	st, err := os.Stat(path)
	if err != nil {
		return 0, err
	}
	f, err := os.Open(path)
	if err != nil {
		return 0, err
	}
	bufSize := int64(1 << 20)
	if mem {
		bufSize = 256 << 20
	}
	buf := make([]byte, min(st.Size(), bufSize))
	_, err = io.ReadFull(f, buf)
	f.Close()
	if err != nil {
		return 0, err
	}
	var sink uint32
	var n int64
	start = time.Now()
	for n < st.Size() {
		b := buf[:min(int64(len(buf)), st.Size()-n)]
		sink ^= batch.CRC32C(b)
		n += int64(len(b))
	}
	_ = sink
	return n, nil
}

// scanSegment streams the segment at path and does mode's work on each
// batch: headers only, crcscan, codec (decompress) or deep (every record).
func scanSegment(mode, path string) (int64, error) {
	f, err := segment.OpenFile(path, 0, segment.Options{})
	if err != nil {
		return 0, err
	}
	defer f.Close()
	var br batch.BatchReader
	var dec batch.Decompressor
	var rec batch.Record
	for f.Next() {
		e := f.Batch()
		switch mode {
		case "headers":
			continue
		}
		raw, err := e.Bytes()
		if err != nil {
			return 0, err
		}
		switch mode {
		case "crcscan":
			if !batch.ValidCRC(raw) {
				return 0, fmt.Errorf("bad CRC at %d", e.Pos)
			}
		case "codec":
			if c := e.Header.Codec(); c != batch.CodecNone {
				if _, err := dec.Decompress(c, raw[batch.HeaderSize:], e.Magic); err != nil {
					return 0, err
				}
			}
		case "deep":
			if err := br.Open(raw, &e.Header); err != nil {
				return 0, err
			}
			for {
				ok, err := br.Next(&rec)
				if err != nil {
					return 0, err
				}
				if !ok {
					break
				}
			}
		default:
			return 0, fmt.Errorf("unknown mode %q", mode)
		}
	}
	return f.Tail(), f.Err()
}
