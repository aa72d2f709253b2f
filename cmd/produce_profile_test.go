package cmd

import (
	"os"
	"strings"
	"testing"

	"github.com/kseg/kseg/producer"
)

// kseg produce --help shows the workload and Kafka's settings: no timing
// constant has a flag of its own.
func TestProduceHelpListsNoTimingConstant(t *testing.T) {
	help, _, code := runKseg(t, "produce", "--help")
	if code != 0 {
		t.Fatalf("--help: code %d", code)
	}
	for _, key := range producer.TimingKeys() {
		if key == "rtt" { // the round trip is the environment's, and has its flag
			continue
		}
		if strings.Contains(help, "--"+key+" ") {
			t.Errorf("--help lists the timing constant --%s", key)
		}
	}
	for _, want := range []string{"--timing string", "--timing-set", "--show-timing", "--producer-property", "--producer.config", "--throughput"} {
		if !strings.Contains(help, want) {
			t.Errorf("--help does not list %s", want)
		}
	}
}

// --show-timing prints the profile in use; written to a file and read
// back with --timing, it gives the same runs; --timing-set changes them.
func TestProduceTimingProfile(t *testing.T) {
	t.Chdir(t.TempDir())
	shown, stderr, code := runKseg(t, "produce", "--show-timing")
	if code != 0 {
		t.Fatalf("--show-timing: %d %s", code, stderr)
	}
	for _, want := range []string{`"provenance"`, `"kafka": "4.4.0`, `"held_out"`, `"wake-latency": "6.141ms"`, `"zstd": {`} {
		if !strings.Contains(shown, want) {
			t.Errorf("--show-timing lacks %s:\n%s", want, shown)
		}
	}
	if err := os.WriteFile("p.json", []byte(shown), 0o644); err != nil {
		t.Fatal(err)
	}
	burst := []string{"produce", "--dry-run", "--runs", "20", "--partitions", "3", "--records", "2000", "--batch-size", "1024", "--linger-ms", "5"}
	def, _, _ := runKseg(t, burst...)
	fromFile, stderr, code := runKseg(t, append(burst, "--timing", "p.json")...)
	if code != 0 || fromFile != def {
		t.Errorf("--timing p.json (the default shown): code %d %s\n%s\nwant\n%s", code, stderr, fromFile, def)
	}
	set, _, code := runKseg(t, append(burst, "--timing-set", "wake-latency=40ms", "--timing-set", "loop-cost=2ms")...)
	if code != 0 || set == def {
		t.Errorf("--timing-set changed nothing (code %d)", code)
	}
	noted, _, _ := runKseg(t, "produce", "--show-timing", "--timing-set", "wake-latency=40ms")
	if !strings.Contains(noted, `"wake-latency": "40ms"`) || !strings.Contains(noted, "changed by --timing-set: wake-latency=40ms") {
		t.Errorf("--show-timing --timing-set:\n%s", noted)
	}
	ideal, _, _ := runKseg(t, append(burst, "--ideal")...)
	named, _, _ := runKseg(t, append(burst, "--timing", "ideal")...)
	if ideal != named || ideal == def {
		t.Errorf("--ideal and --timing ideal differ, or equal the default:\n%s\n%s", ideal, named)
	}
	if err := os.WriteFile("bad.json", []byte(strings.Replace(shown, `"jitter": 1.05,`, "", 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, bad := range [][]string{
		{"--timing", "bad.json"},
		{"--timing", "missing.json"},
		{"--timing-set", "warp=1"},
		{"--timing-set", "wake-latency=soon"},
		{"--ideal", "--timing", "p.json"},
		{"--timing", "ideal", "--timing-set", "jitter=1"},
	} {
		_, stderr, code := runKseg(t, append([]string{"produce", "--dry-run"}, bad...)...)
		if code != ExitUsage || !strings.Contains(stderr, "--timing") {
			t.Errorf("%v: code %d, stderr %q", bad, code, stderr)
		}
	}
}

// A producer.properties file as people write them: comments, blank lines,
// keys the model does not use, bootstrap.servers.
const producerProperties = `# producer.properties for the orders service
bootstrap.servers=broker-1:9092,broker-2:9092
key.serializer=org.apache.kafka.common.serialization.StringSerializer
value.serializer = org.apache.kafka.common.serialization.ByteArraySerializer

! tuned for throughput
linger.ms = 1000
batch.size: 1024
compression.type=none
acks=all
retries=2147483647
client.id=orders
`

func TestProduceProducerConfig(t *testing.T) {
	t.Chdir(t.TempDir())
	if err := os.WriteFile("producer.properties", []byte(producerProperties), 0o644); err != nil {
		t.Fatal(err)
	}
	out, stderr, code := runKseg(t, "produce", "--out", "a", "--producer.config", "producer.properties")
	if code != 0 {
		t.Fatalf("code %d: %s", code, stderr)
	}
	// linger.ms 1000 and batch.size 1024 as --linger-ms and --batch-size give them.
	want, _, _ := runKseg(t, "produce", "--out", "b", "--linger-ms", "1000", "--batch-size", "1024")
	if out != want || !strings.Contains(out, "8x25") {
		t.Errorf("--producer.config:\n%s\nwant\n%s", out, want)
	}
	if strings.Count(stderr, "ignored:") != 1 || !strings.Contains(stderr, "ignored: bootstrap.servers, key.serializer, value.serializer, retries, client.id") {
		t.Errorf("stderr %q: want the unused keys listed once", stderr)
	}
	// --producer-property overrides the file, as in kafka-producer-perf-test.
	over, _, code := runKseg(t, "produce", "--out", "c", "--producer.config", "producer.properties", "--producer-property", "batch.size=16384")
	if code != 0 || !strings.Contains(over, "records per batch: 148x1 52x1") {
		t.Errorf("--producer-property batch.size=16384 over the file: code %d\n%s", code, over)
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--producer-property", "linger.ms=soon"}, "linger.ms"},
		{[]string{"--producer-property", "acks=2"}, "acks"},
		{[]string{"--producer-property", "compression.type=brotli"}, "compression.type"},
		{[]string{"--producer-property", "nonsense"}, "KEY=VALUE"},
		{[]string{"--producer-property", "enable.idempotence=true", "--producer-property", "acks=1"}, "enable.idempotence"},
		{[]string{"--linger-ms", "5", "--producer-property", "linger.ms=10"}, "--linger-ms and linger.ms"},
		{[]string{"--producer.config", "missing.properties"}, "missing.properties"},
		{[]string{"--throughput", "1000", "--send-interval", "1ms"}, "--throughput"},
	} {
		_, stderr, code := runKseg(t, append([]string{"produce", "--dry-run"}, tc.args...)...)
		if code != ExitUsage || !strings.Contains(stderr, tc.want) {
			t.Errorf("%v: code %d, stderr %q: want exit 2 naming %s", tc.args, code, stderr, tc.want)
		}
	}
}

// --throughput N is --send-interval 1s/N.
func TestProduceThroughput(t *testing.T) {
	args := []string{"produce", "--dry-run", "--runs", "10", "--records", "300", "--linger-ms", "5"}
	rate, _, code := runKseg(t, append(args, "--throughput", "2000")...)
	interval, _, _ := runKseg(t, append(args, "--send-interval", "500us")...)
	burst, _, _ := runKseg(t, append(args, "--throughput", "-1")...)
	if code != 0 || rate != interval || rate == burst {
		t.Errorf("--throughput 2000 (code %d):\n%s\n--send-interval 500us:\n%s\nunthrottled:\n%s", code, rate, interval, burst)
	}
}
