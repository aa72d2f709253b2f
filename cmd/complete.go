package cmd

import (
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// flagValues are the values shells complete for kseg's flags that take one
// of a fixed set (a flag's help lists the same). A value that is not
// listed (an offset for --from, a percentage for --tolerance) can still be
// typed.
var flagValues = map[string][]string{
	"format":         {formatText, formatJSON},
	"compression":    {"none", "gzip", "snappy", "lz4", "zstd"},
	"acks":           {"all", "-1", "0", "1"},
	"fail-on":        {"info", "warning", "error"},
	"tolerance":      {"minmax"},
	"from":           {"earliest", "latest"},
	"to":             {"earliest", "latest"},
	"codec":          {"none", "gzip", "snappy", "lz4", "zstd"},
	"sasl-mechanism": {"PLAIN", "SCRAM-SHA-256", "SCRAM-SHA-512"},
}

// registerCompletions gives every command's enumerated flags their values
// for shell completion (kseg __complete CMD --format "").
func registerCompletions(root *cobra.Command) {
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		c.LocalNonPersistentFlags().VisitAll(func(f *pflag.Flag) { complete(c, f) })
		c.PersistentFlags().VisitAll(func(f *pflag.Flag) { complete(c, f) })
		for _, sub := range c.Commands() {
			walk(sub)
		}
	}
	walk(root)
}

func complete(c *cobra.Command, f *pflag.Flag) {
	values, ok := flagValues[f.Name]
	if !ok {
		return
	}
	_ = c.RegisterFlagCompletionFunc(f.Name, func(_ *cobra.Command, _ []string, prefix string) ([]string, cobra.ShellCompDirective) {
		var out []string
		for _, v := range values {
			if strings.HasPrefix(v, prefix) {
				out = append(out, v)
			}
		}
		return out, cobra.ShellCompDirectiveNoFileComp
	})
}
