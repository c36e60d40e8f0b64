// Package credentials decides, from what a Secret holds now, whether the
// service's serving certificate, its CA and the hook token can be kept or
// must be made anew, and makes them. It reads and writes no cluster: the
// caller (transport/credstore) fetches the Secret, hands its
// data here and stores what comes back, so every decision has a table test
// without an API server.
package credentials

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"errors"
	"fmt"
	"math/big"
	"net"
	"slices"
	"time"
)

// Keys of the serving-certificate Secret. tls.crt, tls.key and ca.crt are
// the names kubernetes.io/tls Secrets and cert-manager use, so the pods, the
// helm test pod and Metacontroller's caBundle.secretRef read them the same
// way whoever made the Secret; ca.key lets a later renewal sign with the
// same CA, which keeps what Metacontroller and the API server trust.
const (
	KeyCert   = "tls.crt"
	KeyKey    = "tls.key"
	KeyCA     = "ca.crt"
	KeyCAKey  = "ca.key"
	KeyToken  = "token"
	tokenLen  = 43 // alphanumerics: about 256 bits
	alphabet  = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"
	minTokLen = 32
)

// Policy is how long what this package makes lives, and how early it is
// renewed.
type Policy struct {
	// Hosts are the DNS names and IP addresses the serving certificate is
	// for; the first is its common name.
	Hosts []string
	// CAValidity and CertValidity are the lifetimes of a new CA and a new
	// serving certificate.
	CAValidity, CertValidity time.Duration
	// RenewBefore: a serving certificate with less than this left is
	// renewed. A CA with less than CertValidity left is renewed too, since
	// it could not cover a new certificate's life.
	RenewBefore time.Duration
}

// Check reports a policy that cannot work.
func (p Policy) Check() error {
	switch {
	case len(p.Hosts) == 0:
		return errors.New("the serving certificate needs at least one host name")
	case p.CertValidity <= 0 || p.CAValidity <= 0 || p.RenewBefore <= 0:
		return errors.New("validities and the renewal time must be positive")
	case p.RenewBefore >= p.CertValidity:
		return fmt.Errorf("renewing %s before expiry needs a certificate valid longer than %s", p.RenewBefore, p.CertValidity)
	case p.CAValidity < p.CertValidity:
		return fmt.Errorf("the CA (%s) must outlive the certificates it signs (%s)", p.CAValidity, p.CertValidity)
	}
	return nil
}

// Action says what Plan decided.
type Action string

const (
	// Keep: the Secret's CA and certificate are good for the policy.
	Keep Action = "keep"
	// RenewCert: a new serving certificate signed by the Secret's CA.
	RenewCert Action = "renew-certificate"
	// NewCA: a new CA and a new certificate (none yet, or the CA is unusable
	// or near its end).
	NewCA Action = "new-ca"
)

// Decision is Plan's answer with the reason, for the log.
type Decision struct {
	Action Action
	Why    string
}

// Plan decides from a Secret's data at now.
func Plan(data map[string][]byte, p Policy, now time.Time) Decision {
	ca, _, err := parsePair(data[KeyCA], data[KeyCAKey])
	if err != nil {
		return Decision{NewCA, "CA: " + err.Error()}
	}
	if !ca.IsCA {
		return Decision{NewCA, "ca.crt is not a CA certificate"}
	}
	if left := ca.NotAfter.Sub(now); left < p.CertValidity {
		return Decision{NewCA, fmt.Sprintf("the CA expires in %s, sooner than a new certificate would", left.Round(time.Second))}
	}
	cert, _, err := parsePair(data[KeyCert], data[KeyKey])
	if err != nil {
		return Decision{RenewCert, "certificate: " + err.Error()}
	}
	if err := cert.CheckSignatureFrom(ca); err != nil {
		return Decision{RenewCert, "the certificate is not signed by ca.crt"}
	}
	if left := cert.NotAfter.Sub(now); left < p.RenewBefore {
		return Decision{RenewCert, fmt.Sprintf("the certificate expires in %s", left.Round(time.Second))}
	}
	if now.Before(cert.NotBefore) {
		return Decision{RenewCert, "the certificate is not valid yet"}
	}
	if missing := missingHosts(cert, p.Hosts); len(missing) > 0 {
		return Decision{RenewCert, fmt.Sprintf("the certificate does not name %v", missing)}
	}
	return Decision{Keep, "valid until " + cert.NotAfter.UTC().Format(time.RFC3339)}
}

// Apply carries out d on a copy of data and returns it: the keys Plan reads,
// with anything else in data left as it was.
func Apply(d Decision, data map[string][]byte, p Policy, now time.Time) (map[string][]byte, error) {
	out := make(map[string][]byte, len(data)+4)
	for k, v := range data {
		out[k] = v
	}
	switch d.Action {
	case Keep:
		return out, nil
	case NewCA:
		caPEM, caKeyPEM, err := newCA(p.Hosts[0]+"-ca", now, p.CAValidity)
		if err != nil {
			return nil, err
		}
		out[KeyCA], out[KeyCAKey] = caPEM, caKeyPEM
	}
	ca, caKey, err := parsePair(out[KeyCA], out[KeyCAKey])
	if err != nil {
		return nil, fmt.Errorf("the CA to sign with: %w", err)
	}
	certPEM, keyPEM, err := newCert(ca, caKey, p.Hosts, now, p.CertValidity)
	if err != nil {
		return nil, err
	}
	out[KeyCert], out[KeyKey] = certPEM, keyPEM
	return out, nil
}

// NewToken is a random hook token of 43 alphanumerics.
func NewToken() (string, error) {
	b := make([]byte, tokenLen)
	max := big.NewInt(int64(len(alphabet)))
	for i := range b {
		n, err := rand.Int(rand.Reader, max)
		if err != nil {
			return "", err
		}
		b[i] = alphabet[n.Int64()]
	}
	return string(b), nil
}

// TokenUsable reports whether a stored token can be kept: long enough to
// resist guessing (the chart's auth.existingSecret asks the same).
func TokenUsable(token []byte) bool { return len(token) >= minTokLen }

func parsePair(certPEM, keyPEM []byte) (*x509.Certificate, *ecdsa.PrivateKey, error) {
	if len(certPEM) == 0 || len(keyPEM) == 0 {
		return nil, nil, errors.New("missing")
	}
	cb, _ := pem.Decode(certPEM)
	if cb == nil || cb.Type != "CERTIFICATE" {
		return nil, nil, errors.New("not a PEM certificate")
	}
	cert, err := x509.ParseCertificate(cb.Bytes)
	if err != nil {
		return nil, nil, errors.New("the certificate does not parse")
	}
	kb, _ := pem.Decode(keyPEM)
	if kb == nil {
		return nil, nil, errors.New("the key is not PEM")
	}
	key, err := x509.ParseECPrivateKey(kb.Bytes)
	if err != nil {
		return nil, nil, errors.New("the key is not an EC private key")
	}
	if !key.PublicKey.Equal(cert.PublicKey) {
		return nil, nil, errors.New("the key does not belong to the certificate")
	}
	return cert, key, nil
}

func missingHosts(cert *x509.Certificate, hosts []string) []string {
	var missing []string
	for _, h := range hosts {
		if ip := net.ParseIP(h); ip != nil {
			if !slices.ContainsFunc(cert.IPAddresses, ip.Equal) {
				missing = append(missing, h)
			}
			continue
		}
		if !slices.Contains(cert.DNSNames, h) {
			missing = append(missing, h)
		}
	}
	return missing
}

func newCA(name string, now time.Time, validity time.Duration) (certPEM, keyPEM []byte, err error) {
	tmpl := template(name, now, validity)
	tmpl.IsCA, tmpl.BasicConstraintsValid = true, true
	tmpl.KeyUsage = x509.KeyUsageCertSign | x509.KeyUsageCRLSign | x509.KeyUsageDigitalSignature
	return sign(tmpl, nil, nil)
}

func newCert(ca *x509.Certificate, caKey *ecdsa.PrivateKey, hosts []string, now time.Time, validity time.Duration) (certPEM, keyPEM []byte, err error) {
	// Never past the CA: a client would refuse the chain after it.
	if end := now.Add(validity); end.After(ca.NotAfter) {
		validity = ca.NotAfter.Sub(now)
	}
	tmpl := template(hosts[0], now, validity)
	tmpl.KeyUsage = x509.KeyUsageDigitalSignature
	tmpl.ExtKeyUsage = []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}
	for _, h := range hosts {
		if ip := net.ParseIP(h); ip != nil {
			tmpl.IPAddresses = append(tmpl.IPAddresses, ip)
		} else {
			tmpl.DNSNames = append(tmpl.DNSNames, h)
		}
	}
	return sign(tmpl, ca, caKey)
}

func template(name string, now time.Time, validity time.Duration) *x509.Certificate {
	serial, _ := rand.Int(rand.Reader, new(big.Int).Lsh(big.NewInt(1), 127))
	return &x509.Certificate{
		SerialNumber: serial,
		Subject:      pkix.Name{CommonName: name},
		// A minute back: clocks of the API server's and Metacontroller's
		// nodes may be a little behind this one.
		NotBefore: now.Add(-time.Minute),
		NotAfter:  now.Add(validity),
	}
}

// sign makes a key for tmpl and signs it with parent (self-signed when nil).
func sign(tmpl, parent *x509.Certificate, parentKey *ecdsa.PrivateKey) (certPEM, keyPEM []byte, err error) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, nil, err
	}
	if parent == nil {
		parent, parentKey = tmpl, key
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, parent, &key.PublicKey, parentKey)
	if err != nil {
		return nil, nil, fmt.Errorf("signing %s: %w", tmpl.Subject.CommonName, err)
	}
	keyDER, err := x509.MarshalECPrivateKey(key)
	if err != nil {
		return nil, nil, err
	}
	return pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}),
		pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: keyDER}), nil
}
