package report

import (
	"os"

	"golang.org/x/sys/unix"
)

// isTerminal asks the kernel for the terminal attributes: /dev/null is a
// character device but has none.
func isTerminal(f *os.File) bool {
	_, err := unix.IoctlGetTermios(int(f.Fd()), unix.TCGETS)
	return err == nil
}
