package server

import (
	"bytes"
	"context"
	"crypto/tls"
	"encoding/json"
	"io"
	"log/slog"
	"math/big"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/c5c3/glance-hooks/test/testcert"
	"github.com/c5c3/glance-hooks/test/testlog"
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
		done <- ServeListener(ctx, New(Config{Logger: log, Routes: DefaultRoutes()}), ln, Stop{Grace: time.Second}, r.TLSConfig())
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

// startTLS serves routes over TLS on a free loopback port with the given
// config changes and logs, until the test ends.
func startTLS(t *testing.T, cfg Config, pair testcert.Pair, adjust func(*tls.Config)) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	return serveTLSOn(t, cfg, pair, adjust, ln)
}

// serveTLSOn is startTLS on a listener of the test's.
func serveTLSOn(t *testing.T, cfg Config, pair testcert.Pair, adjust func(*tls.Config), ln net.Listener) string {
	t.Helper()
	dir := t.TempDir()
	certFile, keyFile, err := pair.Write(dir)
	require.NoError(t, err)
	r, err := NewCertReloader(certFile, keyFile, cfg.Logger)
	require.NoError(t, err)
	tlsConfig := r.TLSConfig()
	if adjust != nil {
		adjust(tlsConfig)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- ServeListener(ctx, New(cfg), ln, Stop{Grace: time.Second}, tlsConfig) }()
	t.Cleanup(func() {
		cancel()
		require.NoError(t, <-done)
	})
	return ln.Addr().String()
}

// TLS 1.2 with forward secrecy and AEAD only, or 1.3: a client limited to
// TLS 1.1, or to CBC or RSA key exchange suites, gets no connection, and the
// failed handshake is one JSON log line.
func TestTLSPolicyAndHandshakeLog(t *testing.T) {
	var logs testlog.Buffer
	log := slog.New(slog.NewJSONHandler(&logs, nil))
	pair := newPair(t, "a")
	addr := startTLS(t, Config{Logger: log, Routes: DefaultRoutes()}, pair, nil)

	dial := func(c *tls.Config) error {
		c.RootCAs, c.ServerName = pair.Pool(), "127.0.0.1"
		conn, err := tls.Dial("tcp", addr, c)
		if err == nil {
			conn.Close()
		}
		return err
	}
	assert.NoError(t, dial(&tls.Config{MinVersion: tls.VersionTLS13}), "TLS 1.3")
	assert.NoError(t, dial(&tls.Config{MaxVersion: tls.VersionTLS12, CipherSuites: []uint16{tls.TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256}}), "TLS 1.2 ECDHE-GCM")
	assert.NoError(t, dial(&tls.Config{MaxVersion: tls.VersionTLS12, CipherSuites: []uint16{tls.TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305_SHA256}}), "TLS 1.2 ECDHE-ChaCha20")
	assert.Error(t, dial(&tls.Config{MinVersion: tls.VersionTLS10, MaxVersion: tls.VersionTLS11}), "TLS 1.1")
	assert.Error(t, dial(&tls.Config{MaxVersion: tls.VersionTLS12, CipherSuites: []uint16{tls.TLS_ECDHE_ECDSA_WITH_AES_128_CBC_SHA}}), "CBC")
	assert.Error(t, dial(&tls.Config{MaxVersion: tls.VersionTLS12, CipherSuites: []uint16{tls.TLS_ECDHE_ECDSA_WITH_AES_128_CBC_SHA256}}), "CBC-SHA256")

	// A client that speaks no TLS at all.
	conn, err := net.Dial("tcp", addr)
	require.NoError(t, err)
	_, _ = conn.Write([]byte("\x16\x03\x01\x00\x05hello"))
	_, _ = io.ReadAll(conn)
	conn.Close()

	require.Eventually(t, func() bool { return strings.Count(logs.String(), "TLS handshake failed") >= 4 }, 5*time.Second, 10*time.Millisecond, logs.String())
	for _, line := range strings.Split(strings.TrimSpace(logs.String()), "\n") {
		var entry map[string]any
		require.NoError(t, json.Unmarshal([]byte(line), &entry), "every log line is JSON: %q", line)
		if entry["msg"] == "TLS handshake failed" {
			assert.Equal(t, "WARN", entry["level"])
			assert.Contains(t, entry["error"], "TLS handshake error from 127.0.0.1:")
		}
	}
}

// With a client CA the POST routes want a certificate it signed; the probes
// do not, since the kubelet sends none.
func TestClientCertificatesRequiredForHooks(t *testing.T) {
	client, err := testcert.NewClient("kube-apiserver")
	require.NoError(t, err)
	stranger, err := testcert.NewClient("someone")
	require.NoError(t, err)
	pair := newPair(t, "a")
	addr := startTLS(t, Config{Logger: slog.New(slog.DiscardHandler), Routes: DefaultRoutes(), RequireClientCert: true}, pair,
		func(c *tls.Config) { require.NoError(t, RequestClientCerts(c, client.CertPEM)) })

	get := func(presented *testcert.Pair, method, path string) (int, error) {
		c := &tls.Config{RootCAs: pair.Pool()}
		if presented != nil {
			cert, err := presented.TLSCertificate()
			require.NoError(t, err)
			c.Certificates = []tls.Certificate{cert}
		}
		hc := &http.Client{Transport: &http.Transport{TLSClientConfig: c}, Timeout: 5 * time.Second}
		req, err := http.NewRequest(method, "https://"+addr+path, strings.NewReader(`{}`))
		require.NoError(t, err)
		resp, err := hc.Do(req)
		if err != nil {
			return 0, err
		}
		resp.Body.Close()
		return resp.StatusCode, nil
	}
	code, err := get(nil, http.MethodGet, "/healthz")
	require.NoError(t, err)
	assert.Equal(t, http.StatusOK, code, "probes need no certificate")
	code, err = get(nil, http.MethodPost, "/validate")
	require.NoError(t, err)
	assert.Equal(t, http.StatusUnauthorized, code, "no certificate")
	code, err = get(&client, http.MethodPost, "/validate")
	require.NoError(t, err)
	assert.Equal(t, http.StatusBadRequest, code, "a trusted certificate reaches the hook, which refuses {}")
	// A certificate of another CA is not sent (it matches none of the CAs the
	// server asks for) or fails the handshake: either way the hook refuses.
	code, err = get(&stranger, http.MethodPost, "/validate")
	if err == nil {
		assert.Equal(t, http.StatusUnauthorized, code, "a certificate of another CA")
	}
}
