package segment

import (
	"io"
	"os"
	"syscall"
)

const seekData = 3 // SEEK_DATA

// nextData is where the file r holds data at or after off, skipping a hole
// of a sparse file without reading it (lseek SEEK_DATA); ok is false when r
// is not a file or the file system cannot say. end is true when no data
// follows off.
func nextData(r io.ReaderAt, off int64) (pos int64, end, ok bool) {
	if ra, ok := r.(*readAhead); ok {
		r = ra.f
	}
	f, isFile := r.(*os.File)
	if !isFile {
		return 0, false, false
	}
	n, err := syscall.Seek(int(f.Fd()), off, seekData)
	if err == syscall.ENXIO {
		return 0, true, true
	}
	if err != nil {
		return 0, false, false
	}
	return n, false, true
}
