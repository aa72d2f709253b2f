//go:build !unix

package rfile

import "os"

// Open opens a file for reading.
func Open(path string) (*os.File, error) { return os.Open(path) }
