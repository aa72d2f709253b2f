//go:build linux

package cmd

import (
	"bytes"
	"compress/gzip"
	"encoding/binary"
	"hash/crc32"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/kseg/kseg/batch"
	"github.com/kseg/kseg/internal/testbin"
)

// legacyEntry is a v0 entry (offset, size, message) with a correct CRC.
func legacyEntry(offset int64, attrs int8, key, value []byte) []byte {
	msg := []byte{0, 0, 0, 0, 0, byte(attrs)}
	for _, f := range [][]byte{key, value} {
		if f == nil {
			msg = binary.BigEndian.AppendUint32(msg, 0xffffffff)
			continue
		}
		msg = binary.BigEndian.AppendUint32(msg, uint32(len(f)))
		msg = append(msg, f...)
	}
	binary.BigEndian.PutUint32(msg, crc32.ChecksumIEEE(msg[4:]))
	e := binary.BigEndian.AppendUint64(nil, uint64(offset))
	e = binary.BigEndian.AppendUint32(e, uint32(len(msg)))
	return append(e, msg...)
}

// TestMemoryBoundedByInput runs the kseg binary at GOMAXPROCS=8 on inputs
// whose output is far larger than they are, and checks its peak resident
// memory (the child's ru_maxrss): a 1 M-message v0 gzip wrapper (27 MB
// inflated, 1 M record lines), v2 gzip batches of 1 M records each, and
// two of the v2 gzip batches of 6 M records (66 MB inflated each,
// also at GOMAXPROCS=1).
// Before the legacy iterator and the parallel dump's output cap, count
// held a struct per inner message and the parallel dump a whole batch's
// output per chunk in flight. KSEG_MEMTEST_BIN runs another build.
func TestMemoryBoundedByInput(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs the binary on 30 MB of output per run")
	}
	// The inputs are built by a child process: the kernel carries the
	// test process's own peak into the exec'd kseg's ru_maxrss (os/exec
	// clones with CLONE_VM), so building them here would be measured too.
	dir := os.Getenv("KSEG_MEMTEST_GEN")
	if dir != "" {
		writeMemoryInputs(t, dir)
		return
	}
	dir = t.TempDir()
	gen := exec.Command(os.Args[0], "-test.run=^TestMemoryBoundedByInput$", "-test.count=1")
	gen.Env = append(os.Environ(), "KSEG_MEMTEST_GEN="+dir)
	if out, err := gen.CombinedOutput(); err != nil {
		t.Fatalf("building the inputs: %v\n%s", err, out)
	}
	legacyPart := filepath.Join(dir, "legacy-0")
	v2Part := filepath.Join(dir, "v2-0")
	bigPart := filepath.Join(dir, "big-0")
	t.Logf("legacy wrapper %d bytes, v2 log %d bytes, 6 M-record log %d bytes",
		fileSize(t, filepath.Join(legacyPart, "00000000000000000000.log")),
		fileSize(t, filepath.Join(v2Part, "00000000000000000000.log")),
		fileSize(t, filepath.Join(bigPart, "00000000000000000000.log")))

	bin := os.Getenv("KSEG_MEMTEST_BIN")
	if bin == "" {
		bin = testbin.Path(t)
	}
	const limit = 300 << 20
	bigLog := filepath.Join(bigPart, "00000000000000000000.log")
	for _, tc := range []struct {
		procs string
		args  []string
	}{
		{"8", []string{"count", legacyPart}},
		{"8", []string{"dump", "--deep-iteration", "--files", filepath.Join(legacyPart, "00000000000000000000.log")}},
		{"8", []string{"dump", "--deep-iteration", "--files", filepath.Join(v2Part, "00000000000000000000.log")}},
		{"8", []string{"dump", "--print-data-log", "--files", filepath.Join(v2Part, "00000000000000000000.log")}},
		// The writer decodes these batches alone, so one CPU shows the
		// decompression's own peak (before sizing its buffer: 320 MiB at
		// 1, 265-370 MiB at 8, by the collector's timing).
		{"8", []string{"dump", "--deep-iteration", "--files", bigLog}},
		{"1", []string{"dump", "--deep-iteration", "--files", bigLog}},
	} {
		args := tc.args
		cmd := exec.Command(bin, args...)
		cmd.Env = append(os.Environ(), "GOMAXPROCS="+tc.procs)
		if err := cmd.Run(); err != nil {
			t.Fatalf("kseg %q: %v", args, err)
		}
		ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage)
		if !ok {
			t.Skip("no rusage here")
		}
		peak := ru.Maxrss << 10 // KiB on Linux
		t.Logf("GOMAXPROCS=%s kseg %q: peak RSS %d MiB", tc.procs, args[:len(args)-1], peak>>20)
		if peak > limit {
			t.Errorf("GOMAXPROCS=%s kseg %q: peak RSS %d MiB, over %d MiB", tc.procs, args, peak>>20, limit>>20)
		}
	}
}

func fileSize(t *testing.T, name string) int64 {
	t.Helper()
	fi, err := os.Stat(name)
	if err != nil {
		t.Fatal(err)
	}
	return fi.Size()
}

// writeMemoryInputs writes TestMemoryBoundedByInput's partitions under dir.
func writeMemoryInputs(t *testing.T, dir string) {
	// The legacy wrapper: 1 M inner messages of one byte.
	legacyPart := filepath.Join(dir, "legacy-0")
	os.MkdirAll(legacyPart, 0o755)
	const n = 1 << 20
	var inner bytes.Buffer
	for i := range n {
		inner.Write(legacyEntry(int64(i), 0, nil, []byte{byte(i)}))
	}
	var gz bytes.Buffer
	zw, _ := gzip.NewWriterLevel(&gz, gzip.BestCompression)
	zw.Write(inner.Bytes())
	zw.Close()
	wrapper := legacyEntry(n-1, int8(batch.CodecGzip), nil, gz.Bytes())
	if err := os.WriteFile(filepath.Join(legacyPart, "00000000000000000000.log"), wrapper, 0o644); err != nil {
		t.Fatal(err)
	}
	// v2: four gzip batches of 1 M one-byte records.
	v2Part := filepath.Join(dir, "v2-0")
	os.MkdirAll(v2Part, 0o755)
	var log []byte
	c := &batch.Compressor{}
	for k := range 4 {
		b := batch.NewBuilder(batch.CodecGzip)
		for i := range n {
			b.Append(1700000000000, nil, []byte{byte(i)}, nil)
		}
		var err error
		log, err = b.Build(log, batch.Header{BaseOffset: int64(k * n), ProducerID: -1, ProducerEpoch: -1, BaseSequence: -1}, c)
		if err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(v2Part, "00000000000000000000.log"), log, 0o644); err != nil {
		t.Fatal(err)
	}
	// The reproducer, scaled to two batches: v2 gzip batches of
	// 6 M one-byte records, 66 MB of records each, near --max-decompressed.
	bigPart := filepath.Join(dir, "big-0")
	os.MkdirAll(bigPart, 0o755)
	const big = 6_000_000
	var bigLog []byte
	for k := range 2 {
		b := batch.NewBuilder(batch.CodecGzip)
		for i := range big {
			b.Append(1700000000000, nil, []byte{byte(i)}, nil)
		}
		var err error
		bigLog, err = b.Build(bigLog, batch.Header{BaseOffset: int64(k * big), ProducerID: -1, ProducerEpoch: -1, BaseSequence: -1}, c)
		if err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(bigPart, "00000000000000000000.log"), bigLog, 0o644); err != nil {
		t.Fatal(err)
	}

}
