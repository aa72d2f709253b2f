package segment

import (
	"encoding/binary"
	"os"
	"slices"
	"syscall"
)

// listFiles returns the names of the files (every entry but
// sub-directories, "." and "..") in dir, sorted, as os.ReadDir would list
// them. It reads the directory with one open and getdents64 into buf,
// without os.File's finalizer and poller set-up or a DirEntry per name:
// over thousands of small partition directories those cost as much as
// the system calls.
func listFiles(dir string, buf []byte) ([]string, error) {
	var fd int
	var err error
	for {
		fd, err = syscall.Open(dir, syscall.O_RDONLY|syscall.O_DIRECTORY|syscall.O_CLOEXEC, 0)
		if err != syscall.EINTR {
			break
		}
	}
	if err != nil {
		return nil, &os.PathError{Op: "open", Path: dir, Err: err}
	}
	defer syscall.Close(fd)
	var names []string
	for {
		n, err := syscall.Getdents(fd, buf)
		if err == syscall.EINTR {
			continue
		}
		if err != nil {
			return nil, &os.PathError{Op: "readdirent", Path: dir, Err: err}
		}
		if n <= 0 {
			break
		}
		names = appendDirents(names, buf[:n], func(name string) bool {
			st, err := os.Lstat(dir + "/" + name)
			return err == nil && st.IsDir()
		})
	}
	slices.Sort(names)
	return names, nil
}

// appendDirents appends the names in b, a getdents64 buffer (struct
// linux_dirent64 { u64 ino; s64 off; u16 reclen; u8 type; char name[]; }),
// but for ".", ".." and directories; isDir decides for entries of unknown
// type (file systems without d_type). A record that does not fit ends the
// buffer.
func appendDirents(names []string, b []byte, isDir func(string) bool) []string {
	for len(b) >= 19 {
		reclen := int(binary.NativeEndian.Uint16(b[16:]))
		if reclen < 19 || reclen > len(b) {
			break
		}
		typ, rec := b[18], b[19:reclen]
		b = b[reclen:]
		end := 0
		for end < len(rec) && rec[end] != 0 {
			end++
		}
		name := rec[:end]
		switch {
		case string(name) == "." || string(name) == "..", typ == syscall.DT_DIR:
		case typ == syscall.DT_UNKNOWN && isDir(string(name)):
		default:
			names = append(names, string(name))
		}
	}
	return names
}
