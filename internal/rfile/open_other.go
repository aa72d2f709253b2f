//go:build !unix

package rfile

import "os"

// OpenInfo opens a file for reading and says what it is; anything but a
// regular file or a directory is refused with ErrNotRegular.
func OpenInfo(path string) (*os.File, Info, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, Info{}, err
	}
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, Info{}, err
	}
	if !st.Mode().IsRegular() && !st.IsDir() {
		f.Close()
		return nil, Info{}, &os.PathError{Op: "open", Path: path, Err: ErrNotRegular}
	}
	return f, Info{Size: st.Size(), Dir: st.IsDir()}, nil
}
