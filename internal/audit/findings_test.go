package audit

import (
	"encoding/binary"
	"math"
	"os"
	"path/filepath"
	"testing"

	"github.com/kseg/kseg/batch"
	"github.com/kseg/kseg/index"
	"github.com/kseg/kseg/producer"
)

// TestInjectedFaults audits logs written by the reference producer with
// --inject faults and checks each finding against the sidecar.
func TestInjectedFaults(t *testing.T) {
	clean, _ := produce(t, 3000)
	if r := auditOne(t, Options{}, clean); len(r.Findings) > 0 || r.Summary.Batches < 20 {
		t.Fatalf("clean reference log: %d batches, findings:\n%s", r.Summary.Batches, dumpFindings(r))
	}
	tests := []struct {
		fault string
		want  Code
		check func(t *testing.T, f Finding, inj producer.InjectedFault)
	}{
		{"gap@7", SequenceGap, func(t *testing.T, f Finding, inj producer.InjectedFault) {
			if f.FirstOffset != inj.BaseOffset || f.Count != int64(inj.Records) || f.Severity != Error {
				t.Errorf("gap finding %+v, injected %+v", f, inj)
			}
		}},
		{"duplicate@5", DuplicateSequence, func(t *testing.T, f Finding, inj producer.InjectedFault) {
			if f.FirstOffset != inj.CopyOffset || f.RelatedOffset != inj.BaseOffset || f.BaseSequence != inj.BaseSequence {
				t.Errorf("duplicate finding %+v, injected %+v", f, inj)
			}
		}},
		{"reorder@9", SequenceRegression, func(t *testing.T, f Finding, inj producer.InjectedFault) {
			if f.FirstOffset != inj.BaseOffset || f.RelatedOffset != inj.CopyOffset {
				t.Errorf("regression finding %+v, injected %+v", f, inj)
			}
		}},
	}
	for _, tc := range tests {
		t.Run(tc.fault, func(t *testing.T) {
			dir, res := produce(t, 3000, tc.fault)
			if len(res.Faults) != 1 {
				t.Fatalf("faults %+v", res.Faults)
			}
			r := auditOne(t, Options{}, dir)
			fs := findings(r, tc.want)
			if len(fs) != 1 || len(r.Findings) != 1 {
				t.Fatalf("want exactly one %s, got:\n%s", tc.want, dumpFindings(r))
			}
			tc.check(t, fs[0], res.Faults[0])
		})
	}
	// An injected epoch bump restarts sequences at 0: legitimate, no finding.
	t.Run("epoch-bump@6", func(t *testing.T) {
		dir, _ := produce(t, 3000, "epoch-bump@6")
		r := auditOne(t, Options{}, dir)
		if len(r.Findings) > 0 {
			t.Fatalf("epoch bump with sequence restart is legitimate:\n%s", dumpFindings(r))
		}
		if r.Producers[0].Epoch != 1 {
			t.Errorf("epoch %d, want 1", r.Producers[0].Epoch)
		}
	})
}

// logOnly prepares a new partition directory for an edited copy of src's
// single segment: it copies the .txnindex files (the aborted transactions
// stay where the log has them) but no snapshot, and returns the batches.
func logOnly(t *testing.T, src string) (string, [][]byte) {
	t.Helper()
	logs, _ := filepath.Glob(filepath.Join(src, "*.log"))
	if len(logs) != 1 {
		t.Fatalf("%s: want one segment, got %v", src, logs)
	}
	dir := filepath.Join(t.TempDir(), filepath.Base(src))
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	idx, _ := filepath.Glob(filepath.Join(src, "*.txnindex"))
	for _, x := range idx {
		copyFile(t, x, filepath.Join(dir, filepath.Base(x)))
	}
	return dir, readBatches(t, logs[0])
}

func header(b []byte) batch.Header { h, _ := batch.ParseHeader(b); return h }

func without(bs [][]byte, i int) [][]byte {
	out := append([][]byte(nil), bs[:i]...)
	return append(out, bs[i+1:]...)
}

func insert(bs [][]byte, i int, b []byte) [][]byte {
	out := append([][]byte(nil), bs[:i]...)
	out = append(out, append([]byte(nil), b...))
	return append(out, bs[i:]...)
}

// edited returns a copy of b after fn changed it, with its CRC recomputed.
func edited(b []byte, fn func(b []byte)) []byte {
	c := append([]byte(nil), b...)
	fn(c)
	batch.SetCRC(c)
	return c
}

// TestByteEdits derives damaged logs from real broker-written bytes and
// checks that each produces its finding, and nothing at warning or above
// that it should not.
func TestByteEdits(t *testing.T) {
	idem := oracleDir(t, "idempotent/idempotent-0") // pid 10: offsets 0-4, 5-9; pid 11: 10-14, 15-19; pid -1: 20-23
	txn := oracleDir(t, "txn/txn-0")
	type tc struct {
		name string
		src  string
		edit func(bs [][]byte) [][]byte
		opts Options
		want Code
		sev  Severity
	}
	tests := []tc{
		{"drop-batch", idem, func(bs [][]byte) [][]byte { return without(bs, 1) }, Options{}, OffsetGap, Warning},
		{"drop-batch-compacted", idem, func(bs [][]byte) [][]byte { return without(bs, 1) }, Options{Compacted: true}, OffsetGap, Info},
		{"drop-first-batch-renumbered", idem, func(bs [][]byte) [][]byte { return without(bs, 0) }, Options{}, SequenceGap, Error},
		{"duplicate-batch", idem, func(bs [][]byte) [][]byte { return insert(bs, 1, bs[0]) }, Options{}, DuplicateSequence, Error},
		{"rewrite-epoch-down", idem, func(bs [][]byte) [][]byte {
			bs[1] = edited(bs[1], func(b []byte) { binary.BigEndian.PutUint16(b[51:], 2) })
			bs[0] = edited(bs[0], func(b []byte) { binary.BigEndian.PutUint16(b[51:], 3) })
			return bs
		}, Options{}, EpochRegression, Error},
		{"rewrite-epoch-up", idem, func(bs [][]byte) [][]byte {
			bs[1] = edited(bs[1], func(b []byte) { binary.BigEndian.PutUint16(b[51:], 1) })
			return bs
		}, Options{}, EpochBumpNonzeroSequence, Warning},
		{"sequence-back", idem, func(bs [][]byte) [][]byte {
			bs[1] = edited(bs[1], func(b []byte) { binary.BigEndian.PutUint32(b[53:], 2) })
			return bs
		}, Options{}, SequenceRegression, Error},
		{"sequence-wrap", idem, func(bs [][]byte) [][]byte {
			bs[0] = edited(bs[0], func(b []byte) { binary.BigEndian.PutUint32(b[53:], math.MaxInt32-4) })
			bs[1] = edited(bs[1], func(b []byte) { binary.BigEndian.PutUint32(b[53:], 0) })
			return bs
		}, Options{}, SequenceWrap, Info},
		{"corrupt-crc", idem, func(bs [][]byte) [][]byte {
			bs[1] = append([]byte(nil), bs[1]...)
			bs[1][len(bs[1])-3] ^= 0x55
			return bs
		}, Options{}, CorruptBatch, Error},
		{"drop-commit-marker", txn, func(bs [][]byte) [][]byte { return bs[:len(bs)-1] }, Options{}, UnterminatedTransaction, Warning},
		{"repeat-marker", txn, func(bs [][]byte) [][]byte { return append(bs, bs[len(bs)-1]) }, Options{}, MarkerWithoutTransaction, Warning},
		{"non-idempotent", idem, func(bs [][]byte) [][]byte { return bs }, Options{}, NonIdempotentBatches, Info},
	}
	for _, c := range tests {
		t.Run(c.name, func(t *testing.T) {
			dir, bs := logOnly(t, c.src)
			bs = c.edit(bs)
			renumber := c.name != "drop-batch" && c.name != "drop-batch-compacted"
			base := int64(0)
			if c.name == "sequence-wrap" {
				base = 100 // the log does not start at 0: any first sequence is fine
			}
			writeLog(t, dir, base, bs, renumber)
			r := auditOne(t, c.opts, dir)
			fs := findings(r, c.want)
			if len(fs) != 1 || fs[0].Severity != c.sev {
				t.Fatalf("want one %s (%s), got:\n%s", c.want, c.sev, dumpFindings(r))
			}
			for _, f := range r.Findings {
				if f.Code != c.want && f.Severity >= Warning {
					t.Errorf("unexpected %s: %s", f.Code, f.Message)
				}
			}
			if fs[0].File == "" || fs[0].Message == "" || fs[0].Partition != filepath.Base(dir) {
				t.Errorf("finding lacks location: %+v", fs[0])
			}
		})
	}
}

// TestCorruptResync checks that the audit continues after a corrupt batch
// and counts what follows.
func TestCorruptResync(t *testing.T) {
	dir, bs := logOnly(t, oracleDir(t, "idempotent/idempotent-0"))
	bs[2] = append([]byte(nil), bs[2]...)
	binary.BigEndian.PutUint32(bs[2][8:], 7) // a length below the minimum: cannot frame
	writeLog(t, dir, 0, bs, false)
	r := auditOne(t, Options{}, dir)
	fs := findings(r, CorruptBatch)
	if len(fs) != 1 || r.Summary.Batches != int64(len(bs)-1) {
		t.Fatalf("batches %d (want %d), findings:\n%s", r.Summary.Batches, len(bs)-1, dumpFindings(r))
	}
	if fs[0].Position != int64(len(bs[0])+len(bs[1])) {
		t.Errorf("corrupt at %d", fs[0].Position)
	}
}

// TestTxnIndexMismatch edits the oracle's transactional partition: a
// missing .txnindex entry, an entry the log does not support, and a
// transaction whose first offset moves when a COMMIT marker is dropped.
func TestTxnIndexMismatch(t *testing.T) {
	src := oracleDir(t, "txn/txn-0")
	t.Run("clean", func(t *testing.T) {
		r := auditOne(t, Options{}, copyPartition(t, src))
		if len(r.Findings) > 0 || r.Summary.Committed != 3 || r.Summary.Aborted != 2 {
			t.Fatalf("%+v\n%s", r.Summary, dumpFindings(r))
		}
	})
	idxPath := func(dir string) string { return filepath.Join(dir, "00000000000000000000.txnindex") }
	t.Run("entry-missing", func(t *testing.T) {
		dir := copyPartition(t, src)
		b, _ := os.ReadFile(idxPath(dir))
		os.WriteFile(idxPath(dir), b[:index.TxnEntrySize], 0o644)
		r := auditOne(t, Options{}, dir)
		fs := findings(r, TxnIndexMismatch)
		if len(fs) != 1 || fs[0].FirstOffset != 15 || fs[0].LastOffset != 18 || len(r.Findings) != 1 {
			t.Fatalf("%s", dumpFindings(r))
		}
	})
	t.Run("entry-unsupported", func(t *testing.T) {
		dir := copyPartition(t, src)
		b, _ := os.ReadFile(idxPath(dir))
		extra := index.AbortedTxn{ProducerID: 16, FirstOffset: 19, LastOffset: 22, LastStableOffset: 23}
		os.WriteFile(idxPath(dir), extra.AppendTo(b), 0o644)
		r := auditOne(t, Options{}, dir)
		fs := findings(r, TxnIndexMismatch)
		if len(fs) != 1 || fs[0].LastOffset != 22 || fs[0].Severity != Error {
			t.Fatalf("%s", dumpFindings(r))
		}
	})
	t.Run("first-offset-differs", func(t *testing.T) {
		dir := copyPartition(t, src)
		bs := readBatches(t, filepath.Join(dir, "00000000000000000000.log"))
		// Turn the COMMIT at offset 5 into a plain non-transactional batch
		// of another producer: the transaction from offset 0 stays open
		// until the ABORT at 9, which .txnindex says began at 6.
		bs[1] = edited(bs[1], func(b []byte) {
			binary.BigEndian.PutUint16(b[21:], 0)
			binary.BigEndian.PutUint64(b[43:], 99)
			binary.BigEndian.PutUint16(b[51:], 0)
			binary.BigEndian.PutUint32(b[53:], 0)
		})
		os.Remove(filepath.Join(dir, "00000000000000000023.snapshot"))
		writeLog(t, dir, 0, bs, false)
		r := auditOne(t, Options{}, dir)
		fs := findings(r, TxnIndexMismatch)
		if len(fs) != 1 || fs[0].FirstOffset != 6 || fs[0].RelatedOffset != 0 {
			t.Fatalf("%s", dumpFindings(r))
		}
	})
}

// TestSnapshotMismatch edits a broker-written producer snapshot.
func TestSnapshotMismatch(t *testing.T) {
	src := oracleDir(t, "idempotent/idempotent-0")
	snapName := "00000000000000000024.snapshot"
	for _, tc := range []struct {
		name string
		edit func(e *index.ProducerEntry)
		want int
	}{
		{"unchanged", func(e *index.ProducerEntry) {}, 0},
		{"last-sequence", func(e *index.ProducerEntry) { e.LastSequence += 3 }, 1},
		{"epoch", func(e *index.ProducerEntry) { e.Epoch = 7 }, 1},
		{"last-offset", func(e *index.ProducerEntry) { e.LastOffset, e.OffsetDelta = 8, 3 }, 1},
		{"expired-producer-absent", nil, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := copyPartition(t, src)
			s, err := index.ReadSnapshotFile(filepath.Join(dir, snapName))
			if err != nil {
				t.Fatal(err)
			}
			if tc.edit == nil {
				s.Entries = s.Entries[1:] // a producer the snapshot no longer keeps
			} else {
				tc.edit(&s.Entries[0])
			}
			b, _ := s.MarshalBinary()
			os.WriteFile(filepath.Join(dir, snapName), b, 0o644)
			r := auditOne(t, Options{}, dir)
			fs := findings(r, SnapshotMismatch)
			if len(fs) != tc.want || len(atLeast(r, Warning)) != tc.want {
				t.Fatalf("want %d snapshot-mismatch, got:\n%s", tc.want, dumpFindings(r))
			}
			if tc.want == 1 && fs[0].ProducerID != s.Entries[0].ProducerID {
				t.Errorf("producer %d", fs[0].ProducerID)
			}
		})
	}
	// A log whose first segment was deleted: the snapshot's producer wrote
	// before the log start, which is no contradiction.
	t.Run("before-log-start", func(t *testing.T) {
		dir := copyPartition(t, src)
		bs := readBatches(t, filepath.Join(dir, "00000000000000000000.log"))
		os.Remove(filepath.Join(dir, "00000000000000000000.log"))
		writeLog(t, dir, 10, bs[2:], false)
		r := auditOne(t, Options{}, dir)
		if len(atLeast(r, Warning)) > 0 {
			t.Fatalf("%s", dumpFindings(r))
		}
	})
}

// TestCompactionDowngrades drops a middle batch of a producer from a
// reference log: a sequence gap and an offset gap, both explained when the
// partition is compacted — but a duplicate is not.
func TestCompactionDowngrades(t *testing.T) {
	dir, _ := produce(t, 3000)
	bs := readBatches(t, filepath.Join(dir, "00000000000000000000.log"))
	out := filepath.Join(t.TempDir(), "audit-0")
	writeLog(t, out, 0, without(bs, 4), false)
	for _, compacted := range []bool{false, true} {
		r := auditOne(t, Options{Compacted: compacted}, out)
		want := Error
		if compacted {
			want = Info
		}
		for _, code := range []Code{SequenceGap, OffsetGap} {
			fs := findings(r, code)
			if len(fs) != 1 {
				t.Fatalf("compacted=%v: want one %s:\n%s", compacted, code, dumpFindings(r))
			}
			if code == OffsetGap && !compacted {
				want = Warning
			}
			if fs[0].Severity != want {
				t.Errorf("compacted=%v: %s severity %s, want %s", compacted, code, fs[0].Severity, want)
			}
		}
	}
	writeLog(t, out, 0, insert(bs, 5, bs[4]), true)
	if r := auditOne(t, Options{Compacted: true}, out); len(findings(r, DuplicateSequence)) != 1 || findings(r, DuplicateSequence)[0].Severity != Error {
		t.Fatalf("a duplicate stays an error on a compacted partition:\n%s", dumpFindings(r))
	}
}
