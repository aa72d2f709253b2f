package producer

import (
	"bufio"
	"fmt"
	"os"
	"strconv"
	"strings"

	"github.com/kseg/kseg/batch"
)

// Property is one producer setting by Kafka's own name, as a
// producer.properties file or --producer-property KEY=VALUE gives it.
type Property struct {
	Key, Value string
}

// ParseProperty parses "KEY=VALUE" (the first '=' splits; spaces around
// the key and value are trimmed).
func ParseProperty(s string) (Property, error) {
	k, v, ok := strings.Cut(s, "=")
	k, v = strings.TrimSpace(k), strings.TrimSpace(v)
	if !ok || k == "" {
		return Property{}, configErr("%q: want KEY=VALUE (a Kafka producer property, such as linger.ms=20)", s)
	}
	return Property{Key: k, Value: v}, nil
}

// maxPropertiesSize bounds a properties file read whole.
const maxPropertiesSize = 1 << 20

// ReadProperties reads a Java .properties file as the producer's clients
// write them: '#' and '!' comment lines, blank lines, "key=value",
// "key:value" or "key value", a trailing backslash continuing a line.
// Later keys replace earlier ones, as java.util.Properties does; the order
// of first appearance is kept.
func ReadProperties(path string) ([]Property, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if st, err := f.Stat(); err == nil && !st.Mode().IsRegular() {
		return nil, fmt.Errorf("%s: not a regular file", path)
	} else if err == nil && st.Size() > maxPropertiesSize {
		return nil, fmt.Errorf("%s: %d bytes: a producer.properties file is at most %d", path, st.Size(), maxPropertiesSize)
	}
	var props []Property
	at := map[string]int{}
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 0, 64<<10), maxPropertiesSize)
	var logical strings.Builder
	lineNo := 0
	for sc.Scan() {
		lineNo++
		line := strings.TrimLeft(sc.Text(), " \t\f")
		if logical.Len() == 0 && (line == "" || line[0] == '#' || line[0] == '!') {
			continue
		}
		if cont := strings.TrimSuffix(line, `\`); cont != line && !strings.HasSuffix(cont, `\`) {
			logical.WriteString(cont)
			continue
		}
		logical.WriteString(line)
		s := logical.String()
		logical.Reset()
		i := strings.IndexAny(s, "=: \t")
		k, v := s, ""
		if i >= 0 {
			k = s[:i]
			v = strings.TrimLeft(s[i:], " \t")
			if v != "" && (v[0] == '=' || v[0] == ':') {
				v = strings.TrimLeft(v[1:], " \t")
			}
		}
		v = strings.TrimRight(v, " \t")
		if k == "" {
			return nil, fmt.Errorf("%s:%d: no key", path, lineNo)
		}
		if j, ok := at[k]; ok {
			props[j].Value = v
			continue
		}
		at[k] = len(props)
		props = append(props, Property{Key: k, Value: v})
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return props, nil
}

// ModelProperties are the producer settings the model uses, by Kafka's
// name, in the order Properties lists them.
var ModelProperties = []string{
	"batch.size", "linger.ms", "compression.type", "enable.idempotence", "acks",
	"max.in.flight.requests.per.connection", "buffer.memory", "max.request.size",
	"max.block.ms", "partitioner.adaptive.partitioning.enable",
}

// ApplyProperties sets c from Kafka producer properties, as
// KafkaProducer's constructor reads them: enable.idempotence, when not
// given, is turned off by acks other than all or more than five requests
// in flight (Kafka 3.0 and later log this and go on); given as true, those
// are a configuration error. Keys the model does not use are returned in
// ignored (bootstrap.servers, serializers, retries, ...); a bad value is
// an error that names its key.
func (c *Config) ApplyProperties(props []Property) (ignored []string, err error) {
	idemGiven := false
	for _, p := range props {
		v := strings.TrimSpace(p.Value)
		bad := func(want string) error {
			return configErr("%s=%q: %s", p.Key, p.Value, want)
		}
		switch p.Key {
		case "batch.size":
			n, err := strconv.ParseInt(v, 10, 32)
			if err != nil || n < 0 {
				return nil, bad("want a size in bytes, 0 or more")
			}
			c.BatchSize = int(n)
		case "linger.ms":
			n, err := strconv.ParseInt(v, 10, 64)
			if err != nil || n < 0 {
				return nil, bad("want milliseconds, 0 or more")
			}
			c.LingerMs = n
		case "compression.type":
			codec, err := batch.ParseCodec(strings.ToLower(v))
			if err != nil {
				return nil, bad("want none, gzip, snappy, lz4 or zstd")
			}
			c.Compression = codec
		case "enable.idempotence":
			b, err := parseJavaBool(v)
			if err != nil {
				return nil, bad("want true or false")
			}
			c.Idempotence, idemGiven = b, true
		case "acks":
			switch strings.ToLower(v) {
			case "all", "-1":
				c.Acks = -1
			case "0":
				c.Acks = 0
			case "1":
				c.Acks = 1
			default:
				return nil, bad("want all, -1, 0 or 1")
			}
		case "max.in.flight.requests.per.connection":
			n, err := strconv.ParseInt(v, 10, 32)
			if err != nil || n < 1 {
				return nil, bad("want 1 or more")
			}
			c.MaxInFlight = int(n)
		case "buffer.memory":
			n, err := strconv.ParseInt(v, 10, 64)
			if err != nil || n < 1 {
				return nil, bad("want a size in bytes, 1 or more")
			}
			c.BufferMemory = n
		case "max.request.size":
			n, err := strconv.ParseInt(v, 10, 32)
			if err != nil || n < 1 {
				return nil, bad("want a size in bytes, 1 or more")
			}
			c.MaxRequestSize = int(n)
		case "max.block.ms":
			n, err := strconv.ParseInt(v, 10, 64)
			if err != nil || n < 0 {
				return nil, bad("want milliseconds, 0 or more")
			}
			c.MaxBlockMs = n
		case "partitioner.adaptive.partitioning.enable":
			b, err := parseJavaBool(v)
			if err != nil {
				return nil, bad("want true or false")
			}
			c.AdaptivePartitions = b
		default:
			ignored = append(ignored, p.Key)
		}
	}
	conflict := c.Acks != -1 || c.MaxInFlight > 5
	switch {
	case conflict && idemGiven && c.Idempotence && c.Acks != -1:
		return nil, configErr("enable.idempotence=true needs acks=all, got acks=%d", c.Acks)
	case conflict && idemGiven && c.Idempotence:
		return nil, configErr("enable.idempotence=true needs max.in.flight.requests.per.connection <= 5, got %d", c.MaxInFlight)
	case conflict && !idemGiven:
		c.Idempotence = false
	}
	return ignored, nil
}

// parseJavaBool is Boolean.parseBoolean with ConfigDef's strictness:
// "true" or "false", any case.
func parseJavaBool(s string) (bool, error) {
	switch strings.ToLower(s) {
	case "true":
		return true, nil
	case "false":
		return false, nil
	}
	return false, strconv.ErrSyntax
}

// Properties returns the model's settings in c by Kafka's names, in the
// order of ModelProperties, as a producer.properties file would give them.
func (c *Config) Properties() []Property {
	acks := strconv.Itoa(c.Acks)
	if c.Acks == -1 {
		acks = "all"
	}
	vals := map[string]string{
		"batch.size":                            strconv.Itoa(c.BatchSize),
		"linger.ms":                             strconv.FormatInt(c.LingerMs, 10),
		"compression.type":                      c.Compression.String(),
		"enable.idempotence":                    strconv.FormatBool(c.Idempotence),
		"acks":                                  acks,
		"max.in.flight.requests.per.connection": strconv.Itoa(c.MaxInFlight),
		"buffer.memory":                         strconv.FormatInt(c.BufferMemory, 10),
		"max.request.size":                      strconv.Itoa(c.MaxRequestSize),
		"max.block.ms":                          strconv.FormatInt(c.MaxBlockMs, 10),
		"partitioner.adaptive.partitioning.enable": strconv.FormatBool(c.AdaptivePartitions),
	}
	out := make([]Property, 0, len(ModelProperties))
	for _, k := range ModelProperties {
		out = append(out, Property{Key: k, Value: vals[k]})
	}
	return out
}
