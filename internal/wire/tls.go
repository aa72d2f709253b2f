package wire

import (
	"crypto/tls"
	"crypto/x509"
	"errors"
	"strings"
)

func isTLSError(err error) bool {
	var ue x509.UnknownAuthorityError
	var he x509.HostnameError
	var ci x509.CertificateInvalidError
	var re tls.RecordHeaderError
	var ve *tls.CertificateVerificationError
	return errors.As(err, &ue) || errors.As(err, &he) || errors.As(err, &ci) || errors.As(err, &re) || errors.As(err, &ve) ||
		strings.Contains(err.Error(), "tls: ")
}
