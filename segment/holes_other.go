//go:build !linux

package segment

import "io"

// nextData: no hole skipping here; nextNonZero reads the zeros.
func nextData(r io.ReaderAt, off int64) (pos int64, end, ok bool) { return 0, false, false }
