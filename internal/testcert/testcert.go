// Package testcert makes self-signed serving certificates for tests: the TLS
// reload tests and the webhook the real API server calls.
package testcert

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"math/big"
	"net"
	"os"
	"path/filepath"
	"time"
)

// Pair is a self-signed certificate (its own CA) and its key, as PEM.
type Pair struct {
	CertPEM, KeyPEM []byte
	Serial          *big.Int
}

// New makes a self-signed serving certificate valid for the hosts (DNS names
// or IP addresses) for a day.
func New(commonName string, hosts ...string) (Pair, error) {
	return newPair(commonName, x509.ExtKeyUsageServerAuth, hosts)
}

// NewClient makes a self-signed client certificate valid for a day; a
// server that trusts it as a CA accepts it.
func NewClient(commonName string) (Pair, error) {
	return newPair(commonName, x509.ExtKeyUsageClientAuth, nil)
}

func newPair(commonName string, usage x509.ExtKeyUsage, hosts []string) (Pair, error) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return Pair{}, err
	}
	serial, err := rand.Int(rand.Reader, new(big.Int).Lsh(big.NewInt(1), 62))
	if err != nil {
		return Pair{}, err
	}
	tmpl := &x509.Certificate{
		SerialNumber:          serial,
		Subject:               pkix.Name{CommonName: commonName},
		NotBefore:             time.Now().Add(-time.Hour),
		NotAfter:              time.Now().Add(24 * time.Hour),
		KeyUsage:              x509.KeyUsageDigitalSignature | x509.KeyUsageCertSign,
		ExtKeyUsage:           []x509.ExtKeyUsage{usage},
		BasicConstraintsValid: true,
		IsCA:                  true,
	}
	for _, h := range hosts {
		if ip := net.ParseIP(h); ip != nil {
			tmpl.IPAddresses = append(tmpl.IPAddresses, ip)
		} else {
			tmpl.DNSNames = append(tmpl.DNSNames, h)
		}
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		return Pair{}, err
	}
	keyDER, err := x509.MarshalECPrivateKey(key)
	if err != nil {
		return Pair{}, err
	}
	return Pair{
		CertPEM: pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}),
		KeyPEM:  pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: keyDER}),
		Serial:  serial,
	}, nil
}

// Write writes the pair to dir/tls.crt and dir/tls.key, each through a
// temporary file and a rename, the way a Secret volume update swaps files.
func (p Pair) Write(dir string) (certFile, keyFile string, err error) {
	certFile, keyFile = filepath.Join(dir, "tls.crt"), filepath.Join(dir, "tls.key")
	if err := writeAtomic(certFile, p.CertPEM); err != nil {
		return "", "", err
	}
	if err := writeAtomic(keyFile, p.KeyPEM); err != nil {
		return "", "", err
	}
	return certFile, keyFile, nil
}

func writeAtomic(path string, data []byte) error {
	tmp, err := os.CreateTemp(filepath.Dir(path), ".tmp-*")
	if err != nil {
		return err
	}
	if _, err := tmp.Write(data); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), path)
}

// TLSCertificate is the pair as a certificate a tls.Config presents.
func (p Pair) TLSCertificate() (tls.Certificate, error) {
	return tls.X509KeyPair(p.CertPEM, p.KeyPEM)
}

// Pool is a cert pool holding the pair's certificate, for clients.
func (p Pair) Pool() *x509.CertPool {
	pool := x509.NewCertPool()
	pool.AppendCertsFromPEM(p.CertPEM)
	return pool
}
