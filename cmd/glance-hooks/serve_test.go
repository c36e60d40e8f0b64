package main

import (
	"bytes"
	"context"
	"crypto/tls"
	"encoding/json"
	"io"
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
	done := make(chan int, 1)
	go func() {
		done <- execute(ctx, []string{"serve", "--listen", "127.0.0.1:0", "--tls-cert-file", certFile, "--tls-key-file", keyFile, "--api-timeout", "2s"}, nil, io.Discard, &logs)
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
	case code := <-done:
		require.Equal(t, 0, code, logs.String())
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
	cases := map[string]struct {
		args []string
		code int
		want string
	}{
		"cert without key":   {[]string{"--tls-cert-file", certFile}, exitUsage, "--tls-cert-file and --tls-key-file go together"},
		"key without cert":   {[]string{"--tls-key-file", keyFile}, exitUsage, "--tls-cert-file and --tls-key-file go together"},
		"bad timeout":        {[]string{"--api-timeout", "0s"}, exitUsage, "--api-timeout must be positive"},
		"stray argument":     {[]string{"extra"}, exitUsage, "serve takes no arguments"},
		"unknown flag":       {[]string{"--listne", ":1"}, exitUsage, "unknown flag: --listne"},
		"unloadable pair":    {[]string{"--tls-cert-file", keyFile, "--tls-key-file", certFile}, exitFailure, "loading the TLS key pair"},
		"missing kubeconfig": {[]string{"--kubeconfig", filepath.Join(dir, "nope")}, exitFailure, "loading --kubeconfig"},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			code := execute(context.Background(), append([]string{"serve", "--listen", "127.0.0.1:0"}, tc.args...), nil, &stdout, &stderr)
			assert.Equal(t, tc.code, code, "exit code; stderr: %s", stderr.String())
			assert.Contains(t, stderr.String(), tc.want)
			assert.Empty(t, stdout.String(), "errors go to stderr")
		})
	}
}
