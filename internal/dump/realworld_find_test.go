package dump

import (
	"path/filepath"

	"github.com/kseg/kseg/internal/realworld"
)

// realworldSegments is the real-world corpus's segments directory, or ""
// when the corpus is absent.
func realworldSegments() string {
	d := realworld.Find()
	if d == "" {
		return ""
	}
	return filepath.Join(d, "segments")
}
