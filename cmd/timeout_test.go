package cmd

import (
	"bytes"
	"io"
	"net"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/spf13/pflag"

	"github.com/kseg/kseg/internal/source"
	"github.com/kseg/kseg/internal/wire"
)

// silentListener accepts connections on loopback, reads what is sent and
// never answers: a port where something that is not what kseg expects
// listens, or a hung server.
func silentListener(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var conns []net.Conn
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			mu.Lock()
			conns = append(conns, c)
			mu.Unlock()
			go io.Copy(io.Discard, c)
		}
	}()
	t.Cleanup(func() {
		l.Close()
		mu.Lock()
		defer mu.Unlock()
		for _, c := range conns {
			c.Close()
		}
	})
	return l.Addr().String()
}

// A kafka:// or s3:// endpoint that accepts the connection and never
// answers fails within --timeout (and kseg dump takes --timeout in its own
// argument list), with one error line naming the endpoint.
func TestSilentEndpointTimesOut(t *testing.T) {
	addr := silentListener(t)
	t.Setenv("AWS_ACCESS_KEY_ID", "kseg-test")
	t.Setenv("AWS_SECRET_ACCESS_KEY", "kseg-test")
	t.Setenv("AWS_REGION", "us-east-1")
	t.Setenv("AWS_CONFIG_FILE", "/dev/null")
	t.Setenv("AWS_SHARED_CREDENTIALS_FILE", "/dev/null")
	for _, args := range [][]string{
		{"count", "--timeout", "700ms", "kafka://" + addr + "/orders"},
		{"dump", "--timeout", "700ms", "kafka://" + addr + "/orders"},
		{"count", "--timeout", "700ms", "--s3-endpoint", "http://" + addr, "--s3-path-style", "s3://bucket/prefix/"},
		{"dump", "--timeout=700ms", "--s3-endpoint", "http://" + addr, "--s3-path-style", "s3://bucket/prefix/"},
	} {
		var out, errb bytes.Buffer
		start := time.Now()
		done := make(chan ExitCode, 1)
		go func() { done <- Execute(args, &out, &errb) }()
		var code ExitCode
		select {
		case code = <-done:
		case <-time.After(10 * time.Second):
			t.Fatalf("%v: no end after 10s with --timeout 700ms", args)
		}
		took := time.Since(start)
		if took > 5*time.Second {
			t.Errorf("%v: took %s with --timeout 700ms", args, took)
		}
		lines := strings.Split(strings.TrimSpace(errb.String()), "\n")
		if code != ExitBadInput || !strings.HasPrefix(lines[0], "kseg: error: ") || strings.Count(errb.String(), "kseg: error:") != 1 ||
			!strings.Contains(lines[0], addr) || !strings.Contains(lines[0], "700ms") {
			t.Errorf("%v: exit %d after %s, stderr:\n%s", args, code, took, errb.String())
		}
		if hint := "kseg: hint: check "; !strings.Contains(errb.String(), hint) {
			t.Errorf("%v: no hint: %s", args, errb.String())
		}
		t.Logf("%v: failed after %s: %s", args, took.Round(time.Millisecond), lines[0])
	}
}

// The default --timeout makes a silent endpoint fail in under 15 s, for
// kafka:// and s3:// alike (checked on the configured value, not by
// waiting).
func TestDefaultTimeout(t *testing.T) {
	for _, name := range []string{"count", "dump"} {
		var opts source.Options
		if name == "dump" {
			_, o, err := takeWireArgs([]string{"x.log"}, io.Discard)
			if err != nil {
				t.Fatal(err)
			}
			opts = o
		} else {
			var f source.Flags
			f.Add(pflag.NewFlagSet(name, pflag.ContinueOnError))
			o, err := f.Options()
			if err != nil {
				t.Fatal(err)
			}
			opts = o
		}
		s3, err := time.ParseDuration(opts.Remote.Get("timeout"))
		if err != nil || opts.Wire.Timeout <= 0 || opts.Wire.Timeout >= 15*time.Second || s3 <= 0 || s3 >= 15*time.Second {
			t.Errorf("%s: kafka:// timeout %s, s3:// timeout %q (%v): want both under 15s", name, opts.Wire.Timeout, opts.Remote.Get("timeout"), err)
		}
	}
	var out, errb bytes.Buffer
	if code := Execute([]string{"count", "--timeout", "0s", "x"}, &out, &errb); code != ExitUsage {
		t.Errorf("--timeout 0s: exit %d, want %d: %s", code, ExitUsage, errb.String())
	}
}

// Kafka's conventions: --from/--to take -2 (earliest) and -1 (latest), in
// count's flags and in dump's own argument list; kseg dump --help lists
// the kafka:// range and --timeout.
func TestKafkaConventions(t *testing.T) {
	addr := closedPort(t)
	for _, args := range [][]string{
		{"count", "--from", "-2", "--to", "-1", "--timeout", "2s", "kafka://" + addr + "/orders"},
		{"count", "--from=-2", "--to=-1", "kafka://" + addr + "/orders"},
		{"dump", "--from", "-2", "--to", "-1", "kafka://" + addr + "/orders"},
	} {
		var out, errb bytes.Buffer
		if code := Execute(args, &out, &errb); code != ExitBadInput || !strings.Contains(errb.String(), "cannot reach the cluster") {
			t.Errorf("%v: exit %d (want %d: parsed, then unreachable): %s", args, code, ExitBadInput, errb.String())
		}
	}
	_, o, err := takeWireArgs([]string{"--from", "-2", "--to", "-1", "x.log"}, io.Discard)
	if err != nil || o.Wire.From.Kind != wire.BoundEarliest || o.Wire.To.Kind != wire.BoundLatest {
		t.Errorf("dump --from -2 --to -1: %+v %+v %v", o.Wire.From, o.Wire.To, err)
	}
	var out, errb bytes.Buffer
	Execute([]string{"dump", "-h"}, &out, &errb)
	for _, flag := range []string{"--from", "--to", "--timeout", "-2", "-1"} {
		if !strings.Contains(out.String(), flag) {
			t.Errorf("kseg dump -h does not list %s", flag)
		}
	}
}
