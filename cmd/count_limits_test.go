package cmd

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/kseg/kseg/batch"
	"github.com/kseg/kseg/report"
)

// writeCountPartition writes partition dir/t-0 with one batch per entry of
// counts (records of 100 bytes each, codec c) and returns the log path, the
// end position of each batch and each batch's uncompressed records size.
func writeCountPartition(t *testing.T, dir string, c batch.Codec, counts []int) (string, []int64, []int) {
	t.Helper()
	part := filepath.Join(dir, "t-0")
	if err := os.MkdirAll(part, 0o755); err != nil {
		t.Fatal(err)
	}
	var log []byte
	var ends []int64
	var raw []int
	var base int64
	for _, n := range counts {
		b := batch.NewBuilder(c)
		for i := 0; i < n; i++ {
			b.Append(1700000000000+int64(i), nil, []byte(strings.Repeat("v", 100)), nil)
		}
		raw = append(raw, b.UncompressedBytes())
		var err error
		log, err = b.Build(log, batch.Header{BaseOffset: base, ProducerID: -1, ProducerEpoch: -1, BaseSequence: -1}, nil)
		if err != nil {
			t.Fatal(err)
		}
		ends = append(ends, int64(len(log)))
		base += int64(n)
	}
	path := filepath.Join(part, "00000000000000000000.log")
	if err := os.WriteFile(path, log, 0o644); err != nil {
		t.Fatal(err)
	}
	return path, ends, raw
}

// TestCountMaxBytes: --max-bytes N counts exactly the batches that end
// within the first N bytes of each log.
func TestCountMaxBytes(t *testing.T) {
	counts := []int{1, 2, 3, 4}
	dir := t.TempDir()
	_, ends, _ := writeCountPartition(t, dir, batch.CodecNone, counts)
	want := func(limit int64) string {
		h := map[int]int{}
		var b, r int64
		for i, e := range ends {
			if limit > 0 && e > limit {
				break
			}
			h[counts[i]]++
			b++
			r += int64(counts[i])
		}
		return report.CountLine("t-0", b, r, h) + "\n"
	}
	limits := []int64{0, 1, ends[0] - 1, ends[0], ends[0] + 1, ends[2] - 1, ends[2], ends[3] - 1, ends[3], ends[3] + 1000}
	for _, n := range limits {
		t.Run(strconv.FormatInt(n, 10), func(t *testing.T) {
			out, stderr, code := runKseg(t, "count", "--max-bytes", strconv.FormatInt(n, 10), filepath.Join(dir, "t-0"))
			if code != 0 || out != want(n) {
				t.Errorf("exit %d, stderr %q\ngot  %q\nwant %q", code, stderr, out, want(n))
			}
		})
	}
}

// TestCountMaxDecompressed: with --detail every compressed batch is
// decompressed and held to --max-decompressed; the largest batch's
// uncompressed size passes, one byte less fails with exit 3 naming the
// batch's position. Without --detail v2 batches are not decompressed.
func TestCountMaxDecompressed(t *testing.T) {
	dir := t.TempDir()
	path, ends, raw := writeCountPartition(t, dir, batch.CodecGzip, []int{2, 9, 3})
	largest, at := 0, int64(0)
	for i, n := range raw {
		if n > largest {
			largest = n
			if i > 0 {
				at = ends[i-1]
			}
		}
	}
	part := filepath.Join(dir, "t-0")
	tests := []struct {
		name   string
		args   []string
		code   ExitCode
		stderr []string
	}{
		{"at the limit", []string{"--detail", "--max-decompressed", strconv.Itoa(largest), part}, 0, nil},
		{"over the limit", []string{"--detail", "--max-decompressed", strconv.Itoa(largest - 1), part}, 3,
			[]string{path, fmt.Sprintf("at byte %d", at), strconv.Itoa(largest - 1)}},
		{"not decompressed without detail", []string{"--max-decompressed", "1", part}, 0, nil},
		{"zero", []string{"--max-decompressed", "0", part}, 2, []string{"--max-decompressed"}},
		{"negative max bytes", []string{"--max-bytes", "-1", part}, 2, []string{"--max-bytes"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			out, stderr, code := runKseg(t, append([]string{"count"}, tc.args...)...)
			if code != tc.code {
				t.Fatalf("exit %d, want %d; stdout %q stderr %q", code, tc.code, out, stderr)
			}
			for _, s := range tc.stderr {
				if !strings.Contains(stderr, s) {
					t.Errorf("stderr %q lacks %q", stderr, s)
				}
			}
			if code == 0 && !strings.HasPrefix(out, "t-0: 3 batches, 14 records") {
				t.Errorf("stdout %q", out)
			}
		})
	}
}
