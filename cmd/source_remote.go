package cmd

import (
	"net/url"

	"github.com/spf13/cobra"

	"github.com/kseg/kseg/internal/remote"
)

// Remote segments as a source for every command: lts://DIR (Kafka's
// LocalTieredStorage directory) and s3://BUCKET/PREFIX[/TOPIC-PARTITION]
// (Aiven tiered-storage plugin layout) register themselves with
// segment.RegisterScheme when package remote is imported. Their options
// ride on the argument's query string (?local=, ?rsa-key=, ...; see package
// remote) or come once for all arguments from the flags below, which kseg
// dump takes too (dumpargs passes them through as RemoteOpts).

// remoteFlags are the flags that fill remote.Defaults, with their help.
var remoteFlags = []struct{ name, option, usage string }{
	{"rsa-key", "rsa-key", "PEM RSA private key for encrypted remote segments (Aiven plugin)"},
	{"s3-endpoint", "endpoint", "S3 endpoint URL (S3-compatible stores); default: the AWS chain"},
	{"s3-region", "region", "S3 region; default: the AWS chain (AWS_REGION, profile)"},
	{"s3-path-style", "path-style", "path-style S3 addressing"},
}

type remoteDefault string

func (o remoteDefault) String() string { return remote.Defaults.Get(string(o)) }
func (o remoteDefault) Type() string   { return "string" }
func (o remoteDefault) Set(v string) error {
	remote.Defaults.Set(string(o), v)
	return nil
}

// addRemoteFlags adds the remote-source flags to every command; each run
// (newRoot) starts from no defaults.
func addRemoteFlags(root *cobra.Command) {
	remote.Defaults = url.Values{}
	for _, f := range remoteFlags {
		root.PersistentFlags().Var(remoteDefault(f.option), f.name, f.usage)
		if f.name == "s3-path-style" {
			root.PersistentFlags().Lookup(f.name).NoOptDefVal = "true"
		}
	}
}

// setRemoteDefaults applies kseg dump's remote options (dumpargs.Args.RemoteOpts).
func setRemoteDefaults(opts map[string]string) {
	for _, f := range remoteFlags {
		if v, ok := opts[f.name]; ok {
			remote.Defaults.Set(f.option, v)
		}
	}
}
