//go:build !linux

package segment

import "os"

// listFiles returns the names of the files (every entry but
// sub-directories) in dir, sorted.
func listFiles(dir string, _ []byte) ([]string, error) {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	var names []string
	for _, e := range ents {
		if !e.IsDir() {
			names = append(names, e.Name())
		}
	}
	return names, nil
}
