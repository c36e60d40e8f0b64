//go:build integration

package webhook_test

import (
	"bufio"
	"context"
	"crypto/tls"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/c5c3/glance-hooks/test/kubetest"
	"github.com/c5c3/glance-hooks/test/testbin"
)

// The glance-hooks binary, built once per test binary from this checkout,
// so the tests run the flags an operator gives it.
var binary struct {
	took time.Duration
}

// buildBinary builds the service once for the package and says how long
// that took.
func buildBinary() (string, error) {
	begin := time.Now()
	path, err := testbin.Path()
	if binary.took == 0 {
		binary.took = time.Since(begin)
	}
	return path, err
}

// hookService is one running `glance-hooks serve` with TLS on a free
// loopback port.
type hookService struct {
	// URL is https://127.0.0.1:<port>.
	URL string
	// CAPEM signed the serving certificate: the webhook's caBundle.
	CAPEM []byte

	cmd     *exec.Cmd
	dir     string
	log     logBuffer
	exited  chan struct{}
	waitErr error
	stopped sync.Once
}

// logBuffer collects the service's JSON log lines.
type logBuffer struct {
	mu    sync.Mutex
	lines []string
}

func (b *logBuffer) add(line string) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.lines = append(b.lines, line)
}

func (b *logBuffer) all() []string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return append([]string(nil), b.lines...)
}

// startHooks runs the built binary as
//
//	glance-hooks serve --listen 127.0.0.1:0 --tls-cert-file ... --tls-key-file ... --kubeconfig <kubeconfig> --api-timeout 3s
//
// with KUBECONFIG unset, so the sibling reads can only use the flag. Port 0
// lets the kernel pick a free port; the service logs the address it
// listens on, and that line is waited for.
func startHooks(kubeconfig string) (*hookService, error) {
	bin, err := buildBinary()
	if err != nil {
		return nil, err
	}
	dir, err := os.MkdirTemp("", "glance-hooks-tls-")
	if err != nil {
		return nil, err
	}
	s := &hookService{dir: dir, exited: make(chan struct{})}
	ok := false
	defer func() {
		if !ok {
			s.stop()
		}
	}()
	cert, err := kubetest.NewServingCert(dir, "127.0.0.1")
	if err != nil {
		return nil, err
	}
	s.CAPEM = cert.CAPEM
	s.cmd = exec.Command(bin, "serve",
		"--listen", "127.0.0.1:0",
		"--tls-cert-file", cert.CertFile,
		"--tls-key-file", cert.KeyFile,
		"--kubeconfig", kubeconfig,
		"--api-timeout", "3s",
		"--shutdown-grace", "2s",
	)
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "KUBECONFIG=") {
			s.cmd.Env = append(s.cmd.Env, kv)
		}
	}
	s.cmd.SysProcAttr = sysProcAttr()
	stderr, err := s.cmd.StderrPipe()
	if err != nil {
		return nil, err
	}
	if err := s.cmd.Start(); err != nil {
		return nil, fmt.Errorf("starting glance-hooks: %w", err)
	}
	listening := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(stderr)
		sc.Buffer(make([]byte, 64<<10), 1<<20)
		for sc.Scan() {
			line := sc.Text()
			s.log.add(line)
			var rec struct {
				Msg    string `json:"msg"`
				Listen string `json:"listen"`
			}
			if json.Unmarshal([]byte(line), &rec) == nil && rec.Msg == "serving" {
				select {
				case listening <- rec.Listen:
				default:
				}
			}
		}
		_, _ = io.Copy(io.Discard, stderr)
		s.waitErr = s.cmd.Wait()
		close(s.exited)
	}()
	select {
	case addr := <-listening:
		s.URL = "https://" + addr
	case <-s.exited:
		return nil, fmt.Errorf("glance-hooks exited before serving (%v); its log:\n%s", s.waitErr, strings.Join(s.log.all(), "\n"))
	case <-time.After(30 * time.Second):
		return nil, fmt.Errorf("glance-hooks did not log its listen address within 30s; its log:\n%s", strings.Join(s.log.all(), "\n"))
	}
	// The API server checks the chain against caBundle; so does this probe.
	tr := &http.Transport{TLSClientConfig: &tls.Config{RootCAs: cert.CertPool(), MinVersion: tls.VersionTLS12}}
	defer tr.CloseIdleConnections()
	resp, err := (&http.Client{Transport: tr, Timeout: 5 * time.Second}).Get(s.URL + "/healthz")
	if err != nil {
		return nil, fmt.Errorf("glance-hooks /healthz over TLS: %w", err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("glance-hooks /healthz: %s", resp.Status)
	}
	ok = true
	return s, nil
}

// stop sends SIGTERM (the service drains and exits), then SIGKILL after ten
// seconds, and removes the certificate directory.
func (s *hookService) stop() {
	s.stopped.Do(func() {
		if s.cmd != nil && s.cmd.Process != nil {
			_ = s.cmd.Process.Signal(syscall.SIGTERM)
			select {
			case <-s.exited:
			case <-time.After(10 * time.Second):
				_ = s.cmd.Process.Kill()
				<-s.exited
			}
		}
		_ = os.RemoveAll(s.dir)
	})
}

// logRecord is one line of the service's request log.
type logRecord struct {
	Msg     string `json:"msg"`
	Path    string `json:"path"`
	Status  int    `json:"status"`
	Parent  string `json:"parent"`
	Allowed *bool  `json:"allowed"`
	Denied  string `json:"denied"`
	Source  string `json:"source"`
	Host    string `json:"host"`
}

// records are the log lines that decode.
func (s *hookService) records() []logRecord {
	var out []logRecord
	for _, line := range s.log.all() {
		var r logRecord
		if json.Unmarshal([]byte(line), &r) == nil {
			out = append(out, r)
		}
	}
	return out
}

// decisions are the /validate answers the service logged for parent (e.g.
// "UPDATE GlanceBackend openstack/primary"), oldest first.
func (s *hookService) decisions(parent string) []logRecord {
	var out []logRecord
	for _, r := range s.records() {
		if r.Msg == "request" && r.Path == "/validate" && r.Parent == parent {
			out = append(out, r)
		}
	}
	return out
}

// lastDecision waits briefly for the log line of the latest call about
// parent (the API server has its answer before the line is written) and
// returns it.
func (s *hookService) lastDecision(t *testing.T, parent string, seen int) logRecord {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for {
		if d := s.decisions(parent); len(d) > seen {
			return d[len(d)-1]
		}
		if time.Now().After(deadline) {
			t.Fatalf("glance-hooks logged no new /validate call for %q", parent)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func (s *hookService) tail(n int) string {
	lines := s.log.all()
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}

// deadKubeconfig writes a kubeconfig whose server is a loopback port nothing
// listens on, so every API read of a service using it fails.
func deadKubeconfig(dir string, caPEM []byte) (path, server string, err error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", "", err
	}
	server = "https://" + l.Addr().String()
	if err := l.Close(); err != nil {
		return "", "", err
	}
	path = filepath.Join(dir, "dead-kubeconfig")
	cfg := fmt.Sprintf(`apiVersion: v1
kind: Config
clusters:
- name: dead
  cluster:
    server: %s
    certificate-authority-data: %s
users:
- name: nobody
  user:
    token: not-a-token
contexts:
- name: dead
  context:
    cluster: dead
    user: nobody
current-context: dead
`, server, base64.StdEncoding.EncodeToString(caPEM))
	return path, server, os.WriteFile(path, []byte(cfg), 0o600)
}

// errText is err's message, or "" for nil.
func errText(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}

// denial is the webhook's message in an API error or kubectl's stderr: the
// text after `denied the request: ` up to the end of that line, or "" when
// no webhook denied.
func denial(s string) string {
	const marker = "denied the request: "
	i := strings.Index(s, marker)
	if i < 0 {
		return ""
	}
	msg, _, _ := strings.Cut(s[i+len(marker):], "\n")
	return strings.TrimSpace(msg)
}

func contextTimeout() (context.Context, context.CancelFunc) {
	return context.WithTimeout(context.Background(), 30*time.Second)
}
