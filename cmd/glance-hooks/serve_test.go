package main

import (
	"bytes"
	"context"
	"crypto/tls"
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/c5c3/glance-hooks/internal/testcert"
)

// syncBuffer is a log sink the test reads while the server writes.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

var listenRE = regexp.MustCompile(`"msg":"serving","listen":"([^"]+)"`)

func noAPIAccess(t *testing.T) {
	t.Setenv("KUBECONFIG", "")
	t.Setenv("KUBERNETES_SERVICE_HOST", "")
	t.Setenv("KUBERNETES_SERVICE_PORT", "")
}

// TestServeTLSWithoutAPIAccess starts the command the way a pod would without
// RBAC wiring: HTTPS, no kubeconfig, not in a cluster. It must start, serve
// the sync hooks, and refuse a default GlanceBackend with a clear message.
func TestServeTLSWithoutAPIAccess(t *testing.T) {
	noAPIAccess(t)
	pair, err := testcert.New("glance-hooks", "127.0.0.1")
	require.NoError(t, err)
	certFile, keyFile, err := pair.Write(t.TempDir())
	require.NoError(t, err)

	var logs syncBuffer
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		done <- runServe(ctx, []string{"--listen", "127.0.0.1:0", "--tls-cert-file", certFile, "--tls-key-file", keyFile, "--api-timeout", "2s"}, &logs)
	}()
	var addr string
	require.Eventually(t, func() bool {
		m := listenRE.FindStringSubmatch(logs.String())
		if m != nil {
			addr = m[1]
		}
		return m != nil
	}, 10*time.Second, 10*time.Millisecond, "server did not start: %s", logs.String())
	assert.Contains(t, logs.String(), "no API access; /validate refuses every GlanceBackend change that needs its siblings")

	client := &http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pair.Pool()}}, Timeout: 10 * time.Second}
	postFile := func(path, file string) (int, []byte) {
		body, err := os.ReadFile(file)
		require.NoError(t, err)
		resp, err := client.Post("https://"+addr+path, "application/json", bytes.NewReader(body))
		require.NoError(t, err)
		defer resp.Body.Close()
		var out bytes.Buffer
		_, _ = out.ReadFrom(resp.Body)
		return resp.StatusCode, out.Bytes()
	}

	code, body := postFile("/validate", filepath.Join("..", "..", "test", "fixtures", "validate", "glancebackend-standalone-default-allowed", "request.json"))
	require.Equal(t, 200, code)
	var rev struct {
		Response struct {
			Allowed bool
			Status  struct {
				Code    int
				Message string
			}
		}
	}
	require.NoError(t, json.Unmarshal(body, &rev))
	assert.False(t, rev.Response.Allowed, "no API access must never allow a default")
	assert.Equal(t, 503, rev.Response.Status.Code)
	assert.Contains(t, rev.Response.Status.Message, "no Kubernetes API access is configured: give --kubeconfig, set KUBECONFIG, or run in a pod with a service account")

	code, _ = postFile("/sync/controlplane", filepath.Join("..", "..", "test", "fixtures", "sync-controlplane", "recorded-metacontroller", "request.json"))
	assert.Equal(t, 200, code, "the sync hooks keep serving")

	cancel()
	select {
	case err := <-done:
		require.NoError(t, err)
	case <-time.After(10 * time.Second):
		t.Fatal("serve did not stop")
	}
}

func TestServeFlagErrors(t *testing.T) {
	noAPIAccess(t)
	dir := t.TempDir()
	pair, err := testcert.New("x", "127.0.0.1")
	require.NoError(t, err)
	certFile, keyFile, err := pair.Write(dir)
	require.NoError(t, err)
	cases := []struct {
		name string
		args []string
		want string
	}{
		{"cert without key", []string{"--tls-cert-file", certFile}, "--tls-cert-file and --tls-key-file go together"},
		{"key without cert", []string{"--tls-key-file", keyFile}, "--tls-cert-file and --tls-key-file go together"},
		{"unloadable pair", []string{"--tls-cert-file", keyFile, "--tls-key-file", certFile}, "loading the TLS key pair"},
		{"missing kubeconfig", []string{"--kubeconfig", filepath.Join(dir, "nope")}, "loading --kubeconfig"},
		{"bad timeout", []string{"--api-timeout", "0s"}, "--api-timeout must be positive"},
		{"stray argument", []string{"extra"}, "serve takes no arguments"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			err := runServe(context.Background(), append([]string{"--listen", "127.0.0.1:0"}, tc.args...), &syncBuffer{})
			require.Error(t, err)
			assert.Contains(t, err.Error(), tc.want)
		})
	}
}
