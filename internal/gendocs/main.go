// Command gendocs writes kseg's man pages (docs/man/kseg*.1) and markdown
// command reference (docs/reference/kseg*.md) from the cobra command tree.
// Run it from anywhere in the repository after changing a command, a flag
// or a help text:
//
//	go run ./internal/gendocs
//
// TestGeneratedDocsUpToDate fails when the committed files differ from what
// it would write.
package main

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/cobra/doc"
	"github.com/spf13/pflag"

	"github.com/kseg/kseg/cmd"
)

// manDate is the date every man page carries, fixed so that regenerating
// changes nothing unless the commands do.
var manDate = time.Date(2026, time.January, 1, 0, 0, 0, 0, time.UTC)

func main() {
	root, err := repoRoot()
	if err == nil {
		err = generate(cmd.Root(), filepath.Join(root, "docs", "man"), filepath.Join(root, "docs", "reference"))
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "gendocs:", err)
		os.Exit(1)
	}
}

// repoRoot is the directory of go.mod at or above the working directory.
func repoRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", errors.New("no go.mod above the working directory; run from the kseg repository")
		}
		dir = parent
	}
}

// generate replaces manDir's kseg*.1 and mdDir's kseg*.md with the pages of
// root's tree.
func generate(root *cobra.Command, manDir, mdDir string) error {
	normalize(root)
	for _, d := range []struct{ dir, glob string }{{manDir, "kseg*.1"}, {mdDir, "kseg*.md"}} {
		if err := os.MkdirAll(d.dir, 0o755); err != nil {
			return err
		}
		old, err := filepath.Glob(filepath.Join(d.dir, d.glob))
		if err != nil {
			return err
		}
		for _, f := range old {
			if err := os.Remove(f); err != nil {
				return err
			}
		}
	}
	header := &doc.GenManHeader{Section: "1", Source: "kseg", Manual: "kseg manual", Date: &manDate}
	if err := doc.GenManTree(root, header, manDir); err != nil {
		return err
	}
	return doc.GenMarkdownTree(root, mdDir)
}

// normalize makes the pages the same on every machine and date: no
// "Auto generated ... on DATE" line, and defaults that depend on the machine
// (--workers is GOMAXPROCS) named rather than printed.
func normalize(c *cobra.Command) {
	c.DisableAutoGenTag = true
	fix := func(f *pflag.Flag) {
		if f.Name == "workers" {
			f.DefValue = "GOMAXPROCS"
		}
	}
	c.LocalFlags().VisitAll(fix)
	c.Flags().VisitAll(fix)
	c.PersistentFlags().VisitAll(fix)
	for _, sub := range c.Commands() {
		normalize(sub)
	}
}
