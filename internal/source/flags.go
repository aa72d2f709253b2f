package source

import (
	"fmt"
	"io"
	"math"
	"net/url"
	"os"
	"regexp"
	"strings"
	"time"

	"github.com/spf13/pflag"

	"github.com/kseg/kseg/batch"
	"github.com/kseg/kseg/internal/wire"
	"github.com/kseg/kseg/segment"
)

// FlagHelp is what a command that takes the flags adds to its help.
const FlagHelp = `kafka://HOST[:PORT][,HOST[:PORT]...]/TOPIC[/PARTITION] reads batches from a live
cluster (every partition when none is named; TOPIC may be a regular expression;
PORT is 9092 when not given).

--from and --to select the batches holding offsets [from, to) of every source:
on files through the .index/.timeindex as the broker seeks (a missing, stale
or corrupt index is noted and scanned past), on kafka:// with ListOffsets.
Record lines outside the range are left out. --producer-id, --producer-epoch,
--transactional, --control and --codec select batches by their headers; --key
and --key-regex select records (and the batches holding them).`

// Flags are a command's source flags: the kafka:// flags Add gives it,
// and the remote-store flags (AddRemote) it has or inherits.
type Flags struct {
	from, to      string
	producerID    int64
	producerEpoch int
	transactional bool
	control       bool
	key           string
	keyRegex      string
	codecs        []string
	notes         func() io.Writer
	commandConfig string
	tls           bool
	tlsCA         string
	tlsCert       string
	tlsKey        string
	saslMechanism string
	saslUser      string
	saslPassEnv   string
	fetchBytes    int
	timeout       time.Duration

	fs *pflag.FlagSet // where the remote flags are looked up
}

// Add adds the kafka:// flags to fs. The remote-store flags are looked up
// in fs too when Options runs (cobra merges inherited flags into it).
func (f *Flags) Add(fs *pflag.FlagSet) {
	f.fs = fs
	fs.StringVar(&f.from, "from", "", "first offset read: earliest|latest|OFFSET|@RFC3339|@MILLIS (the first record at or after the time), or -2 (earliest), -1 (latest) (default earliest)")
	fs.StringVar(&f.to, "to", "", "end offset, exclusive, likewise (default latest: the log end, a cluster's high watermark)")
	fs.Int64Var(&f.producerID, "producer-id", -1, "only the batches of this producer id")
	fs.IntVar(&f.producerEpoch, "producer-epoch", -1, "only the batches of this producer epoch")
	fs.BoolVar(&f.transactional, "transactional", false, "only transactional batches (--transactional=false: only the others)")
	fs.BoolVar(&f.control, "control", false, "only control batches (transaction markers; --control=false: only data batches)")
	fs.StringVar(&f.key, "key", "", "only the records with this key, and the batches holding them")
	fs.StringVar(&f.keyRegex, "key-regex", "", "only the records whose key matches this regular expression (RE2), and the batches holding them")
	fs.StringSliceVar(&f.codecs, "codec", nil, "only the batches compressed with these codecs: none,gzip,snappy,lz4,zstd")
	fs.StringVar(&f.commandConfig, "command-config", "", "kafka:// sources: Kafka client properties (security.protocol, sasl.*, ssl.* with PEM files)")
	fs.BoolVar(&f.tls, "tls", false, "kafka:// sources: connect with TLS")
	fs.StringVar(&f.tlsCA, "tls-ca", "", "kafka:// sources: PEM file of the CA certificates to trust")
	fs.StringVar(&f.tlsCert, "tls-cert", "", "kafka:// sources: PEM client certificate")
	fs.StringVar(&f.tlsKey, "tls-key", "", "kafka:// sources: PEM client key")
	fs.StringVar(&f.saslMechanism, "sasl-mechanism", "", "kafka:// sources: PLAIN|SCRAM-SHA-256|SCRAM-SHA-512")
	fs.StringVar(&f.saslUser, "sasl-user", "", "kafka:// sources: SASL user")
	fs.StringVar(&f.saslPassEnv, "sasl-password-env", "KSEG_SASL_PASSWORD", "kafka:// sources: environment variable holding the SASL password")
	fs.IntVar(&f.fetchBytes, "fetch-bytes", wire.DefaultFetchBytes, "kafka:// sources: bytes asked for per Fetch at first (grows to 4 MiB while responses come back full; a larger batch is fetched whole)")
	fs.DurationVar(&f.timeout, "timeout", DefaultTimeout, "kafka:// and s3:// sources: deadline of connecting and of each request (its retries included)")
}

// DefaultTimeout is --timeout's default: an endpoint that accepts the
// connection and never answers fails in this time.
const DefaultTimeout = 10 * time.Second

// remoteFlags are the flags of the lts:// and s3:// options: flag name,
// option name (see package remote), help.
var remoteFlags = []struct{ name, option, usage string }{
	{"rsa-key", "rsa-key", "PEM RSA private key for encrypted remote segments (Aiven plugin)"},
	{"s3-endpoint", "endpoint", "S3 endpoint URL (S3-compatible stores); default: the AWS chain"},
	{"s3-region", "region", "S3 region; default: the AWS chain (AWS_REGION, profile)"},
	{"s3-path-style", "path-style", "path-style S3 addressing"},
}

// AddRemote adds the remote-store flags (--rsa-key, --s3-endpoint,
// --s3-region, --s3-path-style) to fs.
func AddRemote(fs *pflag.FlagSet) {
	for _, r := range remoteFlags {
		fs.String(r.name, "", r.usage)
		if r.name == "s3-path-style" {
			fs.Lookup(r.name).NoOptDefVal = "true"
		}
	}
}

// SetRemote sets the remote option of the flag named flag (rsa-key,
// s3-endpoint, s3-region, s3-path-style); other names are ignored.
func (o *Options) SetRemote(flag, value string) {
	for _, r := range remoteFlags {
		if r.name == flag {
			if o.Remote == nil {
				o.Remote = url.Values{}
			}
			o.Remote.Set(r.option, value)
		}
	}
}

// Options builds the options the flags give; its errors are usage errors.
func (f *Flags) Options() (Options, error) {
	var o Options
	if f.fs != nil {
		for _, r := range remoteFlags {
			if fl := f.fs.Lookup(r.name); fl != nil && fl.Changed {
				o.SetRemote(r.name, fl.Value.String())
			}
		}
	}
	c := &o.Wire
	var err error
	if f.timeout <= 0 {
		return o, fmt.Errorf("--timeout %s: want a positive duration (10s, 1m)", f.timeout)
	}
	c.Timeout = f.timeout
	if o.Remote == nil {
		o.Remote = url.Values{}
	}
	o.Remote.Set("timeout", f.timeout.String())
	if c.From, err = wire.ParseBound(f.from); err != nil {
		return o, fmt.Errorf("--from %w", err)
	}
	if c.To, err = wire.ParseBound(f.to); err != nil {
		return o, fmt.Errorf("--to %w", err)
	}
	if o.Query, err = f.query(); err != nil {
		return o, err
	}
	if f.fetchBytes <= 0 || f.fetchBytes > wire.MaxFetchBytes {
		return o, fmt.Errorf("--fetch-bytes %d: want 1..%d", f.fetchBytes, wire.MaxFetchBytes)
	}
	c.FetchBytes = int32(f.fetchBytes)
	var sec wire.Security
	if f.commandConfig != "" {
		props, err := wire.ReadProperties(f.commandConfig)
		if err != nil {
			return o, fmt.Errorf("--command-config: %w", err)
		}
		if sec, err = wire.FromProperties(props); err != nil {
			return o, fmt.Errorf("--command-config %s: %w", f.commandConfig, err)
		}
	}
	sec.TLS = sec.TLS || f.tls
	for _, kv := range []struct {
		dst *string
		v   string
	}{{&sec.CAFile, f.tlsCA}, {&sec.CertFile, f.tlsCert}, {&sec.KeyFile, f.tlsKey}, {&sec.Mechanism, strings.ToUpper(f.saslMechanism)}, {&sec.User, f.saslUser}} {
		if kv.v != "" {
			*kv.dst = kv.v
		}
	}
	if p := os.Getenv(f.saslPassEnv); p != "" && f.saslPassEnv != "" {
		sec.Password = p
	}
	if sec.Password != "" {
		o.Secrets = append(o.Secrets, sec.Password)
	}
	if c.TLS, c.SASL, err = sec.Build(); err != nil {
		return o, err
	}
	return o, nil
}

// NoteTo sends the notes of the sources (an index that could not be used)
// to the writer w gives, as "kseg: note: ..." lines.
func (f *Flags) NoteTo(w func() io.Writer) { f.notes = w }

// changed tells that the flag named name was given.
func (f *Flags) changed(name string) bool {
	if f.fs == nil {
		return false
	}
	fl := f.fs.Lookup(name)
	return fl != nil && fl.Changed
}

// query is the range and filter the flags ask for.
func (f *Flags) query() (segment.Query, error) {
	var q segment.Query
	var err error
	if q.From, err = segment.ParseBound(f.from); err != nil {
		return q, fmt.Errorf("--from %w", err)
	}
	if q.To, err = segment.ParseBound(f.to); err != nil {
		return q, fmt.Errorf("--to %w", err)
	}
	fl := &q.Filter
	if f.changed("producer-id") {
		if f.producerID < -1 {
			return q, fmt.Errorf("--producer-id %d: want a producer id (-1 for batches without one)", f.producerID)
		}
		fl.ProducerID, fl.HasProducerID = f.producerID, true
	}
	if f.changed("producer-epoch") {
		if f.producerEpoch < -1 || f.producerEpoch > math.MaxInt16 {
			return q, fmt.Errorf("--producer-epoch %d: want -1..%d", f.producerEpoch, math.MaxInt16)
		}
		fl.ProducerEpoch, fl.HasProducerEpoch = int16(f.producerEpoch), true
	}
	if f.changed("transactional") {
		v := f.transactional
		fl.Transactional = &v
	}
	if f.changed("control") {
		v := f.control
		fl.Control = &v
	}
	if f.changed("key") {
		fl.Key, fl.HasKey = []byte(f.key), true
	}
	if f.keyRegex != "" {
		if fl.KeyRegex, err = regexp.Compile(f.keyRegex); err != nil {
			return q, fmt.Errorf("--key-regex: %w", err)
		}
	}
	for _, name := range f.codecs {
		c, err := batch.ParseCodec(strings.TrimSpace(name))
		if err != nil {
			return q, fmt.Errorf("--codec %q: want none, gzip, snappy, lz4 or zstd", name)
		}
		fl.Codecs = append(fl.Codecs, c)
	}
	if f.notes != nil {
		notes := f.notes
		q.Note = func(s string) { fmt.Fprintf(notes(), "kseg: note: %s\n", s) }
	}
	return q, nil
}
