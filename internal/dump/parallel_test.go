package dump

import (
	"bytes"
	"fmt"
	"math/rand"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kseg/kseg/content"
	"github.com/kseg/kseg/segment"
)

// dumpWith dumps files with the given number of workers and returns
// stdout, stderr and the first error's text.
func dumpWith(t *testing.T, workers int, files []string, opts DumpOptions) (string, string, string) {
	t.Helper()
	var so, se bytes.Buffer
	d := NewDumper(opts, &so, &se)
	d.workers = workers
	errText := ""
	for _, f := range files {
		if err := d.Dump(File(f)); err != nil {
			errText = err.Error()
			break
		}
	}
	if err := d.Finish(); err != nil {
		t.Fatal(err)
	}
	return so.String(), se.String(), errText
}

// parallelCorpus is every log in testdata (and the real-world logs when
// present), plus damaged copies of some: bytes flipped (errors mid-file,
// invalid CRCs) and a log followed by itself (offsets going back, for the
// non-consecutive summary).
func parallelCorpus(t *testing.T) []string {
	var files []string
	for _, root := range []string{"../../testdata", realworldSegments()} {
		filepath.WalkDir(root, func(p string, e os.DirEntry, err error) error {
			if err == nil && !e.IsDir() && strings.HasSuffix(p, ".log") {
				if fi, err := e.Info(); err == nil && fi.Size() <= 256<<10 {
					files = append(files, p)
				}
			}
			return nil
		})
	}
	if len(files) < 20 {
		t.Fatalf("only %d logs found", len(files))
	}
	dir := t.TempDir()
	rng := rand.New(rand.NewSource(14))
	n := 0
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil || len(b) < 4096 || n >= 12 {
			continue
		}
		n++
		write := func(name string, data []byte) {
			p := filepath.Join(dir, name, "00000000000000000000.log")
			os.MkdirAll(filepath.Dir(p), 0o755)
			if err := os.WriteFile(p, data, 0o644); err != nil {
				t.Fatal(err)
			}
			files = append(files, p)
		}
		write(fmt.Sprintf("twice-%d", n), append(append([]byte{}, b...), b...))
		for k := 0; k < 3; k++ {
			c := append([]byte{}, b...)
			for j := 0; j < 1+k; j++ {
				c[rng.Intn(len(c))] ^= byte(1 + rng.Intn(255))
			}
			write(fmt.Sprintf("flip-%d-%d", n, k), c)
		}
	}
	return files
}

// TestParallelDumpMatchesSequential: with several workers and chunks as
// small as one batch, every format and depth prints exactly what one
// goroutine prints, errors and summaries included.
func TestParallelDumpMatchesSequential(t *testing.T) {
	oldBytes, oldRecords, oldProbe, oldOutput := chunkBytes, chunkRecords, probeBatches, chunkOutput
	defer func() {
		chunkBytes, chunkRecords, probeBatches, chunkOutput = oldBytes, oldRecords, oldProbe, oldOutput
	}()
	probeBatches = 2
	files := parallelCorpus(t)
	str, _ := content.NewStringParser("", "")
	ints, _ := content.NewStringParser("int", "int")
	type variant struct {
		name  string
		setup func(o *DumpOptions)
	}
	variants := []variant{
		{"batches", func(o *DumpOptions) {}},
		{"deep", func(o *DumpOptions) { o.DeepIteration = true }},
		{"print", func(o *DumpOptions) { o.DeepIteration, o.PrintDataLog, o.Parser = true, true, str }},
		{"print-int", func(o *DumpOptions) { o.PrintDataLog, o.Parser = true, ints }},
		{"print-offsets", func(o *DumpOptions) { o.PrintDataLog, o.Parser = true, content.NewOffsetsParser() }},
		{"skip-metadata", func(o *DumpOptions) { o.PrintDataLog, o.SkipRecordMetadata, o.Parser = true, true, str }},
	}
	parallelRuns := 0
	for _, format := range []Format{FormatKafka, FormatKseg, FormatJSON} {
		for _, v := range variants {
			opts := DefaultDumpOptions()
			opts.Format = format
			v.setup(&opts)
			// {chunkBytes, chunkRecords, chunkOutput}: a small output cap
			// makes the writer format the rest of a chunk (1: all of it;
			// 300: from the batch that passes it).
			chunks := [][3]int{{1, 1, oldOutput}, {3000, 40, 300}, {3000, 40, 1}}
			if v.name == "print" {
				chunks = append(chunks, [3]int{3000, 40, oldOutput})
			}
			// One worker never takes the parallel path, so the chunk size
			// does not change its output: each file's sequential dump is
			// made once and compared with every chunk size's.
			seq := make([][3]string, len(files))
			for i, f := range files {
				seq[i][0], seq[i][1], seq[i][2] = dumpWith(t, 1, []string{f}, opts)
			}
			for _, chunk := range chunks {
				chunkBytes, chunkRecords, chunkOutput = chunk[0], chunk[1], chunk[2]
				for i, f := range files {
					so1, se1, e1 := seq[i][0], seq[i][1], seq[i][2]
					so2, se2, e2 := dumpWith(t, 3, []string{f}, opts)
					parallelRuns++
					if so1 != so2 || se1 != se2 || e1 != e2 {
						t.Fatalf("%s format %d chunk %v: %s: parallel dump differs\nerr %q vs %q\nstderr %q vs %q\nstdout same: %v (%d vs %d bytes)",
							v.name, format, chunk, f, e1, e2, se1, se2, so1 == so2, len(so1), len(so2))
					}
				}
			}
		}
	}
	// Several files in one run: summaries span files.
	opts := DefaultDumpOptions()
	opts.DeepIteration = true
	chunkBytes, chunkRecords, chunkOutput = 1, 1, oldOutput
	so1, se1, e1 := dumpWith(t, 1, files, opts)
	so2, se2, e2 := dumpWith(t, 2, files, opts)
	if so1 != so2 || se1 != se2 || e1 != e2 {
		t.Fatalf("all files in one run: parallel dump differs (err %q vs %q)", e1, e2)
	}
	if !strings.Contains(se1, "Non-consecutive offsets") {
		t.Fatalf("corpus has no non-consecutive offsets: the summary is not exercised")
	}
}

// TestParallelDumpIsUsed guards the test above: a log larger than a chunk
// takes the parallel path with several workers, and never with one.
func TestParallelDumpIsUsed(t *testing.T) {
	oldBytes := chunkBytes
	defer func() { chunkBytes = oldBytes }()
	chunkBytes = 1
	st, err := segmentOpen(t, "../../testdata/segments/seed/u05-large-0/00000000000000000000.log")
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	d := NewDumper(DefaultDumpOptions(), &bytes.Buffer{}, &bytes.Buffer{})
	d.workers = 2
	if !d.parallel(st) {
		t.Fatal("2 workers: sequential")
	}
	d.workers = 1
	if d.parallel(st) {
		t.Fatal("1 worker: parallel")
	}
	d.workers, d.opts.KeepGoing = 2, true
	if d.parallel(st) {
		t.Fatal("keep-going: parallel")
	}
}

func segmentOpen(t *testing.T, path string) (*segment.Stream, error) {
	t.Helper()
	return segment.OpenFile(path, 0, segment.Options{})
}
