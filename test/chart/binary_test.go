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
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"

	"github.com/c5c3/glance-hooks/internal/credentials"
	"github.com/c5c3/glance-hooks/test/testbin"
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
	if testCADir != "" {
		_ = os.RemoveAll(testCADir)
	}
	os.Exit(code)
}

// The binary built like the image's carries no path of the machine it was
// built on (-trimpath).
func TestBinaryIsTrimmed(t *testing.T) {
	raw, err := os.ReadFile(serviceBinary(t))
	require.NoError(t, err)
	assert.False(t, bytes.Contains(raw, []byte(repoRoot(t))), "the binary contains the source directory's path")
}

// reserveAddr listens on a free loopback port and keeps it: a caller that
// needs several addresses holds each until it has them all, since a port
// closed at once may be handed out again by the next ask (two of a
// container's flags once got the same port that way).
func reserveAddr(t *testing.T) net.Listener {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	return l
}

// runContainer starts the service with a container's args from the chart,
// rewriting only the listen addresses (to free loopback ports) and file
// paths under /etc/glance-hooks (to dir). It returns the addresses it
// listens on, by the name of the container port.
func runContainer(t *testing.T, ctr corev1.Container, dir string) map[string]string {
	t.Helper()
	require.NotEmpty(t, ctr.Args)
	require.Equal(t, "serve", ctr.Args[0], "the image's ENTRYPOINT is the binary; args start with the command")
	declared := map[string]string{} // port number -> name
	for _, p := range ctr.Ports {
		declared[fmt.Sprint(p.ContainerPort)] = p.Name
	}
	addrs := map[string]string{}
	args := make([]string, 0, len(ctr.Args))
	var reserved []net.Listener
	for _, a := range ctr.Args {
		for _, flag := range []string{"--listen=", "--metrics-listen="} {
			if port, ok := strings.CutPrefix(a, flag+":"); ok {
				name, ok := declared[port]
				require.True(t, ok, "%s: %s%s is a port the container declares", ctr.Name, flag, port)
				l := reserveAddr(t)
				reserved = append(reserved, l)
				addrs[name] = l.Addr().String()
				a = flag + addrs[name]
			}
		}
		args = append(args, strings.ReplaceAll(a, "/etc/glance-hooks/", dir+"/"))
	}
	for _, l := range reserved { // every address chosen: free them for the service
		require.NoError(t, l.Close())
	}
	addr := addrs[ctr.Name]
	require.NotEmpty(t, addr, "%s listens on the port named after it", ctr.Name)
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
			return addrs
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

// chartCredentials are what the credentials-init container of a default
// install writes: the CA the webhook and Metacontroller trust, and the hook
// token.
type chartCredentials struct {
	ca    []byte
	token string
}

// writeCredentials writes, under dir, what the Deployment's credentials-init
// container writes into the pod's volumes on a first start (runContainer
// maps /etc/glance-hooks/ to dir): a CA and a serving certificate for its
// --host names, and a token. A real run against the API server is
// TestDefaultInstallReachable in install_test.go.
func writeCredentials(t *testing.T, dep *appsv1.Deployment, dir string) chartCredentials {
	t.Helper()
	require.Len(t, dep.Spec.Template.Spec.InitContainers, 1)
	init := dep.Spec.Template.Spec.InitContainers[0]
	require.Equal(t, "credentials", init.Args[0])
	p := credentials.Policy{CAValidity: 48 * time.Hour, CertValidity: 24 * time.Hour, RenewBefore: time.Hour}
	var tlsDir, tokenFile string
	for _, a := range init.Args {
		a = strings.ReplaceAll(a, "/etc/glance-hooks/", dir+"/")
		if v, ok := strings.CutPrefix(a, "--host="); ok {
			p.Hosts = append(p.Hosts, v)
		}
		if v, ok := strings.CutPrefix(a, "--tls-dir="); ok {
			tlsDir = v
		}
		if v, ok := strings.CutPrefix(a, "--token-file="); ok {
			tokenFile = v
		}
	}
	data, err := credentials.Apply(credentials.Decision{Action: credentials.NewCA}, nil, p, time.Now())
	require.NoError(t, err)
	token, err := credentials.NewToken()
	require.NoError(t, err)
	require.NoError(t, os.MkdirAll(tlsDir, 0o700))
	for _, k := range []string{credentials.KeyCert, credentials.KeyKey, credentials.KeyCA} {
		require.NoError(t, os.WriteFile(filepath.Join(tlsDir, k), data[k], 0o600))
	}
	require.NoError(t, os.MkdirAll(filepath.Dir(tokenFile), 0o700))
	require.NoError(t, os.WriteFile(tokenFile, []byte(token), 0o600))
	return chartCredentials{ca: data[credentials.KeyCA], token: token}
}

// chartClient trusts ca and connects to name (a name the callers use) at
// whatever address it dials.
func chartClient(t *testing.T, ca []byte, name string) *http.Client {
	t.Helper()
	pool := x509.NewCertPool()
	require.True(t, pool.AppendCertsFromPEM(ca))
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
	creds := writeCredentials(t, &dep, dir)
	base := "https://" + runContainer(t, ctr, dir)["hooks"]

	ccs := compositeControllers(t, r)
	require.Len(t, ccs, 3)
	host := syncHost(t, ccs["glance"])
	client := chartClient(t, creds.ca, host)
	assert.Equal(t, http.StatusOK, probe(t, client, base, ctr.LivenessProbe), "liveness")
	assert.Equal(t, http.StatusOK, probe(t, client, base, ctr.ReadinessProbe), "readiness")

	auth := "Bearer " + creds.token
	for name, cc := range ccs {
		for hook := range cc.Spec.Hooks {
			require.NotNil(t, cc.Spec.Hooks[hook].Webhook, "%s %s", name, hook)
			path := *cc.Spec.Hooks[hook].Webhook.Path
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
	creds := writeCredentials(t, &dep, dir)
	addr := runContainer(t, ctr, dir)["validate"]

	client := chartClient(t, creds.ca, "glance-hooks.glance-hooks.svc")
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

// `helm test`: the chart's test pod, run with exactly its args against the
// two containers run with exactly theirs (the Service's names mapped to the
// loopback addresses they listen on), passes; and it fails against a
// container that does not answer what it checks.
func TestHelmTestPodPassesAgainstTheChartContainers(t *testing.T) {
	r := render(t, "glance-hooks", "glance-hooks")
	var dep appsv1.Deployment
	r.one(t, "Deployment").into(t, &dep)
	var svc corev1.Service
	r.one(t, "Service").into(t, &svc)
	dir := t.TempDir()
	creds := writeCredentials(t, &dep, dir)
	listening := map[string]string{} // container port name -> address
	for _, name := range []string{"hooks", "validate"} {
		ctr := container(t, &dep, name)
		for port, addr := range runContainer(t, ctr, dir) {
			listening[port] = addr
		}
	}
	byServicePort := map[string]string{} // Service port number -> address
	for _, p := range svc.Spec.Ports {
		byServicePort[fmt.Sprint(p.Port)] = listening[p.TargetPort.String()]
	}

	var pod corev1.Pod
	r.named(t, "Pod", "glance-hooks-test").into(t, &pod)
	assert.Equal(t, "test", pod.Annotations["helm.sh/hook"])
	require.Len(t, pod.Spec.Containers, 1)
	ctr := pod.Spec.Containers[0]
	assert.Equal(t, container(t, &dep, "hooks").Image, ctr.Image, "the test runs the release's image")
	require.Len(t, ctr.VolumeMounts, 1)
	v := pod.Spec.Volumes[0]
	require.NotNil(t, v.Secret)
	assert.Equal(t, []corev1.KeyToPath{{Key: "ca.crt", Path: "ca.crt"}}, v.Secret.Items, "the CA only, never the key")
	assert.Equal(t, "glance-hooks-certs", v.Secret.SecretName, "the Secret the credentials containers fill")
	caDir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(caDir, "ca.crt"), creds.ca, 0o600))

	const host = "glance-hooks.glance-hooks.svc"
	hostPort := regexp.MustCompile(`https://` + regexp.QuoteMeta(host) + `:(\d+)`)
	var args []string
	urls := 0
	for _, a := range ctr.Args {
		a = strings.ReplaceAll(a, ctr.VolumeMounts[0].MountPath, caDir)
		a = hostPort.ReplaceAllStringFunc(a, func(m string) string {
			urls++
			addr := byServicePort[hostPort.FindStringSubmatch(m)[1]]
			require.NotEmpty(t, addr, "%s is a port of the Service", m)
			return "https://" + addr
		})
		args = append(args, a)
	}
	assert.Equal(t, 5, urls, "both readiness probes, both metrics, /validate")
	// The URLs now name addresses; the certificate is checked for the name.
	args = append(args, "--tls-server-name="+host)
	cmd := exec.Command(serviceBinary(t), args...)
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, "%s", out)
	assert.Equal(t, 5, strings.Count(string(out), "ok   "), "%s", out)
	assert.Contains(t, string(out), "exactly one backends entry must set isDefault")

	// Against the hooks container where /validate should be, it fails.
	bad := append([]string{}, args...)
	for i, a := range bad {
		if strings.HasPrefix(a, "--validate=") {
			bad[i] = "--validate=https://" + listening["hooks"] + "/validate"
		}
	}
	out, err = exec.Command(serviceBinary(t), bad...).CombinedOutput()
	assert.Error(t, err, "%s", out)
	assert.Contains(t, string(out), "FAIL POST")
}
