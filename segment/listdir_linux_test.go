package segment

import (
	"encoding/binary"
	"strings"
	"syscall"
	"testing"
)

// dirent is one struct linux_dirent64 record, padded to 8 bytes as the
// kernel writes them.
func dirent(name string, typ byte) []byte {
	n := (19 + len(name) + 1 + 7) &^ 7
	b := make([]byte, n)
	binary.NativeEndian.PutUint16(b[16:], uint16(n))
	b[18] = typ
	copy(b[19:], name)
	return b
}

// FuzzDirents: any getdents64 buffer parses without a panic, and every
// name it yields is a name a directory can hold.
func FuzzDirents(f *testing.F) {
	var seed []byte
	for _, e := range []struct {
		name string
		typ  byte
	}{{".", syscall.DT_DIR}, {"..", syscall.DT_DIR}, {"00000000000000000000.log", syscall.DT_REG}, {"sub", syscall.DT_DIR}, {"x.index", syscall.DT_UNKNOWN}} {
		seed = append(seed, dirent(e.name, e.typ)...)
	}
	f.Add(seed)
	f.Add(seed[:len(seed)-3])
	f.Fuzz(func(t *testing.T, b []byte) {
		for _, name := range appendDirents(nil, b, func(string) bool { return false }) {
			if name == "." || name == ".." || strings.ContainsRune(name, 0) {
				t.Fatalf("name %q", name)
			}
		}
	})
}
