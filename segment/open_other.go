//go:build !unix

package segment

import "os"

// openRead opens a file for reading.
func openRead(path string) (*os.File, error) { return os.Open(path) }
