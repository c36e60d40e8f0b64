package testcert

import (
	"bytes"
	"crypto/tls"
	"testing"
)

func TestFixedIsTheSameEveryTimeAndAPair(t *testing.T) {
	a, b := Fixed("x", 1), Fixed("x", 1)
	if !bytes.Equal(a.CertPEM, b.CertPEM) || !bytes.Equal(a.KeyPEM, b.KeyPEM) {
		t.Fatal("Fixed made different bytes for the same seed")
	}
	if c := Fixed("x", 2); bytes.Equal(a.KeyPEM, c.KeyPEM) {
		t.Error("another seed gives the same key")
	}
	if _, err := tls.X509KeyPair(a.CertPEM, a.KeyPEM); err != nil {
		t.Errorf("not a certificate and its key: %v", err)
	}
}
