package wire

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestCommandConfig(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "client.properties")
	text := `# Kafka client properties
security.protocol=SASL_PLAINTEXT
sasl.mechanism : SCRAM-SHA-512
sasl.jaas.config=org.apache.kafka.common.security.scram.ScramLoginModule required \
    username="alice" \
    password="pa\"ss word";
! another comment
ssl.endpoint.identification.algorithm=
`
	if err := os.WriteFile(path, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
	props, err := ReadProperties(path)
	if err != nil {
		t.Fatal(err)
	}
	s, err := FromProperties(props)
	if err != nil {
		t.Fatal(err)
	}
	if s.Protocol != "SASL_PLAINTEXT" || s.Mechanism != "SCRAM-SHA-512" || s.User != "alice" || s.Password != `pa"ss word` || !s.NoVerifyHost {
		t.Fatalf("%+v", s)
	}
	tc, mech, err := s.Build()
	if err != nil || tc != nil || mech == nil || mech.Name() != "SCRAM-SHA-512" {
		t.Fatalf("build: tls %v, mech %v, err %v", tc, mech, err)
	}
}

func TestSecurityErrors(t *testing.T) {
	for _, tc := range []struct {
		props map[string]string
		want  string
	}{
		{map[string]string{"security.protocol": "SASL_SSLX"}, "security.protocol"},
		{map[string]string{"ssl.truststore.type": "JKS"}, "PEM files only"},
		{map[string]string{"ssl.key.password": "x"}, "encrypted private keys"},
	} {
		_, err := FromProperties(tc.props)
		if !errors.Is(err, ErrConfig) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%v: %v, want %q", tc.props, err, tc.want)
		}
	}
	for _, tc := range []struct {
		s    Security
		want string
	}{
		{Security{Protocol: "SASL_PLAINTEXT", Mechanism: "PLAIN", Password: "pw-123"}, "needs a user"},
		{Security{Protocol: "SASL_PLAINTEXT", Mechanism: "PLAIN", User: "u"}, "needs a password"},
		{Security{Protocol: "SASL_PLAINTEXT", User: "u", Password: "pw-123"}, "GSSAPI"},
		{Security{Mechanism: "OAUTHBEARER", User: "u", Password: "pw-123"}, "OAUTHBEARER"},
		{Security{TLS: true, CAFile: "/nonexistent/ca.pem"}, "CA file"},
		{Security{Protocol: "PLAINTEXT", TLS: true}, "--tls with"},
	} {
		_, _, err := tc.s.Build()
		if !errors.Is(err, ErrConfig) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%+v: %v, want %q", tc.s, err, tc.want)
		}
		if err != nil && strings.Contains(err.Error(), "pw-123") {
			t.Errorf("the password is in %q", err)
		}
	}
}

func TestParseURLAndBounds(t *testing.T) {
	u, err := ParseURL("kafka://a:9092,b:9093/orders/3")
	if err != nil || len(u.Brokers) != 2 || u.Topic != "orders" || u.Partition != 3 {
		t.Fatalf("%+v %v", u, err)
	}
	u, err = ParseURL("kafka://a:9092/orders-.*")
	if err != nil || u.Topic != "orders-.*" || u.Partition != -1 {
		t.Fatalf("%+v %v", u, err)
	}
	// Kafka's default port when none is given, as its clients do.
	for in, want := range map[string][]string{
		"kafka://a/orders":          {"a:9092"},
		"kafka://a,b:9093/orders":   {"a:9092", "b:9093"},
		"kafka://[::1]/orders":      {"[::1]:9092"},
		"kafka://[::1]:9093/orders": {"[::1]:9093"},
	} {
		u, err := ParseURL(in)
		if err != nil || strings.Join(u.Brokers, ",") != strings.Join(want, ",") {
			t.Errorf("%s: %v %v, want %v", in, u.Brokers, err, want)
		}
	}
	for _, bad := range []string{"kafka://a:1/", "kafka://a:1/t/x", "kafka://a:1/t(/0", "kafka:///t", "kafka://a:/t", "kafka://a,,b/t"} {
		if _, err := ParseURL(bad); !errors.Is(err, ErrBadURL) {
			t.Errorf("%s: %v", bad, err)
		}
	}
	for in, want := range map[string]Bound{
		"":                      {},
		"earliest":              {Kind: BoundEarliest},
		"latest":                {Kind: BoundLatest},
		"-2":                    {Kind: BoundEarliest}, // Kafka's ListOffsets codes
		"-1":                    {Kind: BoundLatest},
		"42":                    {Kind: BoundOffset, Offset: 42},
		"@1700000000000":        {Kind: BoundTime, Millis: 1700000000000},
		"@2023-11-14T22:13:20Z": {Kind: BoundTime, Millis: 1700000000000},
	} {
		got, err := ParseBound(in)
		if err != nil || got != want {
			t.Errorf("%q: %+v %v", in, got, err)
		}
	}
	for _, bad := range []string{"-3", "-0x1", "soon", "@yesterday"} {
		if _, err := ParseBound(bad); err == nil {
			t.Errorf("%q: no error", bad)
		}
	}
	if got := redact("kafka://user:pw@h:1/t"); got != "kafka://h:1/t" {
		t.Errorf("redact: %s", got)
	}
}

func TestURLCredentialsNotEchoed(t *testing.T) {
	_, err := ParseURL("kafka://alice:hunter2@h:1/t")
	if !errors.Is(err, ErrBadURL) || strings.Contains(err.Error(), "hunter2") {
		t.Fatalf("%v", err)
	}
}
