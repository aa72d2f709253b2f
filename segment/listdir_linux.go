package segment

import (
	"os"
	"slices"
	"syscall"
	"unsafe"
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
		// struct linux_dirent64 { u64 ino; s64 off; u16 reclen; u8 type; char name[]; }
		for b := buf[:n]; len(b) >= 19; {
			reclen := int(*(*uint16)(unsafe.Pointer(&b[16])))
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
			if string(name) == "." || string(name) == ".." {
				continue
			}
			if typ == syscall.DT_DIR {
				continue
			}
			if typ == syscall.DT_UNKNOWN { // file systems without d_type
				if st, err := os.Lstat(dir + "/" + string(name)); err == nil && st.IsDir() {
					continue
				}
			}
			names = append(names, string(name))
		}
	}
	slices.Sort(names)
	return names, nil
}
