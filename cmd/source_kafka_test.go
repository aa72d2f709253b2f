package cmd

import (
	"bytes"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// closedPort is a loopback port nothing listens on.
func closedPort(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := l.Addr().(*net.TCPAddr).Port
	l.Close()
	return "127.0.0.1:" + strconv.Itoa(port)
}

// Credentials never reach the output, the error line or the hint, wherever
// they were given; failures to reach a cluster exit 3 with one error line.
func TestWireCredentialsNeverPrinted(t *testing.T) {
	const pw = "s3cr3t-Pa55"
	addr := closedPort(t)
	dir := t.TempDir()
	cfg := filepath.Join(dir, "client.properties")
	if err := os.WriteFile(cfg, []byte("security.protocol=SASL_PLAINTEXT\nsasl.mechanism=PLAIN\n"+
		`sasl.jaas.config=org.apache.kafka.common.security.plain.PlainLoginModule required username="alice" password="`+pw+`";`+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	t.Setenv("KSEG_SASL_PASSWORD", pw)
	for _, args := range [][]string{
		{"count", "--sasl-mechanism", "PLAIN", "--sasl-user", "alice", "kafka://" + addr + "/orders"},
		{"count", "--command-config", cfg, "kafka://" + addr + "/orders"},
		// The secret typed where a topic goes is still cut from the error.
		{"count", "--command-config", cfg, "kafka://" + addr + "/" + pw},
		{"audit", "--command-config", cfg, "kafka://" + addr + "/orders"},
		{"dump", "--format", "json", "--command-config", cfg, "kafka://" + addr + "/orders"},
		{"count", "kafka://alice:" + pw + "@" + addr + "/orders"},
	} {
		var out, errb bytes.Buffer
		code := Execute(args, &out, &errb)
		all := out.String() + errb.String()
		if strings.Contains(all, pw) {
			t.Errorf("%v: the password is printed:\n%s", args, all)
		}
		if code != ExitBadInput {
			t.Errorf("%v: exit %d, want %d\n%s", args, code, ExitBadInput, all)
		}
		if n := strings.Count(errb.String(), "kseg: error:"); n != 1 {
			t.Errorf("%v: %d error lines:\n%s", args, n, errb.String())
		}
	}
}

func TestWireFlagErrors(t *testing.T) {
	for _, args := range [][]string{
		{"count", "--from", "soon", "kafka://127.0.0.1:1/t"},
		{"dump", "--format", "json", "--to", "@yesterday", "kafka://127.0.0.1:1/t"},
		{"count", "--sasl-mechanism", "GSSAPI", "--sasl-user", "u", "kafka://127.0.0.1:1/t"},
		{"count", "--fetch-bytes", "0", "kafka://127.0.0.1:1/t"},
	} {
		t.Setenv("KSEG_SASL_PASSWORD", "x")
		var out, errb bytes.Buffer
		if code := Execute(args, &out, &errb); code != ExitUsage {
			t.Errorf("%v: exit %d, want %d: %s", args, code, ExitUsage, errb.String())
		}
	}
}
