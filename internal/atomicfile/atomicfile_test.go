package atomicfile

import (
	"bufio"
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"
)

func writeString(s string) func(*bufio.Writer) error {
	return func(w *bufio.Writer) error { _, err := w.WriteString(s); return err }
}

func readString(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// noTemps fails if a temporary name is left in dir.
func noTemps(t *testing.T, dir string) {
	t.Helper()
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range ents {
		if strings.HasPrefix(e.Name(), ".") {
			t.Errorf("left behind %s", e.Name())
		}
	}
}

func TestWriteFile(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "out.html")
	if err := WriteFile(path, false, writeString("one")); err != nil {
		t.Fatal(err)
	}
	if got := readString(t, path); got != "one" {
		t.Errorf("content %q", got)
	}
	if fi, _ := os.Stat(path); fi.Mode().Perm() != 0o644 {
		t.Errorf("mode %v", fi.Mode())
	}
	err := WriteFile(path, false, writeString("two"))
	if !errors.Is(err, ErrExists) || err.Error() != path+" exists; use --force to replace it" {
		t.Errorf("overwrite without force: %v", err)
	}
	if got := readString(t, path); got != "one" {
		t.Errorf("refused write changed the file: %q", got)
	}
	if err := WriteFile(path, true, writeString("three")); err != nil {
		t.Fatal(err)
	}
	if got := readString(t, path); got != "three" {
		t.Errorf("forced write: %q", got)
	}
	// A file that appears while fill runs is not clobbered.
	late := filepath.Join(dir, "late.html")
	err = WriteFile(late, false, func(w *bufio.Writer) error {
		return os.WriteFile(late, []byte("theirs"), 0o644)
	})
	if !errors.Is(err, ErrExists) || readString(t, late) != "theirs" {
		t.Errorf("late file: %v, %q", err, readString(t, late))
	}
	// A failing fill leaves nothing.
	boom := errors.New("boom")
	if err := WriteFile(filepath.Join(dir, "bad.html"), false, func(*bufio.Writer) error { return boom }); err != boom {
		t.Errorf("fill error: %v", err)
	}
	if _, err := os.Stat(filepath.Join(dir, "bad.html")); !errors.Is(err, os.ErrNotExist) {
		t.Error("failed write created its output")
	}
	noTemps(t, dir)
}

func TestWriteDir(t *testing.T) {
	root := t.TempDir()
	out := filepath.Join(root, "sub", "out")
	fill := func(content string) func(string) error {
		return func(tmp string) error {
			if err := os.Mkdir(filepath.Join(tmp, "p-0"), 0o755); err != nil {
				return err
			}
			return os.WriteFile(filepath.Join(tmp, "p-0", "f"), []byte(content), 0o644)
		}
	}
	if err := WriteDir(out, false, fill("one")); err != nil {
		t.Fatal(err)
	}
	if got := readString(t, filepath.Join(out, "p-0", "f")); got != "one" {
		t.Errorf("content %q", got)
	}
	if fi, _ := os.Stat(out); fi.Mode().Perm() != 0o755 {
		t.Errorf("mode %v", fi.Mode())
	}
	err := WriteDir(out, false, fill("two"))
	if !errors.Is(err, ErrExists) || err.Error() != out+": output directory exists and is not empty (use --force to replace it)" {
		t.Errorf("overwrite without force: %v", err)
	}
	if err := WriteDir(out, true, fill("three")); err != nil {
		t.Fatal(err)
	}
	if got := readString(t, filepath.Join(out, "p-0", "f")); got != "three" {
		t.Errorf("forced write: %q", got)
	}
	// An empty directory is replaced without force; a file never is.
	empty := filepath.Join(root, "empty")
	os.Mkdir(empty, 0o755)
	if err := WriteDir(empty, false, fill("x")); err != nil {
		t.Errorf("empty dir: %v", err)
	}
	file := filepath.Join(root, "file")
	os.WriteFile(file, []byte("f"), 0o644)
	if err := WriteDir(file, true, fill("x")); !errors.Is(err, ErrExists) || !strings.HasSuffix(err.Error(), "(it is a file)") {
		t.Errorf("file as output: %v", err)
	}
	// A directory filled while the run was going is not replaced.
	late := filepath.Join(root, "late")
	err = WriteDir(late, false, func(tmp string) error {
		os.Mkdir(late, 0o755)
		return os.WriteFile(filepath.Join(late, "theirs"), nil, 0o644)
	})
	if !errors.Is(err, ErrExists) {
		t.Errorf("late directory: %v", err)
	}
	if _, err := os.Stat(filepath.Join(late, "theirs")); err != nil {
		t.Error("late directory was replaced")
	}
	// A failing fill leaves nothing.
	boom := errors.New("boom")
	if err := WriteDir(filepath.Join(root, "bad"), false, func(string) error { return boom }); err != boom {
		t.Errorf("fill error: %v", err)
	}
	if _, err := os.Stat(filepath.Join(root, "bad")); !errors.Is(err, os.ErrNotExist) {
		t.Error("failed run created its output")
	}
	noTemps(t, root)
	noTemps(t, filepath.Join(root, "sub"))
}

// A run killed mid-write (kill -9) leaves its temporary directory or file
// beside the output; the next write removes it, and only it: not another
// run's that is locked or newer than this process, nor a name kseg does
// not write.
func TestStaleTempsCleaned(t *testing.T) {
	root := t.TempDir()
	if !unlocked(filepath.Join(root, "none")) {
		t.Skip("no advisory locks on " + runtime.GOOS + ": nothing is cleaned")
	}
	old := started.Add(-time.Hour)
	mk := func(name string, dir bool) string {
		p := filepath.Join(root, name)
		if dir {
			if err := os.MkdirAll(p, 0o755); err != nil {
				t.Fatal(err)
			}
			os.WriteFile(filepath.Join(p, "00000000000000000000.log"), []byte("x"), 0o644)
		} else {
			os.WriteFile(p, []byte("x"), 0o644)
		}
		os.Chtimes(p, old, old)
		return p
	}
	stale := mk(".big.tmp-1234567", true)
	staleOld := mk(".big.tmp-99.old", true)
	staleFile := mk(".page.html.tmp-42", false)
	notOurs := mk(".big.tmp-notdigits", true)
	other := mk(".bigger.tmp-77", true)
	fresh := mk(".big.tmp-555", true)
	now := time.Now().Add(time.Minute)
	os.Chtimes(fresh, now, now)
	locked := mk(".big.tmp-888", true)
	f, err := os.Open(locked)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	lock(f)
	os.Chtimes(locked, old, old)

	if err := WriteDir(filepath.Join(root, "big"), false, func(string) error { return nil }); err != nil {
		t.Fatal(err)
	}
	if err := WriteFile(filepath.Join(root, "page.html"), false, writeString("<p>")); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{stale, staleOld, staleFile} {
		if _, err := os.Lstat(p); err == nil {
			t.Errorf("%s left behind", filepath.Base(p))
		}
	}
	for _, p := range []string{notOurs, other, fresh, locked} {
		if _, err := os.Lstat(p); err != nil {
			t.Errorf("%s removed: %v", filepath.Base(p), err)
		}
	}
}

// --force replaces a directory WriteDir wrote, never one it did not: a
// broker's partition directory or a home directory given as --out stays.
func TestForceKeepsForeignDir(t *testing.T) {
	root := t.TempDir()
	foreign := filepath.Join(root, "orders-0")
	os.Mkdir(foreign, 0o755)
	os.WriteFile(filepath.Join(foreign, "00000000000000000000.log"), []byte("theirs"), 0o644)
	err := WriteDir(foreign, true, func(string) error { return nil })
	if !errors.Is(err, ErrNotOurs) || !errors.Is(err, ErrExists) || !strings.Contains(err.Error(), "not written by kseg") {
		t.Errorf("--force on a foreign directory: %v", err)
	}
	if got := readString(t, filepath.Join(foreign, "00000000000000000000.log")); got != "theirs" {
		t.Errorf("foreign directory changed: %q", got)
	}
	ents, _ := os.ReadDir(root)
	if len(ents) != 1 {
		t.Errorf("left beside it: %v", ents)
	}
	// What WriteDir wrote holds the marker and is replaced.
	ours := filepath.Join(root, "ours")
	for _, s := range []string{"one", "two"} {
		if err := WriteDir(ours, true, func(tmp string) error { return os.WriteFile(filepath.Join(tmp, "f"), []byte(s), 0o644) }); err != nil {
			t.Fatal(err)
		}
	}
	if got := readString(t, filepath.Join(ours, "f")); got != "two" {
		t.Errorf("forced write: %q", got)
	}
	if _, err := os.Stat(filepath.Join(ours, Marker)); err != nil {
		t.Error(err)
	}
}
