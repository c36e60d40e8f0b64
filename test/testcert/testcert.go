// Package testcert makes certificates for tests: self-signed serving
// certificates (the TLS reload tests and the webhook the real API server
// calls), and a CA that issues serving certificates (an S3 endpoint with a
// private CA).
package testcert

import (
	"bytes"
	"crypto/ecdsa"
	"crypto/ed25519"
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

// Pair is a certificate and its key, as PEM: self-signed (its own CA), or
// issued by a CA.
type Pair struct {
	CertPEM, KeyPEM []byte
	Serial          *big.Int
	der             []byte
	key             *ecdsa.PrivateKey
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
	tmpl := template(commonName, hosts)
	tmpl.KeyUsage = x509.KeyUsageDigitalSignature | x509.KeyUsageCertSign
	tmpl.ExtKeyUsage = []x509.ExtKeyUsage{usage}
	tmpl.IsCA = true
	return sign(tmpl, nil, nil)
}

// CA is a certificate authority that issues serving certificates.
type CA struct {
	Pair
	cert *x509.Certificate
}

// NewCA makes a CA certificate valid for a day.
func NewCA(commonName string) (CA, error) {
	tmpl := template(commonName, nil)
	tmpl.KeyUsage = x509.KeyUsageCertSign | x509.KeyUsageCRLSign
	tmpl.IsCA = true
	p, err := sign(tmpl, nil, nil)
	if err != nil {
		return CA{}, err
	}
	cert, err := x509.ParseCertificate(p.der)
	if err != nil {
		return CA{}, err
	}
	return CA{Pair: p, cert: cert}, nil
}

// Issue makes a serving certificate for the hosts, signed by the CA, valid
// for a day. Its CertPEM is the leaf alone, as a server presents it with a
// CA its clients already trust.
func (ca CA) Issue(commonName string, hosts ...string) (Pair, error) {
	tmpl := template(commonName, hosts)
	tmpl.KeyUsage = x509.KeyUsageDigitalSignature
	tmpl.ExtKeyUsage = []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}
	return sign(tmpl, ca.cert, ca.key)
}

// Fixed is a self-signed certificate and its Ed25519 key made from seed,
// with fixed validity and serial: the same bytes on every call, for
// fixtures that must not change when regenerated (Ed25519 signatures are
// deterministic). Valid from 2026-01-01 for ten years.
func Fixed(commonName string, seed byte) Pair {
	key := ed25519.NewKeyFromSeed(bytes.Repeat([]byte{seed}, ed25519.SeedSize))
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(int64(seed) + 1), Subject: pkix.Name{CommonName: commonName},
		NotBefore: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC), NotAfter: time.Date(2036, 1, 1, 0, 0, 0, 0, time.UTC),
		BasicConstraintsValid: true, IsCA: true, KeyUsage: x509.KeyUsageDigitalSignature | x509.KeyUsageCertSign,
	}
	der, err := x509.CreateCertificate(nil, tmpl, tmpl, key.Public(), key)
	if err != nil {
		panic(err) // a fixed template and key: cannot fail but by a bug here
	}
	keyDER, err := x509.MarshalPKCS8PrivateKey(key)
	if err != nil {
		panic(err)
	}
	return Pair{
		CertPEM: pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}),
		KeyPEM:  pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: keyDER}),
		Serial:  tmpl.SerialNumber,
		der:     der,
	}
}

// IssueClient makes a client certificate signed by the CA, valid for a
// day: a server that trusts the CA (MariaDB's REQUIRE X509) accepts it.
func (ca CA) IssueClient(commonName string) (Pair, error) {
	tmpl := template(commonName, nil)
	tmpl.KeyUsage = x509.KeyUsageDigitalSignature
	tmpl.ExtKeyUsage = []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth}
	return sign(tmpl, ca.cert, ca.key)
}

func template(commonName string, hosts []string) *x509.Certificate {
	tmpl := &x509.Certificate{
		Subject:               pkix.Name{CommonName: commonName},
		NotBefore:             time.Now().Add(-time.Hour),
		NotAfter:              time.Now().Add(24 * time.Hour),
		BasicConstraintsValid: true,
	}
	for _, h := range hosts {
		if ip := net.ParseIP(h); ip != nil {
			tmpl.IPAddresses = append(tmpl.IPAddresses, ip)
		} else {
			tmpl.DNSNames = append(tmpl.DNSNames, h)
		}
	}
	return tmpl
}

// sign makes a key and a certificate from tmpl, signed by parent's key, or
// self-signed when parent is nil.
func sign(tmpl, parent *x509.Certificate, parentKey *ecdsa.PrivateKey) (Pair, error) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return Pair{}, err
	}
	tmpl.SerialNumber, err = rand.Int(rand.Reader, new(big.Int).Lsh(big.NewInt(1), 62))
	if err != nil {
		return Pair{}, err
	}
	if parent == nil {
		parent, parentKey = tmpl, key
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, parent, &key.PublicKey, parentKey)
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
		Serial:  tmpl.SerialNumber,
		der:     der,
		key:     key,
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
