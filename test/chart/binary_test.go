package chart

import (
	"bytes"
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"

	"github.com/c5c3/glance-hooks/internal/testbin"
)

// serviceBinary is cmd/glance-hooks built once per test run, with the flags
// of the Dockerfile.
func serviceBinary(t *testing.T) string {
	t.Helper()
	bin, err := testbin.Path()
	require.NoError(t, err)
	return bin
}

// runTests runs the package's tests; the integration build wraps it so the
// shared kube-apiserver is stopped at the end.
var runTests = func(m *testing.M) int { return m.Run() }

func TestMain(m *testing.M) {
	code := runTests(m)
	testbin.Cleanup()
	os.Exit(code)
}

// The binary built like the image's carries no path of the machine it was
// built on (-trimpath).
func TestBinaryIsTrimmed(t *testing.T) {
	raw, err := os.ReadFile(serviceBinary(t))
	require.NoError(t, err)
	assert.False(t, bytes.Contains(raw, []byte(repoRoot(t))), "the binary contains the source directory's path")
}

// runContainer starts the service with a container's args from the chart,
// rewriting only the listen address (to a free loopback port) and file paths
// under /etc/glance-hooks (to dir). It returns the address it listens on.
func runContainer(t *testing.T, ctr corev1.Container, dir string) string {
	t.Helper()
	require.NotEmpty(t, ctr.Args)
	require.Equal(t, "serve", ctr.Args[0], "the image's ENTRYPOINT is the binary; args start with the command")
	l, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	addr := l.Addr().String()
	require.NoError(t, l.Close())

	args := make([]string, 0, len(ctr.Args))
	for _, a := range ctr.Args {
		if strings.HasPrefix(a, "--listen=") {
			port := strings.TrimPrefix(a, "--listen=:")
			require.Equal(t, fmt.Sprint(ctr.Ports[0].ContainerPort), port, "%s listens on its declared port", ctr.Name)
			a = "--listen=" + addr
		}
		args = append(args, strings.ReplaceAll(a, "/etc/glance-hooks/", dir+"/"))
	}
	ctx, cancel := context.WithCancel(context.Background())
	cmd := exec.CommandContext(ctx, serviceBinary(t), args...)
	// Only what the chart passes: no kubeconfig from the test's environment.
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "KUBECONFIG=") {
			cmd.Env = append(cmd.Env, kv)
		}
	}
	var logs bytes.Buffer
	cmd.Stdout, cmd.Stderr = &logs, &logs
	require.NoError(t, cmd.Start())
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	t.Cleanup(func() {
		cancel()
		<-exited
		if t.Failed() {
			t.Logf("%s logs:\n%s", ctr.Name, logs.String())
		}
	})
	// Wait until it accepts connections, or fail with its output if it exits.
	deadline := time.Now().Add(20 * time.Second)
	for {
		select {
		case err := <-exited:
			exited <- err
			require.Failf(t, "service exited", "%s with args %q: %v\n%s", ctr.Name, args, err, logs.String())
		default:
		}
		if c, err := net.DialTimeout("tcp", addr, 200*time.Millisecond); err == nil {
			_ = c.Close()
			return addr
		}
		require.True(t, time.Now().Before(deadline), "%s did not listen on %s:\n%s", ctr.Name, addr, logs.String())
		time.Sleep(50 * time.Millisecond)
	}
}

// probe performs a container's HTTP probe the way the kubelet does.
func probe(t *testing.T, client *http.Client, base string, p *corev1.Probe) int {
	t.Helper()
	resp, err := client.Get(base + p.HTTPGet.Path)
	require.NoError(t, err)
	defer resp.Body.Close()
	_, _ = io.Copy(io.Discard, resp.Body)
	return resp.StatusCode
}

// served tells whether the service routes POST path (anything but 404/405;
// an empty body is a 4xx on a route that exists).
func served(t *testing.T, client *http.Client, base, path string) bool {
	t.Helper()
	resp, err := client.Post(base+path, "application/json", strings.NewReader(`{}`))
	require.NoError(t, err)
	defer resp.Body.Close()
	_, _ = io.Copy(io.Discard, resp.Body)
	return resp.StatusCode != http.StatusNotFound && resp.StatusCode != http.StatusMethodNotAllowed
}

func checkServed(t *testing.T, client *http.Client, base, path string) {
	t.Helper()
	assert.True(t, served(t, client, base, path), "the chart registers %s, which the service does not serve", path)
}

// The hooks container, run with exactly the chart's args, answers its
// probes and serves every path the CompositeControllers call.
func TestHooksContainerServesChartRoutes(t *testing.T) {
	r := render(t, "glance-hooks", "glance-hooks")
	var dep appsv1.Deployment
	r.one(t, "Deployment").into(t, &dep)
	ctr := container(t, &dep, "hooks")
	base := "http://" + runContainer(t, ctr, t.TempDir())
	client := &http.Client{Timeout: 5 * time.Second}
	assert.Equal(t, http.StatusOK, probe(t, client, base, ctr.LivenessProbe), "liveness")
	assert.Equal(t, http.StatusOK, probe(t, client, base, ctr.ReadinessProbe), "readiness")

	ccs := compositeControllers(t, r)
	require.Len(t, ccs, 3)
	for name, cc := range ccs {
		for hook := range cc.Spec.Hooks {
			path := cc.Spec.Hooks[hook].Webhook.Path
			t.Run(name+" "+hook, func(t *testing.T) { checkServed(t, client, base, path) })
		}
	}
	// Prove the check can tell.
	assert.True(t, served(t, client, base, "/sync/controlplane"))
	assert.False(t, served(t, client, base, "/sync/nothing"))
}

// The validate container, run with exactly the chart's args and the
// chart-made certificate, serves TLS that a client trusting the webhook's
// caBundle accepts for the Service's DNS name: what the API server does.
func TestValidateContainerServesChartTLS(t *testing.T) {
	r := render(t, "glance-hooks", "glance-hooks")
	var dep appsv1.Deployment
	r.one(t, "Deployment").into(t, &dep)
	ctr := container(t, &dep, "validate")
	var secret corev1.Secret
	r.named(t, "Secret", volume(t, &dep, "tls").Secret.SecretName).into(t, &secret)

	dir := t.TempDir()
	var mountPath string
	for _, m := range ctr.VolumeMounts {
		if m.Name == "tls" {
			mountPath = m.MountPath
		}
	}
	rel, ok := strings.CutPrefix(mountPath, "/etc/glance-hooks/")
	require.True(t, ok, "the TLS mount is under /etc/glance-hooks: %s", mountPath)
	require.NoError(t, os.MkdirAll(filepath.Join(dir, rel), 0o700))
	for _, k := range []string{"tls.crt", "tls.key", "ca.crt"} {
		require.NoError(t, os.WriteFile(filepath.Join(dir, rel, k), secret.Data[k], 0o600))
	}
	addr := runContainer(t, ctr, dir)

	pool := x509.NewCertPool()
	require.True(t, pool.AppendCertsFromPEM(secret.Data["ca.crt"]))
	client := &http.Client{Timeout: 5 * time.Second, Transport: &http.Transport{
		TLSClientConfig: &tls.Config{RootCAs: pool, ServerName: "glance-hooks.glance-hooks.svc", MinVersion: tls.VersionTLS12},
	}}
	base := "https://" + addr
	assert.Equal(t, http.StatusOK, probe(t, client, base, ctr.LivenessProbe), "liveness over TLS")
	assert.Equal(t, http.StatusOK, probe(t, client, base, ctr.ReadinessProbe), "readiness over TLS")
	checkServed(t, client, base, "/validate")

	// And it decides: a fixture the webhook refuses is refused through the
	// chart's TLS setup too, with the fixture's answer.
	fixture := filepath.Join(repoRoot(t), "test", "fixtures", "validate", "controlplane-two-defaults-denied")
	resp, err := client.Post(base+"/validate", "application/json",
		bytes.NewReader(mustReadAbs(t, filepath.Join(fixture, "request.json"))))
	require.NoError(t, err)
	defer resp.Body.Close()
	got, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	var want struct {
		Body json.RawMessage `json:"body"`
		Code int             `json:"code"`
	}
	require.NoError(t, json.Unmarshal(mustReadAbs(t, filepath.Join(fixture, "response.json")), &want))
	assert.Equal(t, want.Code, resp.StatusCode)
	assert.JSONEq(t, string(want.Body), string(got))
}
