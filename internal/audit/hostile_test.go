package audit

import (
	"encoding/binary"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// resyncCandidates is n bytes that cannot be framed at 0 (a size field of
// 3) and hold, every 9 bytes, a v2 batch header whose size reaches exactly
// the end of the file and whose CRC is wrong (and, between them, legacy
// look-alikes). Resynchronising must reject every candidate. The old
// Scanner.Resync computed each candidate's CRC over the rest of the file:
// audit and dump --keep-going took 5.6 s on 1 MiB of this and 14.6 s on
// 2 MiB. The stream's range checksums make it linear (about 1 s per MiB on
// the loaded 2-core dev machine). The fuzz corpora keep a 256-byte instance
// (testdata/fuzz/*/resync-candidates).
func resyncCandidates(n int) []byte {
	b := make([]byte, n)
	binary.BigEndian.PutUint32(b[8:], 3)
	for p := 4; p+61 <= n; p += 9 {
		binary.BigEndian.PutUint32(b[p+8:], uint32(n-p-12))
		b[p+16] = 2
	}
	return b
}

// TestResyncCandidates: a file of nothing but near-batches is one corrupt
// region from its first byte to its end, with and without CRC checks.
func TestResyncCandidates(t *testing.T) {
	const n = 64 << 10
	dir := filepath.Join(t.TempDir(), "hostile-0")
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "00000000000000000000.log"), resyncCandidates(n), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, opts := range []Options{{}, {SkipCRC: true}} {
		r := auditOne(t, opts, dir)
		fs := findings(r, CorruptBatch)
		if r.Summary.Batches != 0 || len(fs) != 1 || len(r.Findings) != 1 {
			t.Fatalf("%+v: %d batches, findings:\n%s", opts, r.Summary.Batches, dumpFindings(r))
		}
		if fs[0].Position != 0 || fs[0].Count != n || !strings.Contains(fs[0].Message, "no valid batch follows in the remaining") {
			t.Errorf("%+v: finding at %d over %d bytes: %s", opts, fs[0].Position, fs[0].Count, fs[0].Message)
		}
	}
}
