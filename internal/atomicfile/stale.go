package atomicfile

import (
	"os"
	"path/filepath"
	"strings"
	"time"
)

// started is about when this process started: a temporary name modified
// later may be another run's that is still being created.
var started = time.Now()

// tmpPrefix is the start of the temporary names beside path: "."+base+".tmp-",
// followed by the random digits os.CreateTemp and os.MkdirTemp add.
func tmpPrefix(path string) string {
	return "." + filepath.Base(filepath.Clean(path)) + ".tmp-"
}

// ownTemp tells whether name is one of kseg's temporary names for the
// output with the given prefix: the prefix, digits, and for a replaced
// directory moved aside, ".old". tmp is the temporary name name belongs to.
func ownTemp(name, prefix string) (tmp string, ok bool) {
	rest, found := strings.CutPrefix(name, prefix)
	if !found {
		return "", false
	}
	digits := strings.TrimSuffix(rest, ".old")
	if digits == "" || strings.Trim(digits, "0123456789") != "" {
		return "", false
	}
	return prefix + digits, true
}

// cleanStale removes what an earlier run writing path left beside it when
// it was killed (kill -9, a power cut): kseg's own temporary names for
// path only, modified before this process started, and not locked by a
// run still writing them. Nothing else in dir is touched, and a failure
// to clean is not an error of the write.
func cleanStale(path string) {
	dir := filepath.Dir(filepath.Clean(path))
	prefix := tmpPrefix(path)
	entries, err := os.ReadDir(dir)
	if err != nil {
		return
	}
	for _, e := range entries {
		tmp, ok := ownTemp(e.Name(), prefix)
		if !ok {
			continue
		}
		p := filepath.Join(dir, e.Name())
		fi, err := os.Lstat(p)
		if err != nil || !fi.ModTime().Before(started) {
			continue
		}
		// A directory moved aside is its writer's while the temporary
		// directory it is replaced by is locked.
		if !unlocked(filepath.Join(dir, tmp)) || !unlocked(p) {
			continue
		}
		os.RemoveAll(p)
	}
}
