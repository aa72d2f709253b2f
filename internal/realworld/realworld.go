// Package realworld locates the real-world corpus of Kafka files that kseg did
// not write (a directory beside the repository, or $KSEG_REALWORLD). Tests skip when it
// is absent, so the repository never depends on it.
package realworld

import (
	"os"
	"path/filepath"
	"testing"
)

// Dir returns the corpus directory, or skips t when it cannot be found.
func Dir(t testing.TB) string {
	t.Helper()
	if d := os.Getenv("KSEG_REALWORLD"); d != "" {
		return d
	}
	wd, err := os.Getwd()
	if err != nil {
		t.Skip("realworld corpus: no working directory")
	}
	for d := wd; ; d = filepath.Dir(d) {
		cand := filepath.Join(d, "shared", "realworld")
		if st, err := os.Stat(cand); err == nil && st.IsDir() {
			return cand
		}
		if filepath.Dir(d) == d {
			break
		}
	}
	t.Skip("real-world corpus not found: set KSEG_REALWORLD, or keep it beside the repository")
	return ""
}
