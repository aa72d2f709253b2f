// Package procio reads this process's I/O counters, for benchmarks that
// measure how many bytes a command read.
package procio

import (
	"os"
	"strconv"
	"strings"
)

// ReadChars is /proc/self/io's rchar: the bytes this process has read
// (read(2), pread(2) and the like, from any file), or -1 where the file
// is not there (not Linux).
func ReadChars() int64 {
	b, err := os.ReadFile("/proc/self/io")
	if err != nil {
		return -1
	}
	for _, l := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(l, "rchar: "); ok {
			n, _ := strconv.ParseInt(v, 10, 64)
			return n
		}
	}
	return -1
}
