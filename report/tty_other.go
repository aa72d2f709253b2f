//go:build !linux

package report

import "os"

// isTerminal falls back to "a character device" off Linux.
func isTerminal(f *os.File) bool {
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}
