package main

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/kseg/kseg/cmd"
)

// TestGeneratedDocsUpToDate regenerates the man pages and the markdown
// reference into a temporary directory and compares them with the committed
// docs/man and docs/reference. When it fails, run: go run ./internal/gendocs
func TestGeneratedDocsUpToDate(t *testing.T) {
	tmp := t.TempDir()
	man, md := filepath.Join(tmp, "man"), filepath.Join(tmp, "reference")
	if err := generate(cmd.Root(), man, md); err != nil {
		t.Fatal(err)
	}
	stale := false
	for _, d := range []struct{ got, want, glob string }{
		{man, "../../docs/man", "kseg*.1"},
		{md, "../../docs/reference", "kseg*.md"},
	} {
		gen, _ := filepath.Glob(filepath.Join(d.got, d.glob))
		committed, _ := filepath.Glob(filepath.Join(d.want, d.glob))
		names := map[string]bool{}
		for _, f := range committed {
			names[filepath.Base(f)] = true
		}
		for _, f := range gen {
			name := filepath.Base(f)
			want, err := os.ReadFile(filepath.Join(d.want, name))
			if err != nil {
				t.Errorf("%s: not committed", filepath.Join(d.want, name))
				stale = true
				continue
			}
			delete(names, name)
			got, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got, want) {
				t.Errorf("%s: differs from what the command tree generates", filepath.Join(d.want, name))
				stale = true
			}
		}
		for name := range names {
			t.Errorf("%s: no such command any more", filepath.Join(d.want, name))
			stale = true
		}
	}
	if stale {
		t.Log("the generated docs are stale; regenerate them with: go run ./internal/gendocs")
	}
}
