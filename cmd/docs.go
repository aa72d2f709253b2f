package cmd

import (
	"os"

	"github.com/spf13/cobra"
)

// Root returns kseg's command tree, writing to os.Stdout and os.Stderr, for
// tools that walk it: internal/gendocs generates the man pages and the
// markdown command reference from it.
func Root() *cobra.Command { return newRoot(os.Stdout, os.Stderr) }
