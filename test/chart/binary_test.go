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

// writeSecretMounts writes, under dir, the rendered Secret behind each of the
// container's Secret volume mounts at /etc/glance-hooks/..., the way the
// kubelet would (runContainer maps /etc/glance-hooks/ to dir).
func writeSecretMounts(t *testing.T, r *release, dep *appsv1.Deployment, ctr corev1.Container, dir string) {
	t.Helper()
	for _, m := range ctr.VolumeMounts {
		v := volume(t, dep, m.Name)
		if v.Secret == nil {
			continue
		}
		rel, ok := strings.CutPrefix(m.MountPath, "/etc/glance-hooks/")
		require.True(t, ok, "Secret mounts are under /etc/glance-hooks: %s", m.MountPath)
		var secret corev1.Secret
		r.named(t, "Secret", v.Secret.SecretName).into(t, &secret)
		require.NoError(t, os.MkdirAll(filepath.Join(dir, rel), 0o700))
		for k, val := range secret.Data {
			require.NoError(t, os.WriteFile(filepath.Join(dir, rel, k), val, 0o600))
		}
	}
}

// chartClient trusts the chart-made CA and connects to name (a name the
// callers use) at whatever address it dials.
func chartClient(t *testing.T, r *release, name string) *http.Client {
	t.Helper()
	var secret corev1.Secret
	r.named(t, "Secret", "glance-hooks-tls").into(t, &secret)
	pool := x509.NewCertPool()
	require.True(t, pool.AppendCertsFromPEM(secret.Data["ca.crt"]))
	return &http.Client{Timeout: 5 * time.Second, Transport: &http.Transport{
		TLSClientConfig: &tls.Config{RootCAs: pool, ServerName: name, MinVersion: tls.VersionTLS12},
	}}
}

// The hooks container, run with exactly the chart's args and files, answers
// its probes over TLS and, to a client that calls it the way the
// CompositeControllers tell Metacontroller to (their CA, their host name,
// their token), serves every path they call; without the token it refuses,
// and /validate is not its route.
func TestHooksContainerServesChartRoutes(t *testing.T) {
	r := render(t, "glance-hooks", "glance-hooks")
	var dep appsv1.Deployment
	r.one(t, "Deployment").into(t, &dep)
	ctr := container(t, &dep, "hooks")
	dir := t.TempDir()
	writeSecretMounts(t, r, &dep, ctr, dir)
	base := "https://" + runContainer(t, ctr, dir)

	ccs := compositeControllers(t, r)
	require.Len(t, ccs, 3)
	var token corev1.Secret
	r.named(t, "Secret", ccs["glance"].Spec.Hooks["sync"].Webhook.Authorization.SecretRef.Name).into(t, &token)
	host := strings.Split(strings.TrimPrefix(ccs["glance"].hookURL("sync"), "https://"), ":")[0]
	client := chartClient(t, r, host)
	assert.Equal(t, http.StatusOK, probe(t, client, base, ctr.LivenessProbe), "liveness")
	assert.Equal(t, http.StatusOK, probe(t, client, base, ctr.ReadinessProbe), "readiness")

	auth := "Bearer " + string(token.Data["token"])
	for name, cc := range ccs {
		for hook := range cc.Spec.Hooks {
			path := cc.Spec.Hooks[hook].Webhook.Path
			t.Run(name+" "+hook, func(t *testing.T) {
				assert.Equal(t, http.StatusUnprocessableEntity, postStatus(t, client, base+path, auth), "served, and {} has no parent")
				assert.Equal(t, http.StatusUnauthorized, postStatus(t, client, base+path, ""), "refused without the token")
			})
		}
	}
	assert.Equal(t, http.StatusNotFound, postStatus(t, client, base+"/validate", auth), "the hooks container does not serve /validate")
}

// postStatus posts {} with an Authorization header (if any) and returns the
// status.
func postStatus(t *testing.T, client *http.Client, url, auth string) int {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, url, strings.NewReader(`{}`))
	require.NoError(t, err)
	if auth != "" {
		req.Header.Set("Authorization", auth)
	}
	resp, err := client.Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	_, _ = io.Copy(io.Discard, resp.Body)
	return resp.StatusCode
}

// The validate container, run with exactly the chart's args and the
// chart-made certificate, serves TLS that a client trusting the webhook's
// caBundle accepts for the Service's DNS name: what the API server does.
func TestValidateContainerServesChartTLS(t *testing.T) {
	r := render(t, "glance-hooks", "glance-hooks")
	var dep appsv1.Deployment
	r.one(t, "Deployment").into(t, &dep)
	ctr := container(t, &dep, "validate")
	dir := t.TempDir()
	writeSecretMounts(t, r, &dep, ctr, dir)
	addr := runContainer(t, ctr, dir)

	client := chartClient(t, r, "glance-hooks.glance-hooks.svc")
	base := "https://" + addr
	assert.Equal(t, http.StatusOK, probe(t, client, base, ctr.LivenessProbe), "liveness over TLS")
	assert.Equal(t, http.StatusOK, probe(t, client, base, ctr.ReadinessProbe), "readiness over TLS")
	assert.Equal(t, http.StatusBadRequest, postStatus(t, client, base+"/validate", ""), "served, and {} is no AdmissionReview")
	assert.Equal(t, http.StatusNotFound, postStatus(t, client, base+"/sync/glance", ""), "the validate container serves no hook")

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
