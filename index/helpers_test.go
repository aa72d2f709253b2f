package index

import (
	"bytes"
	"encoding/hex"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// unhex decodes hex with spaces/newlines ignored.
func unhex(t testing.TB, s string) []byte {
	t.Helper()
	b, err := hex.DecodeString(strings.Join(strings.Fields(s), ""))
	if err != nil {
		t.Fatalf("bad hex: %v", err)
	}
	return b
}

// realworldDir finds the real-world corpus by walking up from the package
// directory; it skips the test when the corpus is absent.
func realworldDir(t testing.TB) string {
	t.Helper()
	dir, err := os.Getwd()
	if err != nil {
		t.Skip("no working directory")
	}
	for {
		cand := filepath.Join(dir, "shared", "realworld")
		if st, err := os.Stat(cand); err == nil && st.IsDir() {
			return cand
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			t.Skip("real-world corpus not found (set KSEG_REALWORLD); skipping real-world tests")
		}
		dir = parent
	}
}

func kafkaMsg(t *testing.T, err error) string {
	t.Helper()
	m, ok := KafkaMessage(err)
	if !ok {
		t.Fatalf("error %v carries no Kafka message", err)
	}
	return m
}

func reader(b []byte) *bytes.Reader { return bytes.NewReader(b) }

func wantIs(t *testing.T, err, target error) {
	t.Helper()
	if !errors.Is(err, target) {
		t.Fatalf("error %v: want errors.Is %v", err, target)
	}
}
