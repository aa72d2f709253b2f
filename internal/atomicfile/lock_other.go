//go:build !unix

package atomicfile

import "os"

// lock: no advisory locks here.
func lock(*os.File) {}

// unlocked cannot tell whether another run still writes path, so nothing
// is cleaned on these systems.
func unlocked(string) bool { return false }
