package kubetest

import (
	"crypto/tls"
	"crypto/x509"
	"fmt"
	"os"
	"path/filepath"

	"github.com/c5c3/glance-hooks/test/testcert"
)

// ServingCert is a throw-away serving certificate, its own certificate
// authority, for a TLS server on loopback that the API server
// (or any client trusting CAPEM) calls: the kube-apiserver itself, or a
// webhook under test.
type ServingCert struct {
	// CAPEM is the CA certificate; it is what a webhook configuration's
	// clientConfig.caBundle holds.
	CAPEM []byte
	// CertPEM and KeyPEM are the serving certificate and its key.
	CertPEM, KeyPEM []byte
	// CAFile, CertFile and KeyFile are where they were written, when
	// NewServingCert was given a directory.
	CAFile, CertFile, KeyFile string
}

// NewServingCert makes a serving certificate for hosts (IP
// addresses or DNS names; 127.0.0.1 and localhost when none are given),
// valid for a day. With dir != "" it also writes ca.crt, tls.crt and tls.key
// there, with the key readable only by its owner.
func NewServingCert(dir string, hosts ...string) (*ServingCert, error) {
	if len(hosts) == 0 {
		hosts = []string{"127.0.0.1", "localhost"}
	}
	// A self-signed serving certificate that is its own CA: what a client
	// trusts (caBundle, --client-ca-file) is the certificate itself.
	pair, err := testcert.New(hosts[0], hosts...)
	if err != nil {
		return nil, err
	}
	sc := &ServingCert{CAPEM: pair.CertPEM, CertPEM: pair.CertPEM, KeyPEM: pair.KeyPEM}
	if dir == "" {
		return sc, nil
	}
	sc.CAFile = filepath.Join(dir, "ca.crt")
	if sc.CertFile, sc.KeyFile, err = pair.Write(dir); err != nil {
		return nil, err
	}
	if err := os.Chmod(sc.KeyFile, 0o600); err != nil {
		return nil, err
	}
	if err := os.WriteFile(sc.CAFile, sc.CAPEM, 0o644); err != nil {
		return nil, fmt.Errorf("writing ca.crt: %w", err)
	}
	return sc, nil
}

// ServerTLSConfig is a tls.Config serving the certificate, e.g. for
// httptest.NewUnstartedServer(h) followed by srv.TLS = ...; srv.StartTLS().
func (c *ServingCert) ServerTLSConfig() (*tls.Config, error) {
	pair, err := tls.X509KeyPair(c.CertPEM, c.KeyPEM)
	if err != nil {
		return nil, err
	}
	return &tls.Config{Certificates: []tls.Certificate{pair}, MinVersion: tls.VersionTLS12}, nil
}

// CertPool is a pool holding only the CA, for clients of the server.
func (c *ServingCert) CertPool() *x509.CertPool {
	pool := x509.NewCertPool()
	pool.AppendCertsFromPEM(c.CAPEM)
	return pool
}
