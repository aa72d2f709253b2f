// Package atomicfile writes an output file or directory so that it appears
// whole or not at all: the content is built under a temporary name in the
// same directory, synced to disk, then renamed into place, and an existing
// output is replaced only when the caller asks (--force).
package atomicfile

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
)

// ErrExists matches (errors.Is) the error returned when the output exists
// and replacing it was not asked for.
var ErrExists = errors.New("output exists")

// existsError keeps the wording the commands have always printed while
// matching ErrExists.
type existsError struct{ msg string }

func (e *existsError) Error() string { return e.msg }
func (e *existsError) Unwrap() error { return ErrExists }

func exists(format string, args ...any) error {
	return &existsError{fmt.Sprintf(format, args...)}
}

// Marker is the file WriteDir puts in every directory it writes. --force
// replaces a non-empty directory only when it holds one: a directory kseg
// did not write (a broker's log directory, a home directory given by
// mistake) is never deleted.
const Marker = ".kseg-output"

const markerText = "written by kseg; kseg produce --force may replace this directory\n"

// ErrNotOurs matches (errors.Is) the error returned when --force would
// replace a non-empty directory that holds no Marker; so does ErrExists.
var ErrNotOurs = errors.New("not kseg's output")

type notOursError struct{ dir string }

func (e *notOursError) Error() string {
	return fmt.Sprintf("%s: output directory exists and is not empty, and --force replaces only a directory kseg wrote (one holding %s); this one was not written by kseg, so it is kept: remove it yourself or choose another --out", e.dir, Marker)
}
func (e *notOursError) Unwrap() []error { return []error{ErrNotOurs, ErrExists} }

// ours tells whether dir holds WriteDir's Marker.
func ours(dir string) bool {
	fi, err := os.Lstat(filepath.Join(dir, Marker))
	return err == nil && fi.Mode().IsRegular()
}

// WriteFile writes path through a temporary file in the same directory:
// fill writes the content, the file is synced, made 0644 and renamed into
// place. Without force an existing path is kept: the file is hard-linked
// to path, which fails if path appeared meanwhile, so a file created
// during the write is not clobbered either. The temporary file is removed
// in every case; one an earlier run left when it was killed is removed
// first (cleanStale).
func WriteFile(path string, force bool, fill func(*bufio.Writer) error) error {
	cleanStale(path)
	tmp, err := os.CreateTemp(filepath.Dir(path), tmpPrefix(path)+"*")
	if err != nil {
		return err
	}
	lock(tmp)
	name := tmp.Name()
	defer os.Remove(name)
	w := bufio.NewWriterSize(tmp, 1<<16)
	err = fill(w)
	if err == nil {
		err = w.Flush()
	}
	if err == nil {
		err = tmp.Chmod(0o644)
	}
	if err == nil {
		err = tmp.Sync()
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return err
	}
	if force {
		err = os.Rename(name, path)
	} else if err = os.Link(name, path); errors.Is(err, fs.ErrExist) {
		return exists("%s exists; use --force to replace it", path)
	}
	if err != nil {
		return err
	}
	syncDir(filepath.Dir(path))
	return nil
}

// WriteDir calls fill with a fresh temporary directory beside dir and, if
// it succeeds, adds the Marker, syncs everything and renames the directory
// to dir. dir must not exist or be empty unless force is set and dir holds
// the Marker (WriteDir wrote it); then the old directory is moved aside,
// replaced and deleted. On any failure the
// temporary directory is removed and dir is untouched. The temporary
// directory is locked while it is written, and what an earlier run killed
// mid-write left beside dir is removed first (cleanStale).
func WriteDir(dir string, force bool, fill func(tmp string) error) error {
	if err := checkDir(dir, force); err != nil {
		return err
	}
	parent := filepath.Dir(filepath.Clean(dir))
	if err := os.MkdirAll(parent, 0o755); err != nil {
		return err
	}
	cleanStale(dir)
	tmp, err := os.MkdirTemp(parent, tmpPrefix(dir))
	if err != nil {
		return err
	}
	if f, err := os.Open(tmp); err == nil {
		lock(f)
		defer f.Close()
	}
	err = fill(tmp)
	if err == nil {
		err = os.WriteFile(filepath.Join(tmp, Marker), []byte(markerText), 0o644)
	}
	if err == nil {
		err = os.Chmod(tmp, 0o755)
	}
	if err == nil {
		err = syncTree(tmp)
	}
	if err == nil {
		err = placeDir(tmp, dir, force)
	}
	if err != nil {
		os.RemoveAll(tmp)
		return err
	}
	syncDir(parent)
	return nil
}

func checkDir(dir string, force bool) error {
	fi, err := os.Stat(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	if !fi.IsDir() {
		return exists("%s: output directory exists and is not empty (it is a file)", dir)
	}
	if empty, err := isEmptyDir(dir); err != nil {
		return err
	} else if !empty && !force {
		return exists("%s: output directory exists and is not empty (use --force to replace it)", dir)
	} else if !empty && !ours(dir) {
		return &notOursError{dir}
	}
	return nil
}

func isEmptyDir(dir string) (bool, error) {
	f, err := os.Open(dir)
	if err != nil {
		return false, err
	}
	defer f.Close()
	_, err = f.Readdirnames(1)
	if err == io.EOF {
		return true, nil
	}
	return false, err
}

// placeDir renames the finished tmp directory to dir, moving an existing
// dir aside first (force) and deleting it afterwards.
func placeDir(tmp, dir string, force bool) error {
	fi, err := os.Stat(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return os.Rename(tmp, dir)
	}
	if err != nil {
		return err
	}
	if empty, err := isEmptyDir(dir); err == nil && empty && fi.IsDir() {
		if err := os.Remove(dir); err != nil {
			return err
		}
		return os.Rename(tmp, dir)
	}
	if !force {
		return exists("%s: output directory exists and is not empty", dir)
	}
	if !fi.IsDir() || !ours(dir) {
		return &notOursError{dir}
	}
	old := tmp + ".old"
	if err := os.Rename(dir, old); err != nil {
		return err
	}
	if err := os.Rename(tmp, dir); err != nil {
		os.Rename(old, dir)
		return err
	}
	return os.RemoveAll(old)
}

// syncTree fsyncs every regular file (and, where possible, directory)
// under root, so that renaming root publishes content that is on disk.
func syncTree(root string) error {
	return filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		switch {
		case d.IsDir():
			syncDir(p)
		case d.Type().IsRegular():
			return syncPath(p)
		}
		return nil
	})
}

// syncDir makes a directory's entries durable, as far as the platform
// allows: not every system can fsync a directory (Windows cannot), so a
// failure here is not an error of the write.
func syncDir(dir string) { _ = syncPath(dir) }

func syncPath(p string) error {
	f, err := os.Open(p)
	if err != nil {
		return err
	}
	err = f.Sync()
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}
