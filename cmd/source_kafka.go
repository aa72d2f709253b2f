package cmd

import (
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/kseg/kseg/internal/wire"
)

// Flags of kafka:// sources, shared by count, audit, dump, diff and report.
type wireFlags struct {
	from, to      string
	commandConfig string
	tls           bool
	tlsCA         string
	tlsCert       string
	tlsKey        string
	saslMechanism string
	saslUser      string
	saslPassEnv   string
	fetchBytes    int
}

const wireFlagHelp = `kafka://HOST:PORT[,HOST:PORT...]/TOPIC[/PARTITION] reads batches from a live
cluster (every partition when none is named; TOPIC may be a regular expression).`

func (w *wireFlags) add(fs *pflag.FlagSet) {
	fs.StringVar(&w.from, "from", "", "kafka:// sources: first offset: earliest|latest|OFFSET|@RFC3339|@MILLIS (default earliest)")
	fs.StringVar(&w.to, "to", "", "kafka:// sources: end offset, exclusive, likewise (default latest: the high watermark)")
	fs.StringVar(&w.commandConfig, "command-config", "", "kafka:// sources: Kafka client properties (security.protocol, sasl.*, ssl.* with PEM files)")
	fs.BoolVar(&w.tls, "tls", false, "kafka:// sources: connect with TLS")
	fs.StringVar(&w.tlsCA, "tls-ca", "", "kafka:// sources: PEM file of the CA certificates to trust")
	fs.StringVar(&w.tlsCert, "tls-cert", "", "kafka:// sources: PEM client certificate")
	fs.StringVar(&w.tlsKey, "tls-key", "", "kafka:// sources: PEM client key")
	fs.StringVar(&w.saslMechanism, "sasl-mechanism", "", "kafka:// sources: PLAIN|SCRAM-SHA-256|SCRAM-SHA-512")
	fs.StringVar(&w.saslUser, "sasl-user", "", "kafka:// sources: SASL user")
	fs.StringVar(&w.saslPassEnv, "sasl-password-env", "KSEG_SASL_PASSWORD", "kafka:// sources: environment variable holding the SASL password")
	fs.IntVar(&w.fetchBytes, "fetch-bytes", wire.DefaultFetchBytes, "kafka:// sources: bytes asked for per Fetch (a larger batch is fetched whole)")
}

// configure hands the flags to package wire.
func (w *wireFlags) configure() error {
	var c wire.Config
	var err error
	if c.From, err = wire.ParseBound(w.from); err != nil {
		return withCode(ExitUsage, fmt.Errorf("--from %w", err))
	}
	if c.To, err = wire.ParseBound(w.to); err != nil {
		return withCode(ExitUsage, fmt.Errorf("--to %w", err))
	}
	if w.fetchBytes <= 0 || w.fetchBytes > wire.MaxFetchBytes {
		return withCode(ExitUsage, fmt.Errorf("--fetch-bytes %d: want 1..%d", w.fetchBytes, wire.MaxFetchBytes))
	}
	c.FetchBytes = int32(w.fetchBytes)
	var sec wire.Security
	if w.commandConfig != "" {
		props, err := wire.ReadProperties(w.commandConfig)
		if err != nil {
			return withCode(ExitUsage, fmt.Errorf("--command-config: %w", err))
		}
		if sec, err = wire.FromProperties(props); err != nil {
			return withCode(ExitUsage, fmt.Errorf("--command-config %s: %w", w.commandConfig, err))
		}
	}
	sec.TLS = sec.TLS || w.tls
	for _, kv := range []struct {
		dst *string
		v   string
	}{{&sec.CAFile, w.tlsCA}, {&sec.CertFile, w.tlsCert}, {&sec.KeyFile, w.tlsKey}, {&sec.Mechanism, strings.ToUpper(w.saslMechanism)}, {&sec.User, w.saslUser}} {
		if kv.v != "" {
			*kv.dst = kv.v
		}
	}
	if p := os.Getenv(w.saslPassEnv); p != "" && w.saslPassEnv != "" {
		sec.Password = p
	}
	if c.TLS, c.SASL, err = sec.Build(); err != nil {
		return withCode(ExitUsage, err)
	}
	wire.Configure(c)
	return nil
}

// sourceCommands take kafka:// sources besides paths.
var sourceCommands = map[string]bool{"count": true, "audit": true, "diff": true, "report": true}

// addSourceFlags gives the commands that read sources the kafka:// flags,
// and closes the connections and redacts credentials when they end.
func addSourceFlags(root *cobra.Command) {
	for _, c := range root.Commands() {
		if !sourceCommands[c.Name()] && c.Name() != "dump" {
			continue
		}
		w := &wireFlags{}
		if c.Name() != "dump" {
			w.add(c.Flags())
			c.Long += "\n\n" + wireFlagHelp
		}
		run := c.RunE
		c.RunE = func(c *cobra.Command, args []string) error {
			defer wire.CloseAll()
			if c.Name() != "dump" {
				if err := w.configure(); err != nil {
					return err
				}
			}
			return redacted(run(c, args))
		}
	}
}

// takeWireArgs removes the kafka:// flags from dump's argument list (which
// dumpargs parses as kafka-dump-log's) and configures package wire.
func takeWireArgs(args []string) ([]string, error) {
	fs := pflag.NewFlagSet("dump", pflag.ContinueOnError)
	w := &wireFlags{}
	w.add(fs)
	var rest []string
	for i := 0; i < len(args); i++ {
		a := args[i]
		name, _, hasValue := strings.Cut(strings.TrimPrefix(a, "--"), "=")
		f := fs.Lookup(name)
		if !strings.HasPrefix(a, "--") || f == nil {
			rest = append(rest, a)
			continue
		}
		v := "true"
		if hasValue {
			_, v, _ = strings.Cut(a, "=")
		} else if f.Value.Type() != "bool" {
			if i+1 >= len(args) {
				return nil, withCode(ExitUsage, fmt.Errorf("%s needs a value", a))
			}
			i++
			v = args[i]
		}
		if err := fs.Set(name, v); err != nil {
			return nil, withCode(ExitUsage, fmt.Errorf("%s: %w", a, err))
		}
	}
	return rest, w.configure()
}

// redactedError is an error whose text has the registered secrets removed.
// Its text is fixed when made: the secrets are forgotten when the command
// ends, before the error is printed.
type redactedError struct {
	err error
	msg string
}

func (e redactedError) Error() string { return e.msg }
func (e redactedError) Unwrap() error { return e.err }

func redacted(err error) error {
	if err == nil {
		return nil
	}
	var ee *exitError
	if errors.As(err, &ee) {
		return &exitError{code: ee.code, err: redactedError{ee.err, wire.Redact(ee.err.Error())}}
	}
	var se silentExit
	if errors.As(err, &se) {
		return err
	}
	return redactedError{err, wire.Redact(err.Error())}
}

// wireHint is the hint for errors reading a cluster.
func wireHint(err error) string {
	switch {
	case errors.Is(err, wire.ErrAuth):
		return "check the SASL user and password (--command-config, --sasl-user, $KSEG_SASL_PASSWORD) and the ACLs"
	case errors.Is(err, wire.ErrTLS):
		return "check the CA (--tls-ca, ssl.truststore.location) and that the broker's certificate names the host you connect to"
	case errors.Is(err, wire.ErrUnreachable):
		return "check HOST:PORT, the listener's security.protocol (--tls, --command-config) and the CA (--tls-ca)"
	case errors.Is(err, wire.ErrUnknownTopic):
		return "list the topics with kafka-topics.sh --list; TOPIC may be a regular expression"
	}
	return ""
}
