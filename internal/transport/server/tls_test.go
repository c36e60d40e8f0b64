package server

import (
	"bytes"
	"context"
	"crypto/tls"
	"log/slog"
	"math/big"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/c5c3/glance-hooks/internal/testcert"
)

func newPair(t *testing.T, cn string) testcert.Pair {
	t.Helper()
	p, err := testcert.New(cn, "127.0.0.1", "localhost")
	require.NoError(t, err)
	return p
}

// servedSerial opens a fresh TLS connection and returns the serial of the
// certificate the server presents (verified against trusted).
func servedSerial(t *testing.T, addr string, trusted ...testcert.Pair) *big.Int {
	t.Helper()
	pool := trusted[0].Pool()
	for _, p := range trusted[1:] {
		pool.AppendCertsFromPEM(p.CertPEM)
	}
	conn, err := tls.Dial("tcp", addr, &tls.Config{RootCAs: pool, ServerName: "127.0.0.1"})
	require.NoError(t, err)
	defer conn.Close()
	return conn.ConnectionState().PeerCertificates[0].SerialNumber
}

func TestServeTLSReloadsRotatedPair(t *testing.T) {
	dir := t.TempDir()
	a, b, c := newPair(t, "a"), newPair(t, "b"), newPair(t, "c")
	certFile, keyFile, err := a.Write(dir)
	require.NoError(t, err)

	var logs bytes.Buffer
	log := slog.New(slog.NewJSONHandler(&logs, nil))
	r, err := NewCertReloader(certFile, keyFile, log)
	require.NoError(t, err)

	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		done <- ServeListener(ctx, New(Config{Logger: log, Routes: DefaultRoutes()}), ln, time.Second, r.TLSConfig())
	}()
	addr := ln.Addr().String()

	// HTTPS answers, with the first pair.
	client := &http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: a.Pool()}}}
	resp, err := client.Get("https://" + addr + "/healthz")
	require.NoError(t, err)
	resp.Body.Close()
	assert.Equal(t, http.StatusOK, resp.StatusCode)
	assert.Equal(t, a.Serial, servedSerial(t, addr, a))

	// Rotated by rename (a Secret volume update): the next handshake gets b.
	_, _, err = b.Write(dir)
	require.NoError(t, err)
	assert.Equal(t, b.Serial, servedSerial(t, addr, a, b))
	assert.Contains(t, logs.String(), "TLS certificate reloaded")

	// Half a rotation (new cert, old key) does not load: b keeps being served.
	require.NoError(t, os.WriteFile(certFile, c.CertPEM, 0o600))
	assert.Equal(t, b.Serial, servedSerial(t, addr, b, c))
	assert.Contains(t, logs.String(), "TLS certificate reload failed; serving the previous one")

	// Rewritten in place, key completed: c is served.
	require.NoError(t, os.WriteFile(keyFile, c.KeyPEM, 0o600))
	assert.Equal(t, c.Serial, servedSerial(t, addr, b, c))

	// Plain HTTP on the TLS port is refused.
	resp, err = http.Get("http://" + addr + "/healthz")
	if err == nil {
		resp.Body.Close()
		assert.Equal(t, http.StatusBadRequest, resp.StatusCode)
	}

	cancel()
	require.NoError(t, <-done)
}

func TestCertReloaderNeedsALoadablePairAtStart(t *testing.T) {
	dir := t.TempDir()
	_, err := NewCertReloader(filepath.Join(dir, "missing.crt"), filepath.Join(dir, "missing.key"), nil)
	require.Error(t, err)

	a, b := newPair(t, "a"), newPair(t, "b")
	certFile, keyFile := filepath.Join(dir, "a.crt"), filepath.Join(dir, "b.key")
	require.NoError(t, os.WriteFile(certFile, a.CertPEM, 0o600))
	require.NoError(t, os.WriteFile(keyFile, b.KeyPEM, 0o600))
	_, err = NewCertReloader(certFile, keyFile, nil)
	require.Error(t, err, "a certificate with another key's private key must not load")
}
