package atomicfile

import (
	"bufio"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestWrite(t *testing.T) {
	boom := errors.New("boom")
	write := func(s string) func(*bufio.Writer) error {
		return func(w *bufio.Writer) error { _, err := w.WriteString(s); return err }
	}
	tests := []struct {
		name     string
		existing string // "" = no file
		force    bool
		fill     func(*bufio.Writer) error
		want     string // content afterwards
		err      string
	}{
		{"new file", "", false, write("new"), "new", ""},
		{"kept without force", "old", false, write("new"), "old", "exists; use --force to replace it"},
		{"replaced with force", "old", true, write("new"), "new", ""},
		{"failed fill leaves the old file", "old", true, func(*bufio.Writer) error { return boom }, "old", "boom"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			path := filepath.Join(dir, "out.html")
			if tc.existing != "" {
				if err := os.WriteFile(path, []byte(tc.existing), 0o600); err != nil {
					t.Fatal(err)
				}
			}
			err := Write(path, tc.force, tc.fill)
			if (err == nil) != (tc.err == "") || (err != nil && !strings.Contains(err.Error(), tc.err)) {
				t.Fatalf("error %v, want %q", err, tc.err)
			}
			b, _ := os.ReadFile(path)
			if string(b) != tc.want {
				t.Errorf("content %q, want %q", b, tc.want)
			}
			if ents, _ := os.ReadDir(dir); len(ents) != 1 {
				t.Errorf("%d entries left in the directory, want 1 (no temporary files)", len(ents))
			}
			if st, err := os.Stat(path); err == nil && tc.err == "" && st.Mode().Perm() != 0o644 {
				t.Errorf("mode %v, want 0644", st.Mode().Perm())
			}
		})
	}
}
