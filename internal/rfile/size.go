package rfile

import "os"

// TotalSize is the total size of the regular files among paths, each
// counted up to limit bytes when limit > 0: what a scan will read, for the
// ETA.
func TotalSize(paths []string, limit int64) int64 {
	var n int64
	for _, p := range paths {
		if st, err := os.Stat(p); err == nil && st.Mode().IsRegular() {
			size := st.Size()
			if limit > 0 && size > limit {
				size = limit
			}
			n += size
		}
	}
	return n
}
