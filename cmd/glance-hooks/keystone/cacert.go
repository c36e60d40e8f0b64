package keystone

import (
	"crypto/tls"
	"crypto/x509"
	"net/http"
	"os"
	"strings"

	"github.com/c5c3/glance-hooks/hooks/contract/registration"
)

// CACertFrom reads the CA bundle an https Keystone is checked against, as
// the openstack CLI takes OS_CACERT: the value is the path of a PEM file,
// or (since a Secret's key reaches the Job's container as a variable, not
// a file) the PEM itself. Empty: the system's roots (the image's
// ca-certificates.crt). A bundle that holds no certificate is refused,
// naming its source but never its content.
func CACertFrom(value, source string) ([]byte, error) {
	value = strings.TrimSpace(value)
	if value == "" {
		return nil, nil
	}
	pemBytes := []byte(value)
	if !strings.HasPrefix(value, "-----BEGIN") {
		b, err := os.ReadFile(value)
		if err != nil {
			return nil, refused("%s: reading the CA bundle: %v", source, err)
		}
		pemBytes = b
	}
	if !x509.NewCertPool().AppendCertsFromPEM(pemBytes) {
		return nil, refused("%s holds no PEM certificate: it must be a CA bundle (a PEM file, or its content)", source)
	}
	return pemBytes, nil
}

// caCertFromEnv is CACertFrom for the admin credentials' OS_CACERT.
func caCertFromEnv(getenv func(string) string) ([]byte, error) {
	return CACertFrom(getenv(registration.EnvCACert), registration.EnvCACert)
}

// httpClient is the client of every Keystone call: trusting only caPEM
// when it is given (as the openstack CLI trusts only OS_CACERT), the
// system's roots otherwise.
func httpClient(caPEM []byte) http.Client {
	c := http.Client{Timeout: callTimeout}
	if len(caPEM) == 0 {
		return c
	}
	pool := x509.NewCertPool()
	pool.AppendCertsFromPEM(caPEM)
	t := http.DefaultTransport.(*http.Transport).Clone()
	t.TLSClientConfig = &tls.Config{RootCAs: pool, MinVersion: tls.VersionTLS12}
	c.Transport = t
	return c
}
