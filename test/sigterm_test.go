package test

import (
	"bufio"
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/c5c3/glance-hooks/test/testbin"
)

// logLines collects a process's JSON log lines as they come.
type logLines struct {
	mu    sync.Mutex
	lines []map[string]any
	raw   bytes.Buffer
}

func (l *logLines) read(r io.Reader) {
	s := bufio.NewScanner(r)
	for s.Scan() {
		var m map[string]any
		l.mu.Lock()
		l.raw.Write(append(s.Bytes(), '\n'))
		if json.Unmarshal(s.Bytes(), &m) == nil {
			l.lines = append(l.lines, m)
		}
		l.mu.Unlock()
	}
}

// find returns the first line whose msg is msg.
func (l *logLines) find(msg string) map[string]any {
	l.mu.Lock()
	defer l.mu.Unlock()
	for _, m := range l.lines {
		if m["msg"] == msg {
			return m
		}
	}
	return nil
}

func (l *logLines) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.raw.String()
}

// The real binary, stopped the way the kubelet stops a container: SIGTERM.
// It fails readiness first and keeps answering the hooks (and serving
// metrics) through the drain, then closes and exits 0.
func TestServeDrainsOnSIGTERM(t *testing.T) {
	bin, err := testbin.Path()
	require.NoError(t, err)
	cmd := exec.Command(bin, "serve", "--insecure-plain-http", "--routes=hooks", "--listen=127.0.0.1:0",
		"--metrics-listen=127.0.0.1:0", "--shutdown-drain=3s", "--shutdown-grace=2s")
	cmd.Env = []string{}
	stderr, err := cmd.StderrPipe()
	require.NoError(t, err)
	require.NoError(t, cmd.Start())
	t.Cleanup(func() { _ = cmd.Process.Kill() })
	var logs logLines
	logsDone := make(chan struct{})
	go func() { logs.read(stderr); close(logsDone) }()

	var hooks, metrics string
	require.Eventually(t, func() bool {
		s, m := logs.find("serving"), logs.find("serving metrics")
		if s == nil || m == nil {
			return false
		}
		hooks, metrics = "http://"+s["listen"].(string), "http://"+m["listen"].(string)
		return true
	}, 20*time.Second, 10*time.Millisecond, "did not start: %s", &logs)
	assert.Equal(t, testbin.Version, logs.find("serving")["version"], "the serving line names the build")
	assert.Equal(t, testbin.Commit, logs.find("serving")["commit"])

	client := &http.Client{Transport: &http.Transport{DisableKeepAlives: true}, Timeout: 5 * time.Second}
	get := func(url string) (int, string) {
		resp, err := client.Get(url)
		require.NoError(t, err)
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b)
	}
	request, err := os.ReadFile(filepath.Join("fixtures", "sync-controlplane", "recorded-metacontroller", "request.json"))
	require.NoError(t, err)
	sync := func() int {
		resp, err := client.Post(hooks+"/sync/controlplane", "application/json", bytes.NewReader(request))
		require.NoError(t, err)
		resp.Body.Close()
		return resp.StatusCode
	}
	code, _ := get(hooks + "/readyz")
	require.Equal(t, 200, code)
	require.Equal(t, 200, sync())
	code, body := get(metrics + "/metrics")
	require.Equal(t, 200, code)
	assert.Contains(t, body, `glance_hooks_build_info{commit="`+testbin.Commit+`",`)
	assert.Contains(t, body, `glance_hooks_http_requests_total{route="/sync/controlplane",status_class="2xx"} 1`)

	require.NoError(t, cmd.Process.Signal(syscall.SIGTERM))
	require.Eventually(t, func() bool { c, _ := get(hooks + "/readyz"); return c == 503 }, 3*time.Second, 10*time.Millisecond,
		"readiness fails once SIGTERM arrives")
	assert.Equal(t, 200, sync(), "a hook call that still arrives during the drain is answered")
	code, body = get(metrics + "/metrics")
	assert.Equal(t, 200, code, "metrics are served through the drain")
	assert.Contains(t, body, `glance_hooks_http_requests_total{route="/readyz",status_class="5xx"}`)

	// The log ends when the process does; Wait only after reading it all.
	select {
	case <-logsDone:
	case <-time.After(15 * time.Second):
		t.Fatalf("still running after drain and grace: %s", &logs)
	}
	require.NoError(t, cmd.Wait(), "exit 0 after the drain: %s", &logs)
	assert.NotNil(t, logs.find("stopped"), "%s", &logs)
	_, err = client.Get(hooks + "/readyz")
	assert.Error(t, err, "the listener is closed")
	assert.False(t, strings.Contains(logs.String(), `"level":"ERROR"`), "%s", &logs)
}
