package index

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/kseg/kseg/located"
)

// kafkaCheckpoints are the checkpoint files a real Kafka 4.4.0 cluster
// wrote (testdata/replicas, oracle/regen/replicas.sh).
func kafkaCheckpoints(t testing.TB) []string {
	t.Helper()
	var out []string
	err := filepath.WalkDir("../testdata/replicas", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		switch d.Name() {
		case "leader-epoch-checkpoint", "replication-offset-checkpoint", "recovery-point-offset-checkpoint", "log-start-offset-checkpoint":
			out = append(out, p)
		}
		return nil
	})
	if err != nil || len(out) == 0 {
		t.Fatalf("no Kafka-written checkpoints under testdata/replicas: %v", err)
	}
	sort.Strings(out)
	return out
}

// TestKafkaCheckpointsGolden reads every checkpoint Kafka wrote into the
// fixtures; the entries are kept in testdata/checkpoints.golden
// (regenerate with -update).
func TestKafkaCheckpointsGolden(t *testing.T) {
	var b strings.Builder
	for _, p := range kafkaCheckpoints(t) {
		fmt.Fprintf(&b, "%s:", strings.TrimPrefix(filepath.ToSlash(p), "../testdata/replicas/"))
		if filepath.Base(p) == "leader-epoch-checkpoint" {
			es, err := ReadLeaderEpochCheckpoint(p)
			if err != nil {
				t.Fatal(err)
			}
			for _, e := range es {
				fmt.Fprintf(&b, " %d@%d", e.Epoch, e.StartOffset)
			}
			// What kseg would write for the same entries is byte for byte
			// what Kafka wrote.
			raw, _ := os.ReadFile(p)
			if got := AppendLeaderEpochCheckpoint(nil, es); !bytes.Equal(got, raw) {
				t.Errorf("%s: written back %q, Kafka wrote %q", p, got, raw)
			}
		} else {
			es, err := ReadOffsetCheckpoint(p)
			if err != nil {
				t.Fatal(err)
			}
			for _, e := range es {
				fmt.Fprintf(&b, " %s-%d=%d", e.Topic, e.Partition, e.Offset)
			}
		}
		b.WriteString("\n")
	}
	golden := filepath.Join("testdata", "checkpoints.golden")
	if *update {
		if err := os.WriteFile(golden, []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatalf("%v (run with -update to create)", err)
	}
	if b.String() != string(want) {
		t.Errorf("checkpoints differ from %s:\n%s", golden, b.String())
	}
}

func TestCheckpointErrors(t *testing.T) {
	for _, tc := range []struct {
		name, in string
		at       int64
		kind     error
	}{
		{"empty", "", 0, ErrTruncated},
		{"version", "1\n0\n", 0, ErrUnknownVersion},
		{"version not a number", "x\n", 0, ErrCorruptCheckpoint},
		{"no count", "0\n", 2, ErrTruncated},
		{"negative count", "0\n-1\n", 2, ErrCorruptCheckpoint},
		{"fewer entries", "0\n2\n0 0\n", 8, ErrTruncated},
		{"more entries", "0\n1\n0 0\n1 5\n", 8, ErrCorruptCheckpoint},
		{"three fields", "0\n1\n0 0 0\n", 4, ErrCorruptCheckpoint},
		{"negative offset", "0\n1\n0 -5\n", 4, ErrCorruptCheckpoint},
		{"epoch too large", "0\n1\n4294967296 0\n", 4, ErrCorruptCheckpoint},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := ParseLeaderEpochCheckpoint("f", []byte(tc.in))
			var le *located.Error
			if !errors.As(err, &le) || le.File != "f" || le.Offset != tc.at || !errors.Is(err, tc.kind) {
				t.Fatalf("%v (want %v at %d)", err, tc.kind, tc.at)
			}
		})
	}
	if es, err := ParseOffsetCheckpoint("f", []byte("0\n2\na.b-c 3 10\nx 0 -1\n")); err != nil || len(es) != 2 || es[0] != (CheckpointOffset{"a.b-c", 3, 10}) {
		t.Fatalf("%v %v", es, err)
	}
	if _, err := ReadOffsetCheckpoint(filepath.Join(t.TempDir(), "none")); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("missing file: %v", err)
	}
}

// FuzzCheckpoints: any bytes give entries or a located error, never a
// panic; entries that parse are written back and parse again to the same.
func FuzzCheckpoints(f *testing.F) {
	for _, p := range kafkaCheckpoints(f) {
		if b, err := os.ReadFile(p); err == nil {
			f.Add(b)
		}
	}
	f.Add([]byte("0\n1\n0 0\n"))
	f.Add([]byte("0\n99999999999\n"))
	f.Fuzz(func(t *testing.T, b []byte) {
		es, err := ParseLeaderEpochCheckpoint("f", b)
		if err != nil {
			var le *located.Error
			if !errors.As(err, &le) || le.Offset < 0 || le.Offset > int64(len(b)) {
				t.Fatalf("unlocated error %v", err)
			}
		} else {
			again, err := ParseLeaderEpochCheckpoint("f", AppendLeaderEpochCheckpoint(nil, es))
			if err != nil || len(again) != len(es) {
				t.Fatalf("round trip: %v %v", again, err)
			}
		}
		if _, err := ParseOffsetCheckpoint("f", b); err != nil {
			var le *located.Error
			if !errors.As(err, &le) {
				t.Fatalf("unlocated error %v", err)
			}
		}
	})
}
