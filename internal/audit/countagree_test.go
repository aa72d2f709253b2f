package audit

import (
	"encoding/hex"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kseg/kseg/internal/realworld"
	"github.com/kseg/kseg/segment"
)

// TestRealworldCountAgreement: audit's summary counts the same batches and
// records as segment.Counter (kseg count) for every .log of the real-Kafka
// corpus, legacy entries counted by their inner messages, and for every
// client-library byte vector written out as a segment.
//
// Where they may differ, the difference is the documented one: count does
// not verify checksums, so a batch failing its CRC counts there while audit
// skips it as a corrupt-batch region; with SkipCRC audit counts it too.
// count stops at bytes it cannot frame; audit skips them as a region and
// goes on. Both leave out a torn tail (audit reports it).
func TestRealworldCountAgreement(t *testing.T) {
	root := realworld.Dir(t)
	var logs []string
	err := filepath.WalkDir(filepath.Join(root, "segments"), func(path string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() && filepath.Ext(path) == ".log" {
			logs = append(logs, path)
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(logs) < 40 {
		t.Fatalf("only %d .log files under %s", len(logs), root)
	}
	var c segment.Counter
	for _, path := range logs {
		rel, _ := filepath.Rel(root, path)
		agree(t, &c, rel, path)
	}
	// The vectors: one complete batch, or entries as they sit in a .log.
	b, err := os.ReadFile(filepath.Join(root, "vectors", "index.json"))
	if err != nil {
		t.Fatal(err)
	}
	var vecs []struct{ File, Framing string }
	if err := json.Unmarshal(b, &vecs); err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(t.TempDir(), "vectors-0")
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, v := range vecs {
		if v.Framing != "log_entries" && v.Framing != "record_batch" {
			continue
		}
		h, err := os.ReadFile(filepath.Join(root, "vectors", v.File))
		if err != nil {
			t.Fatal(err)
		}
		raw, err := hex.DecodeString(strings.TrimSpace(string(h)))
		if err != nil {
			t.Fatal(v.File, err)
		}
		path := filepath.Join(dir, "00000000000000000000.log")
		if err := os.WriteFile(path, raw, 0o644); err != nil {
			t.Fatal(err)
		}
		agree(t, &c, "vectors/"+v.File, path)
		n++
	}
	if n < 30 {
		t.Fatalf("only %d vectors framed as log entries", n)
	}
}

// agree compares audit with count on one file.
func agree(t *testing.T, c *segment.Counter, name, path string) {
	t.Helper()
	audited := func(opts Options) *Result {
		parts, err := Partitions([]string{path})
		if err != nil {
			t.Fatal(err)
		}
		r, err := Run(parts[0], opts)
		if err != nil {
			t.Fatalf("%s: audit: %v", name, err)
		}
		return r
	}
	r, raw := audited(Options{}), audited(Options{SkipCRC: true})
	// What count reads, batch by batch.
	records := map[int64]int64{} // position -> records
	c.Options.OnBatch = func(in *segment.BatchInfo) { records[in.Pos] = int64(in.Records) }
	st, cerr := c.CountPartition(&segment.Partition{Segments: []segment.Segment{{Path: path}}})
	if cerr != nil {
		// count stops at what it cannot frame or decode; audit must have
		// skipped those bytes as a corrupt region and carried on.
		var se *segment.Error
		if !errors.As(cerr, &se) {
			t.Fatalf("%s: count error without a location: %v", name, cerr)
		}
		for _, f := range findings(raw, CorruptBatch) {
			if f.Severity == Error && f.File == path && f.Position <= se.Offset && se.Offset < f.Position+max(f.Count, 1) {
				return
			}
		}
		t.Errorf("%s: count fails at byte %d (%v) but audit reports no corrupt region there:\n%s", name, se.Offset, cerr, dumpFindings(raw))
		return
	}
	// Without checksums both frame the same entries.
	if st.Batches != raw.Summary.Batches || st.Records != raw.Summary.Records {
		t.Errorf("%s: count %d batches %d records, audit --skip-crc %d batches %d records", name, st.Batches, st.Records, raw.Summary.Batches, raw.Summary.Records)
	}
	// With them, audit leaves out exactly the entries failing their
	// checksum, found here by a stream of its own.
	var crcBatches, crcRecords int64
	v, err := segment.OpenFile(path, 0, segment.Options{KeepGoing: true, VerifyCRC: true, OnRegion: func(reg segment.Region) {
		var ce *segment.ChecksumError
		if n, ok := records[reg.From]; ok && errors.As(reg.Cause, &ce) {
			crcBatches++
			crcRecords += n
		}
	}})
	if err != nil {
		t.Fatal(err)
	}
	for v.Next() {
	}
	v.Close()
	if st.Batches-crcBatches != r.Summary.Batches || st.Records-crcRecords != r.Summary.Records {
		t.Errorf("%s: count %d batches %d records, %d batches (%d records) fail their CRC; audit %d batches %d records",
			name, st.Batches, st.Records, crcBatches, crcRecords, r.Summary.Batches, r.Summary.Records)
	}
	if crcBatches > 0 {
		t.Logf("%s: %d batches (%d records) fail their CRC: counted by count, skipped by audit", name, crcBatches, crcRecords)
	}
}
