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
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/c5c3/glance-hooks/test/testcert"
	"github.com/c5c3/glance-hooks/test/testlog"
)

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

	s := startServe(t, "--tls-cert-file", certFile, "--tls-key-file", keyFile, "--api-timeout", "2s")
	addr := s.addr
	assert.Contains(t, s.logs.String(), "no API access; /validate refuses every GlanceBackend change that needs its siblings")

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

	assert.Contains(t, s.logs.String(), "Metacontroller's hooks are served to any caller that reaches this port")
	s.stop(t)
}

// running is one serve command in this process.
type running struct {
	addr   string
	logs   *testlog.Buffer
	cancel context.CancelFunc
	done   chan int
}

// startServe runs "serve" with args on a free loopback port until the test
// ends (or stop), and waits until it listens.
func startServe(t *testing.T, args ...string) *running {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	s := &running{logs: &testlog.Buffer{}, cancel: cancel, done: make(chan int, 1)}
	go func() {
		s.done <- execute(ctx, append([]string{"serve", "--listen", "127.0.0.1:0"}, args...), nil, io.Discard, s.logs)
	}()
	t.Cleanup(cancel)
	require.Eventually(t, func() bool {
		m := listenRE.FindStringSubmatch(s.logs.String())
		if m != nil {
			s.addr = m[1]
		}
		return m != nil
	}, 10*time.Second, 10*time.Millisecond, "server did not start: %s", s.logs.String())
	return s
}

func (s *running) stop(t *testing.T) {
	t.Helper()
	s.cancel()
	select {
	case code := <-s.done:
		require.Equal(t, 0, code, s.logs.String())
	case <-time.After(10 * time.Second):
		t.Fatal("serve did not stop")
	}
}

// The chart's hooks container: TLS, the hook routes only, each call with the
// token from a file that is re-read when it changes.
func TestServeHooksWithToken(t *testing.T) {
	noAPIAccess(t)
	dir := t.TempDir()
	pair, err := testcert.New("glance-hooks", "127.0.0.1")
	require.NoError(t, err)
	certFile, keyFile, err := pair.Write(dir)
	require.NoError(t, err)
	tokenFile := filepath.Join(dir, "token")
	require.NoError(t, os.WriteFile(tokenFile, []byte("first-token\n"), 0o600))

	s := startServe(t, "--routes", "hooks", "--tls-cert-file", certFile, "--tls-key-file", keyFile, "--auth-token-file", tokenFile)
	assert.NotContains(t, s.logs.String(), "no API access", "the hooks alone need no API access and say nothing about it")
	assert.NotContains(t, s.logs.String(), "served to any caller")
	client := &http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pair.Pool()}}, Timeout: 10 * time.Second}
	body, err := os.ReadFile(filepath.Join("..", "..", "test", "fixtures", "sync-controlplane", "recorded-metacontroller", "request.json"))
	require.NoError(t, err)
	post := func(path, auth string) int {
		req, err := http.NewRequest(http.MethodPost, "https://"+s.addr+path, bytes.NewReader(body))
		require.NoError(t, err)
		if auth != "" {
			req.Header.Set("Authorization", auth)
		}
		resp, err := client.Do(req)
		require.NoError(t, err)
		defer resp.Body.Close()
		return resp.StatusCode
	}
	assert.Equal(t, 200, post("/sync/controlplane", "Bearer first-token"))
	assert.Equal(t, 401, post("/sync/controlplane", ""))
	assert.Equal(t, 401, post("/sync/controlplane", "Bearer other"))
	assert.Equal(t, 404, post("/validate", "Bearer first-token"), "the hooks container does not serve /validate")

	// A rotated Secret: the new token is in force, the old one is not.
	require.NoError(t, os.WriteFile(tokenFile+".new", []byte("second-token"), 0o600))
	require.NoError(t, os.Rename(tokenFile+".new", tokenFile))
	assert.Equal(t, 200, post("/sync/controlplane", "Bearer second-token"))
	assert.Equal(t, 401, post("/sync/controlplane", "Bearer first-token"))
	assert.NotContains(t, s.logs.String(), "second-token", "the token is never logged")

	// Plain HTTP on the TLS port is no way in.
	resp, err := http.Post("http://"+s.addr+"/sync/controlplane", "application/json", bytes.NewReader(body))
	if err == nil {
		resp.Body.Close()
		assert.Equal(t, http.StatusBadRequest, resp.StatusCode)
	}
}

// --routes=validate serves /validate and none of Metacontroller's hooks;
// --insecure-plain-http serves plain HTTP, saying so.
func TestServeValidateOnlyAndPlainHTTP(t *testing.T) {
	noAPIAccess(t)
	s := startServe(t, "--routes", "validate", "--insecure-plain-http")
	assert.Contains(t, s.logs.String(), "serving plain HTTP (--insecure-plain-http)")
	for path, want := range map[string]int{"/validate": 400, "/sync/glance": 404, "/customize/glance": 404} {
		resp, err := http.Post("http://"+s.addr+path, "application/json", bytes.NewReader([]byte(`{}`)))
		require.NoError(t, err)
		resp.Body.Close()
		assert.Equal(t, want, resp.StatusCode, path)
	}
}

func TestServeFlagErrors(t *testing.T) {
	noAPIAccess(t)
	dir := t.TempDir()
	pair, err := testcert.New("x", "127.0.0.1")
	require.NoError(t, err)
	certFile, keyFile, err := pair.Write(dir)
	require.NoError(t, err)
	tokenFile, emptyFile := filepath.Join(dir, "token"), filepath.Join(dir, "empty")
	require.NoError(t, os.WriteFile(tokenFile, []byte("t0ken"), 0o600))
	require.NoError(t, os.WriteFile(emptyFile, []byte(" \n"), 0o600))
	tlsArgs := []string{"--tls-cert-file", certFile, "--tls-key-file", keyFile}
	plain := func(args ...string) []string { return append([]string{"--insecure-plain-http"}, args...) }
	cases := map[string]struct {
		args []string
		code int
		want string
	}{
		"cert without key":           {[]string{"--tls-cert-file", certFile}, exitUsage, "--tls-cert-file and --tls-key-file go together"},
		"key without cert":           {[]string{"--tls-key-file", keyFile}, exitUsage, "--tls-cert-file and --tls-key-file go together"},
		"neither TLS nor plain HTTP": {nil, exitUsage, "serve needs --tls-cert-file and --tls-key-file, or --insecure-plain-http"},
		"TLS and plain HTTP":         {plain(tlsArgs...), exitUsage, "and not both"},
		"client CA without TLS":      {plain("--client-ca-file", certFile), exitUsage, "--client-ca-file needs TLS"},
		"bad timeout":                {plain("--api-timeout", "0s"), exitUsage, "--api-timeout must be positive"},
		"bad body timeout":           {plain("--body-read-timeout", "0s"), exitUsage, "--body-read-timeout must be positive"},
		"zero max body":              {plain("--max-body-bytes", "0"), exitUsage, "--max-body-bytes must be positive"},
		"negative max body":          {plain("--max-body-bytes", "-1"), exitUsage, "--max-body-bytes must be positive"},
		"negative conn requests":     {plain("--max-conn-requests", "-1"), exitUsage, "--max-conn-requests, --max-conn-age and --max-conns cannot be negative"},
		"negative conn age":          {plain("--max-conn-age", "-1s"), exitUsage, "--max-conn-requests, --max-conn-age and --max-conns cannot be negative"},
		"negative max conns":         {plain("--max-conns", "-1"), exitUsage, "--max-conn-requests, --max-conn-age and --max-conns cannot be negative"},
		"negative max in flight":     {plain("--max-in-flight", "-1"), exitUsage, "--max-in-flight cannot be negative"},
		"unknown routes":             {plain("--routes", "sync"), exitUsage, "--routes must be hooks, validate or all"},
		"token for validate":         {plain("--routes", "validate", "--auth-token-file", tokenFile), exitUsage, "which --routes=validate does not serve"},
		"stray argument":             {plain("extra"), exitUsage, "serve takes no arguments"},
		"unknown flag":               {[]string{"--listne", ":1"}, exitUsage, "unknown flag: --listne"},
		"unloadable pair":            {[]string{"--tls-cert-file", keyFile, "--tls-key-file", certFile}, exitFailure, "loading the TLS key pair"},
		"client CA not PEM":          {append(tlsArgs, "--client-ca-file", keyFile), exitFailure, "holds no PEM certificate"},
		"empty token":                {plain("--auth-token-file", emptyFile), exitFailure, "the auth token file is empty"},
		"missing kubeconfig":         {plain("--kubeconfig", filepath.Join(dir, "nope")), exitFailure, "loading --kubeconfig"},
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
