package main

import (
	"bufio"
	"fmt"
	"os"
	"strconv"

	"github.com/kseg/kseg/batch"
)

// findingsLog writes a log of n one-record batches from two idempotent
// producers taking turns, each skipping a sequence at every batch: n-2
// sequence-gap findings, none merging with its neighbour (adjacent
// batches are of different producers), for audit's memory on a million
// findings.
func findingsLog(out, ns string) error {
	n, err := strconv.Atoi(ns)
	if err != nil {
		return err
	}
	f, err := os.Create(out)
	if err != nil {
		return err
	}
	w := bufio.NewWriterSize(f, 1<<20)
	b := batch.NewBuilder(batch.CodecNone)
	var buf []byte
	value := []byte("v")
	for i := 0; i < n; i++ {
		b.Reset(batch.CodecNone)
		b.Append(1794025632481+int64(i), nil, value, nil)
		h := batch.Header{BaseOffset: int64(i), ProducerID: int64(1000 + i%2), ProducerEpoch: 0,
			BaseSequence: int32((i / 2) * 2 % (1 << 30))}
		if buf, err = b.Build(buf[:0], h, nil); err != nil {
			return err
		}
		if _, err := w.Write(buf); err != nil {
			return err
		}
	}
	if err := w.Flush(); err != nil {
		return err
	}
	fmt.Printf("findings log: %d batches\n", n)
	return f.Close()
}
