package wire

import (
	"bufio"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"os"
	"regexp"
	"strings"

	"github.com/twmb/franz-go/pkg/sasl"
	"github.com/twmb/franz-go/pkg/sasl/plain"
	"github.com/twmb/franz-go/pkg/sasl/scram"
)

// ErrConfig is a client configuration kseg cannot use.
var ErrConfig = errors.New("client configuration")

// Security is the connection security, from --command-config and the
// plain flags (flags win).
type Security struct {
	Protocol     string // PLAINTEXT, SSL, SASL_PLAINTEXT, SASL_SSL ("" : from the flags)
	TLS          bool
	CAFile       string
	CAPEM        string
	CertFile     string
	KeyFile      string
	CertPEM      string // ssl.keystore.certificate.chain
	KeyPEM       string // ssl.keystore.key
	NoVerifyHost bool
	Mechanism    string // PLAIN, SCRAM-SHA-256, SCRAM-SHA-512
	User         string
	Password     string
}

// ReadProperties reads a Java properties file (key=value or key: value,
// # and ! comments, backslash continuations), as Kafka's --command-config.
func ReadProperties(path string) (map[string]string, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	props := map[string]string{}
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	var cont string
	for sc.Scan() {
		line := strings.TrimLeft(sc.Text(), " \t\f")
		if cont == "" && (line == "" || line[0] == '#' || line[0] == '!') {
			continue
		}
		if strings.HasSuffix(line, `\`) && !strings.HasSuffix(line, `\\`) {
			cont += line[:len(line)-1]
			continue
		}
		line, cont = cont+line, ""
		i := strings.IndexAny(line, "=:")
		if i < 0 {
			props[strings.TrimSpace(line)] = ""
			continue
		}
		props[strings.TrimSpace(line[:i])] = strings.TrimSpace(line[i+1:])
	}
	return props, sc.Err()
}

var jaasField = regexp.MustCompile(`(\w+)\s*=\s*"((?:[^"\\]|\\.)*)"`)

// FromProperties reads the security settings of a Kafka client config.
func FromProperties(props map[string]string) (Security, error) {
	s := Security{Protocol: strings.ToUpper(props["security.protocol"]), Mechanism: strings.ToUpper(props["sasl.mechanism"])}
	switch s.Protocol {
	case "", "PLAINTEXT", "SSL", "SASL_PLAINTEXT", "SASL_SSL":
	default:
		return s, fmt.Errorf("%w: security.protocol %q: want PLAINTEXT, SSL, SASL_PLAINTEXT or SASL_SSL", ErrConfig, props["security.protocol"])
	}
	if j := props["sasl.jaas.config"]; j != "" {
		for _, m := range jaasField.FindAllStringSubmatch(j, -1) {
			v := strings.NewReplacer(`\"`, `"`, `\\`, `\`).Replace(m[2])
			switch m[1] {
			case "username":
				s.User = v
			case "password":
				s.Password = v
			}
		}
	}
	for _, k := range []string{"ssl.truststore.type", "ssl.keystore.type"} {
		if t := props[k]; t != "" && !strings.EqualFold(t, "PEM") {
			return s, fmt.Errorf("%w: %s=%s: kseg reads PEM files only (convert with keytool/openssl)", ErrConfig, k, t)
		}
	}
	s.CAFile = props["ssl.truststore.location"]
	s.CAPEM = props["ssl.truststore.certificates"]
	if loc := props["ssl.keystore.location"]; loc != "" {
		s.CertFile, s.KeyFile = loc, loc // one PEM file holding the key and the chain
	}
	s.CertPEM = props["ssl.keystore.certificate.chain"]
	s.KeyPEM = props["ssl.keystore.key"]
	if p := props["ssl.key.password"]; p != "" {
		return s, fmt.Errorf("%w: ssl.key.password: encrypted private keys are not supported; give an unencrypted PEM key", ErrConfig)
	}
	if a, ok := props["ssl.endpoint.identification.algorithm"]; ok && a == "" {
		s.NoVerifyHost = true
	}
	return s, nil
}

// Build makes the TLS configuration and SASL mechanism s asks for. The
// caller keeps s.Password to cut it from what it prints.
func (s Security) Build() (*tls.Config, sasl.Mechanism, error) {
	useTLS := s.TLS || s.Protocol == "SSL" || s.Protocol == "SASL_SSL" || s.CAFile != "" || s.CAPEM != "" || s.CertFile != ""
	useSASL := s.Mechanism != "" || s.Protocol == "SASL_PLAINTEXT" || s.Protocol == "SASL_SSL"
	if s.Protocol == "PLAINTEXT" || s.Protocol == "SASL_PLAINTEXT" {
		if s.TLS {
			return nil, nil, fmt.Errorf("%w: --tls with security.protocol=%s", ErrConfig, s.Protocol)
		}
		useTLS = false
	}
	var tc *tls.Config
	if useTLS {
		tc = &tls.Config{MinVersion: tls.VersionTLS12}
		pool := x509.NewCertPool()
		ca := []byte(s.CAPEM)
		if s.CAFile != "" {
			b, err := os.ReadFile(s.CAFile)
			if err != nil {
				return nil, nil, fmt.Errorf("%w: CA file: %v", ErrConfig, err)
			}
			ca = append(ca, b...)
		}
		if len(ca) > 0 {
			if !pool.AppendCertsFromPEM(ca) {
				return nil, nil, fmt.Errorf("%w: no PEM certificate in the CA file", ErrConfig)
			}
			tc.RootCAs = pool
		}
		var cert, key []byte
		if s.CertFile != "" {
			b, err := os.ReadFile(s.CertFile)
			if err != nil {
				return nil, nil, fmt.Errorf("%w: certificate file: %v", ErrConfig, err)
			}
			cert = b
		}
		if s.KeyFile != "" {
			b, err := os.ReadFile(s.KeyFile)
			if err != nil {
				return nil, nil, fmt.Errorf("%w: key file: %v", ErrConfig, err)
			}
			key = b
		}
		if s.CertPEM != "" {
			cert = []byte(s.CertPEM)
		}
		if s.KeyPEM != "" {
			key = []byte(s.KeyPEM)
		}
		if len(cert) > 0 || len(key) > 0 {
			pair, err := tls.X509KeyPair(cert, key)
			if err != nil {
				// The key's bytes are never in this message.
				return nil, nil, fmt.Errorf("%w: client certificate and key do not load as PEM", ErrConfig)
			}
			tc.Certificates = []tls.Certificate{pair}
		}
		if s.NoVerifyHost {
			// Kafka's ssl.endpoint.identification.algorithm= : the chain
			// is verified, the host name is not.
			roots := tc.RootCAs
			tc.InsecureSkipVerify = true
			tc.VerifyConnection = func(cs tls.ConnectionState) error {
				opts := x509.VerifyOptions{Roots: roots, Intermediates: x509.NewCertPool()}
				for _, c := range cs.PeerCertificates[1:] {
					opts.Intermediates.AddCert(c)
				}
				_, err := cs.PeerCertificates[0].Verify(opts)
				return err
			}
		}
	}
	var mech sasl.Mechanism
	if useSASL {
		if s.Mechanism == "" {
			s.Mechanism = "GSSAPI" // Kafka's default, which kseg does not do
		}
		if s.User == "" {
			return nil, nil, fmt.Errorf("%w: SASL %s needs a user (--sasl-user or sasl.jaas.config username=)", ErrConfig, s.Mechanism)
		}
		if s.Password == "" {
			return nil, nil, fmt.Errorf("%w: SASL %s needs a password (from $KSEG_SASL_PASSWORD, --sasl-password-env VAR or sasl.jaas.config password=)", ErrConfig, s.Mechanism)
		}
		switch s.Mechanism {
		case "PLAIN":
			mech = plain.Auth{User: s.User, Pass: s.Password}.AsMechanism()
		case "SCRAM-SHA-256":
			mech = scram.Auth{User: s.User, Pass: s.Password}.AsSha256Mechanism()
		case "SCRAM-SHA-512":
			mech = scram.Auth{User: s.User, Pass: s.Password}.AsSha512Mechanism()
		default:
			return nil, nil, fmt.Errorf("%w: sasl.mechanism %s: kseg does PLAIN, SCRAM-SHA-256 and SCRAM-SHA-512", ErrConfig, s.Mechanism)
		}
	}
	return tc, mech, nil
}
