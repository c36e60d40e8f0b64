package kubetest

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"fmt"
	"math/big"
	"net"
	"os"
	"path/filepath"
	"time"
)

// ServingCert is a throw-away certificate authority and a serving
// certificate it signed, for a TLS server on loopback that the API server
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

// NewServingCert makes a CA and a serving certificate for hosts (IP
// addresses or DNS names; 127.0.0.1 and localhost when none are given),
// valid for a day. With dir != "" it also writes ca.crt, tls.crt and tls.key
// there, with the key readable only by its owner.
func NewServingCert(dir string, hosts ...string) (*ServingCert, error) {
	if len(hosts) == 0 {
		hosts = []string{"127.0.0.1", "localhost"}
	}
	now := time.Now()
	caKey, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, err
	}
	caTmpl := &x509.Certificate{
		SerialNumber:          big.NewInt(1),
		Subject:               pkix.Name{CommonName: "kubetest CA"},
		NotBefore:             now.Add(-time.Hour),
		NotAfter:              now.Add(24 * time.Hour),
		KeyUsage:              x509.KeyUsageCertSign | x509.KeyUsageDigitalSignature,
		BasicConstraintsValid: true,
		IsCA:                  true,
	}
	caDER, err := x509.CreateCertificate(rand.Reader, caTmpl, caTmpl, &caKey.PublicKey, caKey)
	if err != nil {
		return nil, err
	}
	caCert, err := x509.ParseCertificate(caDER)
	if err != nil {
		return nil, err
	}
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, err
	}
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(2),
		Subject:      pkix.Name{CommonName: hosts[0]},
		NotBefore:    now.Add(-time.Hour),
		NotAfter:     now.Add(24 * time.Hour),
		KeyUsage:     x509.KeyUsageDigitalSignature,
		ExtKeyUsage:  []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
	}
	for _, h := range hosts {
		if ip := net.ParseIP(h); ip != nil {
			tmpl.IPAddresses = append(tmpl.IPAddresses, ip)
		} else {
			tmpl.DNSNames = append(tmpl.DNSNames, h)
		}
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, caCert, &key.PublicKey, caKey)
	if err != nil {
		return nil, err
	}
	keyDER, err := x509.MarshalECPrivateKey(key)
	if err != nil {
		return nil, err
	}
	sc := &ServingCert{
		CAPEM:   pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: caDER}),
		CertPEM: pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}),
		KeyPEM:  pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: keyDER}),
	}
	if dir == "" {
		return sc, nil
	}
	sc.CAFile = filepath.Join(dir, "ca.crt")
	sc.CertFile = filepath.Join(dir, "tls.crt")
	sc.KeyFile = filepath.Join(dir, "tls.key")
	for _, f := range []struct {
		path string
		data []byte
		mode os.FileMode
	}{{sc.CAFile, sc.CAPEM, 0o644}, {sc.CertFile, sc.CertPEM, 0o644}, {sc.KeyFile, sc.KeyPEM, 0o600}} {
		if err := os.WriteFile(f.path, f.data, f.mode); err != nil {
			return nil, fmt.Errorf("writing %s: %w", filepath.Base(f.path), err)
		}
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
