package dump

import (
	"path/filepath"
	"syscall"

	"github.com/kseg/kseg/internal/javaorder"
)

// kafka-dump-log's summary maps are HashMap<String, _> filled by
// computeIfAbsent and keyed by File.getAbsolutePath(); javaorder.HashMap
// replays them, so the summaries come out in Java's order.
type javaHashMap[K comparable] = javaorder.HashMap[K]

func newJavaStringMap() *javaHashMap[string] { return javaorder.NewStringMap() }
func newJavaLongMap() *javaHashMap[int64]    { return javaorder.NewLongMap() }

// javaAbsolutePath is File.getAbsolutePath on Unix, the key of Kafka's
// summary maps: the path as File normalizes it (javaFileString), resolved
// against the JVM's user.dir, which is getcwd(3) — the physical directory,
// not $PWD — without cleaning "." or ".." (filepath.Abs does both).
func javaAbsolutePath(name string) string {
	if isURL(name) {
		return name // a kafka://, s3:// or lts:// segment is no file to resolve
	}
	p := javaFileString(name)
	if filepath.IsAbs(p) {
		return p
	}
	wd, err := physicalWd()
	if err != nil {
		return p
	}
	switch {
	case p == "":
		return wd
	case wd == "/":
		return "/" + p
	}
	return wd + "/" + p
}

// physicalWd is getcwd(3), where the JVM takes user.dir from.
var physicalWd = syscall.Getwd
