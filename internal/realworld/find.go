package realworld

import (
	"os"
	"path/filepath"
)

// Find returns the corpus directory, or "" when it cannot be found: for
// tests that read the corpus when it is there and go on without it. It
// looks where Dir looks.
func Find() string {
	if d := os.Getenv("KSEG_REALWORLD"); d != "" {
		return d
	}
	wd, err := os.Getwd()
	if err != nil {
		return ""
	}
	for d := wd; ; d = filepath.Dir(d) {
		cand := filepath.Join(d, "shared", "realworld")
		if st, err := os.Stat(cand); err == nil && st.IsDir() {
			return cand
		}
		if filepath.Dir(d) == d {
			return ""
		}
	}
}
