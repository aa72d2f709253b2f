// Package atomicfile writes a file so that readers see either the old
// content or the whole new content, never a partial file.
package atomicfile

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"path/filepath"
)

// Write writes path through a temporary file in the same directory and
// renames it into place, mode 0644. Without force an existing file is kept
// and an error returned; the check is made at rename time with a hard
// link, so a file created meanwhile is not clobbered either.
func Write(path string, force bool, fill func(*bufio.Writer) error) error {
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".tmp-*")
	if err != nil {
		return err
	}
	name := tmp.Name()
	defer os.Remove(name)
	w := bufio.NewWriterSize(tmp, 1<<16)
	if err := fill(w); err != nil {
		tmp.Close()
		return err
	}
	if err := w.Flush(); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Chmod(0o644); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	if force {
		return os.Rename(name, path)
	}
	if err := os.Link(name, path); err != nil {
		if errors.Is(err, os.ErrExist) {
			return fmt.Errorf("%s exists; use --force to replace it", path)
		}
		return err
	}
	return nil
}
