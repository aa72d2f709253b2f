package producer

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/kseg/kseg/batch"
)

func TestReadProperties(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "producer.properties")
	text := "# written the way people write them\n" +
		"bootstrap.servers=localhost:9092\n" +
		"\n" +
		"! another comment\n" +
		"linger.ms = 20\n" +
		"batch.size:65536\n" +
		"compression.type lz4\n" +
		"key.serializer=org.apache.kafka.common.serialization.\\\n" +
		"    StringSerializer\n" +
		"linger.ms=25\n"
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	got, err := ReadProperties(path)
	if err != nil {
		t.Fatal(err)
	}
	want := []Property{
		{"bootstrap.servers", "localhost:9092"},
		{"linger.ms", "25"},
		{"batch.size", "65536"},
		{"compression.type", "lz4"},
		{"key.serializer", "org.apache.kafka.common.serialization.StringSerializer"},
	}
	if !slices.Equal(got, want) {
		t.Fatalf("got %q\nwant %q", got, want)
	}
	c := DefaultConfig()
	ignored, err := c.ApplyProperties(got)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(ignored, []string{"bootstrap.servers", "key.serializer"}) {
		t.Errorf("ignored %q", ignored)
	}
	if c.LingerMs != 25 || c.BatchSize != 65536 || c.Compression != batch.CodecLZ4 {
		t.Errorf("config: linger %d batch %d codec %v", c.LingerMs, c.BatchSize, c.Compression)
	}
}

func TestApplyProperties(t *testing.T) {
	for _, tc := range []struct {
		name  string
		props []string
		check func(c Config) bool
		err   string // substring; "" = no error
	}{
		{"acks=1 turns idempotence off when not given", []string{"acks=1"}, func(c Config) bool { return c.Acks == 1 && !c.Idempotence }, ""},
		{"acks=all keeps it", []string{"acks=all"}, func(c Config) bool { return c.Acks == -1 && c.Idempotence }, ""},
		{"explicit idempotence with acks=1", []string{"enable.idempotence=true", "acks=1"}, nil, "enable.idempotence=true needs acks=all"},
		{"explicit idempotence with 6 in flight", []string{"enable.idempotence=true", "max.in.flight.requests.per.connection=6"}, nil, "max.in.flight"},
		{"6 in flight turns it off", []string{"max.in.flight.requests.per.connection=6"}, func(c Config) bool { return !c.Idempotence && c.MaxInFlight == 6 }, ""},
		{"bad linger names the key", []string{"linger.ms=soon"}, nil, `linger.ms="soon"`},
		{"negative batch.size", []string{"batch.size=-1"}, nil, "batch.size"},
		{"bad codec", []string{"compression.type=brotli"}, nil, "compression.type"},
		{"bad bool", []string{"partitioner.adaptive.partitioning.enable=yes"}, nil, "partitioner.adaptive"},
		{"codec any case", []string{"compression.type=ZSTD"}, func(c Config) bool { return c.Compression == batch.CodecZstd }, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var props []Property
			for _, s := range tc.props {
				p, err := ParseProperty(s)
				if err != nil {
					t.Fatal(err)
				}
				props = append(props, p)
			}
			c := DefaultConfig()
			_, err := c.ApplyProperties(props)
			if tc.err != "" {
				if err == nil || !errors.Is(err, ErrConfig) || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("err %v, want ErrConfig with %q", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !tc.check(c) {
				t.Errorf("config %+v", c.Properties())
			}
		})
	}
	if _, err := ParseProperty("linger.ms"); err == nil {
		t.Error("ParseProperty without '=' passed")
	}
}

func TestPropertiesRoundTrip(t *testing.T) {
	c := DefaultConfig()
	c.LingerMs, c.BatchSize, c.Compression, c.Acks, c.Idempotence = 20, 32768, batch.CodecGzip, 1, false
	d := DefaultConfig()
	if _, err := d.ApplyProperties(c.Properties()); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(c.Properties(), d.Properties()) {
		t.Errorf("round trip: %q != %q", d.Properties(), c.Properties())
	}
}
