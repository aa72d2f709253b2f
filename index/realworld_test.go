package index

import (
	"bytes"
	"crypto/sha256"
	"encoding/base64"
	"flag"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite testdata golden files")

// Known answers from the corpus's provenance notes (decoded there by an
// independent Python parser). Paths are relative to realworld/segments.
var realIndexCounts = []struct {
	path  string
	slots int64
}{
	{"Pda-Final-Project__backend/data/kafka/__cluster_metadata-0/00000000000000000000.index", 891},
	{"Pda-Final-Project__backend/data/kafka/__cluster_metadata-0/00000000000000000000.timeindex", 892},
	{"rjmfernandes__flink-on-prem/data/customers_keyed-0/00000000000000000000.index", 449},
	{"rjmfernandes__flink-on-prem/data/customers_keyed-0/00000000000000000000.timeindex", 440},
	{"rjmfernandes__flink-on-prem/data/orders-0/00000000000000000000.index", 860},
	{"rjmfernandes__flink-on-prem/data/orders-0/00000000000000000000.timeindex", 861},
	{"dipendrasaini__kafka-learnning-series/tmp/kafka-logs/invoice-0/00000000000000000000.index", 85},
	{"dipendrasaini__kafka-learnning-series/tmp/kafka-logs-2/invoice-0/00000000000000030626.timeindex", 60},
	{"Jeong-Rae__KafkaDemo/commit-49e94635/kraft-combined-logs/__cluster_metadata-0/00000000000000000000.index", 6648},
	{"Jeong-Rae__KafkaDemo/commit-49e94635/kraft-combined-logs/__cluster_metadata-0/00000000000000000000.timeindex", 6649},
	{"Niloufar1171__LDI-POC/__consumer_offsets-6/00000000000000000000.index", 2},
	{"Niloufar1171__LDI-POC/__consumer_offsets-6/00000000000000000000.timeindex", 3},
	{"DonaldY__kafka-2.7.1/kafka-logs/__consumer_offsets-17/00000000000000000000.index", 0},
	{"DonaldY__kafka-2.7.1/kafka-logs/__consumer_offsets-17/00000000000000000000.timeindex", 1},
}

func TestRealWorldIndexes(t *testing.T) {
	root := filepath.Join(realworldDir(t), "segments")
	for _, tc := range realIndexCounts {
		t.Run(filepath.Base(filepath.Dir(tc.path))+"/"+filepath.Base(tc.path), func(t *testing.T) {
			p := filepath.Join(root, tc.path)
			raw, err := os.ReadFile(p)
			if err != nil {
				t.Fatal(err)
			}
			var (
				n, yielded, stopped int64
				sanity              error
				reenc               []byte
				prev                = int64(-1 << 63)
			)
			if strings.HasSuffix(p, ".timeindex") {
				x, err := OpenTimeIndex(p)
				if err != nil {
					t.Fatal(err)
				}
				defer x.Close()
				n, sanity = x.Entries(), x.SanityCheck(x.Path())
				it := x.Iter()
				for it.Next() {
					e := it.Entry()
					if e.Timestamp < prev {
						t.Fatalf("slot %d: timestamp %d decreases", it.Slot(), e.Timestamp)
					}
					prev = e.Timestamp
					reenc, _ = e.AppendTo(reenc, x.BaseOffset())
					yielded++
				}
				stopped = it.Stopped()
				if it.Err() != nil {
					t.Fatal(it.Err())
				}
			} else {
				x, err := OpenOffsetIndex(p)
				if err != nil {
					t.Fatal(err)
				}
				defer x.Close()
				n, sanity = x.Entries(), x.SanityCheck(x.Path())
				it := x.Iter()
				for it.Next() {
					e := it.Entry()
					if e.Offset <= prev {
						t.Fatalf("slot %d: offset %d not increasing", it.Slot(), e.Offset)
					}
					prev = e.Offset
					reenc, _ = e.AppendTo(reenc, x.BaseOffset())
					// Every real entry must be found by Kafka's lookup.
					got, found, err := x.Lookup(e.Offset)
					if err != nil || !found || got != e {
						t.Fatalf("Lookup(%d) = %+v %v %v", e.Offset, got, found, err)
					}
					yielded++
				}
				stopped = it.Stopped()
				if it.Err() != nil {
					t.Fatal(it.Err())
				}
			}
			if n != tc.slots || yielded != tc.slots || stopped != -1 {
				t.Fatalf("slots %d yielded %d stopped %d; want %d, no padding", n, yielded, stopped, tc.slots)
			}
			if sanity != nil {
				t.Fatalf("sanity check on a Kafka-written index: %v", sanity)
			}
			if !bytes.Equal(reenc, raw) {
				t.Fatal("re-encoding the entries does not reproduce the file")
			}
		})
	}
}

var realSnapshots = []struct {
	path    string
	entries []ProducerEntry // only the fields PROVENANCE lists are compared
}{
	{"DonaldY__kafka-2.7.1/kafka-logs/myTopic-0/00000000000000000038.snapshot", []ProducerEntry{
		{ProducerID: 4001, LastSequence: 11, LastOffset: 11, OffsetDelta: 2, CurrentTxnFirstOffset: -1},
		{ProducerID: 4002, LastSequence: 11, LastOffset: 23, OffsetDelta: 11, CurrentTxnFirstOffset: -1},
		{ProducerID: 4003, LastSequence: 13, LastOffset: 37, OffsetDelta: 13, CurrentTxnFirstOffset: -1},
	}},
	{"rjmfernandes__flink-on-prem/data/customers_keyed-0/00000000000000027482.snapshot", []ProducerEntry{
		{ProducerID: 33, LastSequence: 10407, LastOffset: 10407, CurrentTxnFirstOffset: -1},
		{ProducerID: 37, LastSequence: 17073, LastOffset: 27481, CurrentTxnFirstOffset: -1},
	}},
	{"macsakini__KafkaCluster/kafka/data/tenitems-0/00000000000000000009.snapshot", []ProducerEntry{
		{ProducerID: 2, LastSequence: 3, LastOffset: 3, CurrentTxnFirstOffset: -1},
		{ProducerID: 4, LastSequence: 0, LastOffset: 8, CurrentTxnFirstOffset: -1},
		{ProducerID: 3, LastSequence: 3, LastOffset: 7, CurrentTxnFirstOffset: -1},
	}},
	{"Pda-Final-Project__backend/data/kafka/order-topic-0/00000000000000000002.snapshot", []ProducerEntry{
		{ProducerID: 0, LastSequence: 0, LastOffset: 0, CurrentTxnFirstOffset: -1},
		{ProducerID: 1000, LastSequence: 0, LastOffset: 1, CurrentTxnFirstOffset: -1},
	}},
	{"rjmfernandes__flink-on-prem/data/orders-0/00000000000000017212.snapshot", nil},
}

func TestRealWorldSnapshots(t *testing.T) {
	root := filepath.Join(realworldDir(t), "segments")
	for _, tc := range realSnapshots {
		t.Run(filepath.Base(tc.path), func(t *testing.T) {
			s, err := ReadSnapshotFile(filepath.Join(root, tc.path))
			if err != nil {
				t.Fatal(err)
			}
			if len(s.Entries) != len(tc.entries) {
				t.Fatalf("%d entries, want %d", len(s.Entries), len(tc.entries))
			}
			for i, w := range tc.entries {
				g := s.Entries[i]
				if g.ProducerID != w.ProducerID || g.LastSequence != w.LastSequence || g.LastOffset != w.LastOffset ||
					g.OffsetDelta != w.OffsetDelta || g.CurrentTxnFirstOffset != w.CurrentTxnFirstOffset || g.Epoch != 0 {
					t.Fatalf("entry %d: %+v, want %+v", i, g, w)
				}
			}
		})
	}
	// Every snapshot in the corpus: CRC valid, and re-encoding gives back
	// the exact bytes (so our writer produces what the broker writes).
	n := 0
	walk(t, root, ".snapshot", func(p string, raw []byte) {
		s, err := ParseSnapshot(raw)
		if err != nil {
			t.Errorf("%s: %v", p, err)
			return
		}
		if re := s.AppendTo(nil); !bytes.Equal(re, raw) {
			t.Errorf("%s: re-encoded snapshot differs", p)
		}
		n++
	})
	if n < 20 {
		t.Fatalf("only %d snapshots found", n)
	}
}

// TestRealWorldCheckpointWriters: the writers reproduce every broker-written
// leader-epoch-checkpoint and partition.metadata of the corpus byte for
// byte (the files are split here with the simplest reading of the format).
func TestRealWorldCheckpointWriters(t *testing.T) {
	root := filepath.Join(realworldDir(t), "segments")
	count := 0
	walk(t, root, "leader-epoch-checkpoint", func(p string, raw []byte) {
		lines := strings.Split(strings.TrimSuffix(string(raw), "\n"), "\n")
		var es []EpochEntry
		for _, l := range lines[min(2, len(lines)):] {
			var e EpochEntry
			if _, err := fmt.Sscanf(l, "%d %d", &e.Epoch, &e.StartOffset); err != nil {
				t.Errorf("%s: line %q: %v", p, l, err)
			}
			es = append(es, e)
		}
		if re := AppendLeaderEpochCheckpoint(nil, es); !bytes.Equal(re, raw) {
			t.Errorf("%s: written %q, file %q", p, re, raw)
		}
		count++
	})
	walk(t, root, "partition.metadata", func(p string, raw []byte) {
		_, id, _ := strings.Cut(string(raw), "topic_id: ")
		b, err := base64.RawURLEncoding.DecodeString(id)
		if err != nil || len(b) != 16 {
			t.Errorf("%s: topic id %q: %v", p, id, err)
			return
		}
		m := PartitionMetadata{Version: PartitionMetadataVersion, TopicID: Uuid(b)}
		if re := m.AppendTo(nil); !bytes.Equal(re, raw) {
			t.Errorf("%s: written %q, file %q", p, re, raw)
		}
		count++
	})
	if count < 30 {
		t.Fatalf("only %d files found", count)
	}
}

// TestRealWorldGolden dumps every index-family file of the corpus in
// kafka-dump-log's line format and compares with testdata/realworld.golden
// (regenerate with -update). It guards against regressions; the
// known-answer tests above tie it to independently decoded facts.
func TestRealWorldGolden(t *testing.T) {
	root := filepath.Join(realworldDir(t), "segments")
	var paths []string
	filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			switch filepath.Ext(p) {
			case ".index", ".timeindex", ".txnindex", ".snapshot":
				paths = append(paths, p)
			}
		}
		return nil
	})
	sort.Strings(paths)
	var out bytes.Buffer
	for _, p := range paths {
		rel, _ := filepath.Rel(root, p)
		fmt.Fprintf(&out, "Dumping %s\n", rel)
		var one bytes.Buffer
		dumpFile(&one, p, rel)
		summarize(&out, one.Bytes())
	}
	golden := filepath.Join("testdata", "realworld.golden")
	if *update {
		if err := os.MkdirAll("testdata", 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(golden, out.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatalf("%v (run with -update to create)", err)
	}
	if !bytes.Equal(out.Bytes(), want) {
		os.WriteFile(golden+".got", out.Bytes(), 0o644)
		t.Fatalf("output differs from %s; actual written to %s.got", golden, golden)
	}
}

// dumpFile renders like kafka-dump-log (3.5+ Scala); rel replaces the path.
func dumpFile(w *bytes.Buffer, p, rel string) {
	switch filepath.Ext(p) {
	case ".index":
		x, err := OpenOffsetIndex(p)
		if err != nil {
			fmt.Fprintf(w, "error: %v\n", err)
			return
		}
		defer x.Close()
		if x.Entries() == 0 {
			fmt.Fprintf(w, "%s is empty.\n", rel)
			return
		}
		it := x.Iter()
		for it.Next() {
			fmt.Fprintf(w, "offset: %d position: %d\n", it.Entry().Offset, it.Entry().Position)
		}
		if err := x.SanityCheck(rel); err != nil {
			m, _ := KafkaMessage(err)
			fmt.Fprintf(w, "sanity: %s\n", m)
		}
	case ".timeindex":
		x, err := OpenTimeIndex(p)
		if err != nil {
			fmt.Fprintf(w, "error: %v\n", err)
			return
		}
		defer x.Close()
		it := x.Iter()
		for it.Next() {
			fmt.Fprintf(w, "timestamp: %d offset: %d\n", it.Entry().Timestamp, it.Entry().Offset)
		}
		if err := x.SanityCheck(rel); err != nil {
			m, _ := KafkaMessage(err)
			fmt.Fprintf(w, "sanity: %s\n", m)
		}
	case ".txnindex":
		x, err := OpenTxnIndex(p)
		if err != nil {
			fmt.Fprintf(w, "error: %v\n", err)
			return
		}
		defer x.Close()
		it := x.Iter()
		for it.Next() {
			e := it.Entry()
			fmt.Fprintf(w, "version: %d producerId: %d firstOffset: %d lastOffset: %d lastStableOffset: %d\n",
				e.Version(), e.ProducerID, e.FirstOffset, e.LastOffset, e.LastStableOffset)
		}
	case ".snapshot":
		s, err := ReadSnapshotFile(p)
		if err != nil {
			m, _ := KafkaMessage(err)
			fmt.Fprintf(w, "%s\n", m)
			return
		}
		for _, e := range s.Entries {
			v, ok := e.TxnFirstOffset()
			fmt.Fprintf(w, "producerId: %d producerEpoch: %d coordinatorEpoch: %d currentTxnFirstOffset: %s lastTimestamp: %d ",
				e.ProducerID, e.Epoch, e.CoordinatorEpoch, FormatOptionalLong(v, ok), e.Timestamp)
			if e.HasBatchMetadata() {
				fmt.Fprintf(w, "firstSequence: %d lastSequence: %d lastOffset: %d offsetDelta: %d timestamp: %d",
					e.FirstSequence(), e.LastSequence, e.LastOffset, e.OffsetDelta, e.Timestamp)
			}
			w.WriteByte('\n')
		}
	}
}

// summarize keeps the golden file small: long dumps are cut to their first
// and last lines plus a line count and a SHA-256 of the whole dump.
func summarize(w *bytes.Buffer, dump []byte) {
	lines := bytes.SplitAfter(dump, []byte("\n"))
	if len(lines) > 0 && len(lines[len(lines)-1]) == 0 {
		lines = lines[:len(lines)-1]
	}
	if len(lines) <= 12 {
		w.Write(dump)
		return
	}
	for _, l := range lines[:5] {
		w.Write(l)
	}
	fmt.Fprintf(w, "... %d lines, sha256 %x ...\n", len(lines), sha256.Sum256(dump))
	for _, l := range lines[len(lines)-5:] {
		w.Write(l)
	}
}

func walk(t *testing.T, root, suffix string, f func(p string, raw []byte)) {
	t.Helper()
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(p, suffix) {
			return err
		}
		raw, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		f(p, raw)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}
