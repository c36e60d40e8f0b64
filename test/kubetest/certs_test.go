package kubetest_test

import (
	"crypto/tls"
	"crypto/x509"
	"encoding/pem"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/c5c3/glance-hooks/test/kubetest"
)

func TestServingCertIsTrustedForItsHosts(t *testing.T) {
	dir := t.TempDir()
	cert, err := kubetest.NewServingCert(dir, "127.0.0.1", "localhost")
	require.NoError(t, err)

	block, _ := pem.Decode(cert.CertPEM)
	require.NotNil(t, block)
	leaf, err := x509.ParseCertificate(block.Bytes)
	require.NoError(t, err)
	_, err = leaf.Verify(x509.VerifyOptions{Roots: cert.CertPool(), DNSName: "127.0.0.1"})
	assert.NoError(t, err)
	_, err = leaf.Verify(x509.VerifyOptions{Roots: cert.CertPool(), DNSName: "localhost"})
	assert.NoError(t, err)
	_, err = leaf.Verify(x509.VerifyOptions{Roots: cert.CertPool(), DNSName: "example.com"})
	assert.Error(t, err, "valid only for the hosts asked for")
	_, err = leaf.Verify(x509.VerifyOptions{Roots: x509.NewCertPool(), DNSName: "127.0.0.1"})
	assert.Error(t, err, "trusted only through its CA")

	for _, f := range []string{cert.CAFile, cert.CertFile, cert.KeyFile} {
		_, err := os.Stat(f)
		assert.NoError(t, err)
	}
	fi, err := os.Stat(cert.KeyFile)
	require.NoError(t, err)
	assert.Equal(t, os.FileMode(0o600), fi.Mode().Perm())
	onDisk, err := os.ReadFile(cert.CAFile)
	require.NoError(t, err)
	assert.Equal(t, cert.CAPEM, onDisk)
}

func TestServingCertServesTLS(t *testing.T) {
	cert, err := kubetest.NewServingCert("")
	require.NoError(t, err)
	assert.Empty(t, cert.CertFile, "nothing written without a directory")
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { _, _ = io.WriteString(w, "ok") }))
	srv.TLS, err = cert.ServerTLSConfig()
	require.NoError(t, err)
	srv.StartTLS()
	defer srv.Close()
	client := &http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: cert.CertPool(), MinVersion: tls.VersionTLS12}}}
	resp, err := client.Get(srv.URL)
	require.NoError(t, err)
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	assert.Equal(t, "ok", string(body))
}
