package kubetest

import (
	"bytes"
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"encoding/base64"
	"encoding/hex"
	"encoding/pem"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"k8s.io/client-go/discovery"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
)

// Environment variables the harness reads.
const (
	// EnvBinDir names a directory holding kube-apiserver, etcd and kubectl; without it
	// the harness asks hack/build-kube.sh (which builds them once into a
	// cache directory).
	EnvBinDir = "KUBE_BIN_DIR"
	// EnvRequire, when set to 1, turns "kube-apiserver is absent" from a skip
	// into a failure. `make integration` sets it, so CI never skips.
	EnvRequire = "KUBETEST_REQUIRE"
)

// startTimeout bounds how long etcd and kube-apiserver may take to get ready.
const startTimeout = 2 * time.Minute

// Env is a running etcd and kube-apiserver on loopback with the CRDs of
// schemas/ applied.
type Env struct {
	// Dir holds everything the environment wrote: certificates, the token
	// file, etcd's data, logs, the kubeconfig. Stop removes it.
	Dir string
	// Bins holds kube-apiserver, etcd and kubectl of one Kubernetes version.
	Bins string
	// Kubeconfig is a kubeconfig file for the admin user (system:masters).
	Kubeconfig string
	// URL is the API server's https URL.
	URL string
	// Token is the admin bearer token.
	Token string
	// CAPEM is the CA the API server's serving certificate chains to.
	CAPEM []byte
	// Config, Kube and Dynamic talk to the API server as admin.
	Config  *rest.Config
	Kube    kubernetes.Interface
	Dynamic dynamic.Interface
	// Started is how long etcd and kube-apiserver took to become ready, and
	// Applied how long the CRDs then took to be established and served.
	Started, Applied time.Duration

	etcd, apiserver *process
	stopOnce        sync.Once
}

// ErrAbsent says the binaries are missing and could not be built; tests skip
// on it unless KUBETEST_REQUIRE=1.
var ErrAbsent = errors.New("kube-apiserver is absent")

// Start starts a fresh environment, stopped at t's cleanup. Most packages
// want Shared instead, which starts one per test binary.
func Start(t testing.TB) *Env {
	t.Helper()
	env, err := start()
	if err != nil {
		skipOrFail(t, err)
	}
	t.Cleanup(env.Stop)
	t.Logf("kube-apiserver ready in %s, CRDs served %s later", env.Started.Round(time.Millisecond), env.Applied.Round(time.Millisecond))
	return env
}

func skipOrFail(t testing.TB, err error) {
	t.Helper()
	if errors.Is(err, ErrAbsent) && os.Getenv(EnvRequire) != "1" {
		t.Skipf("%v (run `make kube-bins`, or set %s)", err, EnvBinDir)
	}
	t.Fatalf("starting kube-apiserver: %v", err)
}

var shared struct {
	once sync.Once
	env  *Env
	err  error
}

// Shared returns the test binary's environment, starting it on first use.
// The package's TestMain must call Main so it is stopped at the end.
func Shared(t testing.TB) *Env {
	t.Helper()
	shared.once.Do(func() {
		shared.env, shared.err = start()
		if shared.err == nil {
			t.Logf("kube-apiserver ready in %s, CRDs served %s later", shared.env.Started.Round(time.Millisecond), shared.env.Applied.Round(time.Millisecond))
		}
	})
	if shared.err != nil {
		skipOrFail(t, shared.err)
	}
	return shared.env
}

// Main runs the package's tests and then stops the shared environment:
//
//	func TestMain(m *testing.M) { os.Exit(kubetest.Main(m)) }
func Main(m *testing.M) int {
	code := m.Run()
	if shared.env != nil {
		shared.env.Stop()
	}
	return code
}

func start() (*Env, error) {
	bins, err := binDir()
	if err != nil {
		return nil, err
	}
	// Ports are chosen free but bound only later by etcd and kube-apiserver,
	// so another process can take one in between: try again then.
	for attempt := 1; ; attempt++ {
		env, err := startIn(bins)
		if err == nil || attempt == 3 || !strings.Contains(err.Error(), "address already in use") {
			return env, err
		}
	}
}

func startIn(bins string) (*Env, error) {
	dir, err := os.MkdirTemp("", "kubetest-")
	if err != nil {
		return nil, err
	}
	env := &Env{Dir: dir, Bins: bins}
	ok := false
	defer func() {
		if !ok {
			env.Stop()
		}
	}()
	begin := time.Now()
	if err := env.startEtcd(bins); err != nil {
		return nil, err
	}
	if err := env.startAPIServer(bins); err != nil {
		return nil, err
	}
	env.Started = time.Since(begin)
	begin = time.Now()
	ctx, cancel := context.WithTimeout(context.Background(), startTimeout)
	defer cancel()
	if err := env.ApplySchemas(ctx); err != nil {
		return nil, fmt.Errorf("applying schemas/: %w", err)
	}
	env.Applied = time.Since(begin)
	ok = true
	return env, nil
}

// Stop stops kube-apiserver and etcd and removes Dir. It is safe to call
// more than once.
func (e *Env) Stop() {
	e.stopOnce.Do(func() {
		e.apiserver.stop()
		e.etcd.stop()
		if e.Dir != "" {
			_ = os.RemoveAll(e.Dir)
		}
	})
}

// repoRoot finds the repository from the test's working directory (go test
// runs in the package directory).
func repoRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "hack", "build-kube.sh")); err == nil {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", errors.New("hack/build-kube.sh not found above the working directory")
		}
		dir = parent
	}
}

// binDir returns a directory with the three binaries: KUBE_BIN_DIR when it holds
// them, else what hack/build-kube.sh prints (it builds them when missing).
func binDir() (string, error) {
	has := func(dir string) bool {
		for _, b := range []string{"kube-apiserver", "etcd", "kubectl"} {
			if fi, err := os.Stat(filepath.Join(dir, b)); err != nil || fi.Mode()&0o111 == 0 {
				return false
			}
		}
		return true
	}
	if d := os.Getenv(EnvBinDir); d != "" && has(d) {
		return d, nil
	}
	root, err := repoRoot()
	if err != nil {
		return "", fmt.Errorf("%w: %v", ErrAbsent, err)
	}
	cmd := exec.Command("bash", filepath.Join(root, "hack", "build-kube.sh"))
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		return "", fmt.Errorf("%w and hack/build-kube.sh could not build it (%v): %s", ErrAbsent, err, lastLines(stderr.String(), 5))
	}
	lines := strings.Split(strings.TrimSpace(stdout.String()), "\n")
	d := strings.TrimSpace(lines[len(lines)-1])
	if !has(d) {
		return "", fmt.Errorf("%w: hack/build-kube.sh printed %q, which lacks kube-apiserver, etcd or kubectl: %s", ErrAbsent, d, lastLines(stderr.String(), 5))
	}
	return d, nil
}

func lastLines(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}

// freePort asks the kernel for an unused loopback port.
func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

func (e *Env) startEtcd(bins string) error {
	client, err := freePort()
	if err != nil {
		return err
	}
	peer, err := freePort()
	if err != nil {
		return err
	}
	clientURL := "http://127.0.0.1:" + strconv.Itoa(client)
	peerURL := "http://127.0.0.1:" + strconv.Itoa(peer)
	e.etcd, err = startProcess(filepath.Join(bins, "etcd"), filepath.Join(e.Dir, "etcd.log"),
		"--name=kubetest",
		"--data-dir="+filepath.Join(e.Dir, "etcd"),
		"--listen-client-urls="+clientURL,
		"--advertise-client-urls="+clientURL,
		"--listen-peer-urls="+peerURL,
		"--initial-advertise-peer-urls="+peerURL,
		"--initial-cluster=kubetest="+peerURL,
		"--unsafe-no-fsync=true",
		"--log-level=warn",
	)
	if err != nil {
		return err
	}
	httpc := &http.Client{Timeout: 2 * time.Second}
	return e.etcd.waitFor(startTimeout, func() error {
		resp, err := httpc.Get(clientURL + "/health")
		if err != nil {
			return err
		}
		defer resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			return fmt.Errorf("etcd /health: %s", resp.Status)
		}
		return nil
	}, "etcd")
}

func (e *Env) startAPIServer(bins string) error {
	port, err := freePort()
	if err != nil {
		return err
	}
	pki, err := e.writePKI()
	if err != nil {
		return err
	}
	e.URL = "https://127.0.0.1:" + strconv.Itoa(port)
	e.apiserver, err = startProcess(filepath.Join(bins, "kube-apiserver"), filepath.Join(e.Dir, "kube-apiserver.log"),
		"--etcd-servers="+e.etcd.url(),
		"--bind-address=127.0.0.1",
		"--advertise-address=127.0.0.1",
		"--secure-port="+strconv.Itoa(port),
		"--tls-cert-file="+pki.serving.CertFile,
		"--tls-private-key-file="+pki.serving.KeyFile,
		"--cert-dir="+filepath.Join(e.Dir, "apiserver-certs"),
		"--token-auth-file="+pki.tokenFile,
		"--authorization-mode=RBAC",
		"--service-account-key-file="+pki.saPub,
		"--service-account-signing-key-file="+pki.saKey,
		"--service-account-issuer=https://kubernetes.default.svc.cluster.local",
		"--service-cluster-ip-range=10.0.0.0/24",
		"--endpoint-reconciler-type=none",
		"--profiling=false",
	)
	if err != nil {
		return err
	}
	if err := e.writeKubeconfig(); err != nil {
		return err
	}
	if err := e.waitReady(pki.serving.CertPool()); err != nil {
		return err
	}
	return e.connect()
}

// apiserverPKI are the files kube-apiserver is started with: its serving
// certificate, the service-account key pair and the token file.
type apiserverPKI struct {
	serving      *ServingCert
	saPub, saKey string
	tokenFile    string
}

// writePKI writes the API server's certificates and keys, and a token file
// with one admin token (system:masters); e.CAPEM and e.Token are set.
func (e *Env) writePKI() (apiserverPKI, error) {
	var p apiserverPKI
	dir := filepath.Join(e.Dir, "pki")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return p, err
	}
	var err error
	if p.serving, err = NewServingCert(dir, "127.0.0.1", "localhost"); err != nil {
		return p, err
	}
	e.CAPEM = p.serving.CAPEM
	if p.saPub, p.saKey, err = writeServiceAccountKeys(dir); err != nil {
		return p, err
	}
	tok := make([]byte, 24)
	if _, err := rand.Read(tok); err != nil {
		return p, err
	}
	e.Token = hex.EncodeToString(tok)
	p.tokenFile = filepath.Join(dir, "tokens.csv")
	return p, os.WriteFile(p.tokenFile, []byte(e.Token+",admin,admin,system:masters\n"), 0o600)
}

// waitReady waits until the API server answers /readyz with 200.
func (e *Env) waitReady(roots *x509.CertPool) error {
	tr := &http.Transport{TLSClientConfig: &tls.Config{RootCAs: roots, MinVersion: tls.VersionTLS12}}
	defer tr.CloseIdleConnections()
	httpc := &http.Client{Timeout: 5 * time.Second, Transport: tr}
	return e.apiserver.waitFor(startTimeout, func() error {
		req, _ := http.NewRequest(http.MethodGet, e.URL+"/readyz", nil)
		req.Header.Set("Authorization", "Bearer "+e.Token)
		resp, err := httpc.Do(req)
		if err != nil {
			return err
		}
		defer resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			return fmt.Errorf("/readyz: %s", resp.Status)
		}
		return nil
	}, "kube-apiserver")
}

// connect makes the admin's clients.
func (e *Env) connect() error {
	e.Config = &rest.Config{
		Host:            e.URL,
		BearerToken:     e.Token,
		TLSClientConfig: rest.TLSClientConfig{CAData: e.CAPEM},
		QPS:             200,
		Burst:           400,
	}
	var err error
	if e.Kube, err = kubernetes.NewForConfig(e.Config); err != nil {
		return err
	}
	if e.Dynamic, err = dynamic.NewForConfig(e.Config); err != nil {
		return err
	}
	return nil
}

// Discovery is a fresh (uncached) discovery client.
func (e *Env) Discovery() discovery.DiscoveryInterface { return e.Kube.Discovery() }

func writeServiceAccountKeys(dir string) (pub, key string, err error) {
	k, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return "", "", err
	}
	keyDER, err := x509.MarshalECPrivateKey(k)
	if err != nil {
		return "", "", err
	}
	pubDER, err := x509.MarshalPKIXPublicKey(&k.PublicKey)
	if err != nil {
		return "", "", err
	}
	key = filepath.Join(dir, "sa.key")
	pub = filepath.Join(dir, "sa.pub")
	if err := os.WriteFile(key, pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: keyDER}), 0o600); err != nil {
		return "", "", err
	}
	if err := os.WriteFile(pub, pem.EncodeToMemory(&pem.Block{Type: "PUBLIC KEY", Bytes: pubDER}), 0o644); err != nil {
		return "", "", err
	}
	return pub, key, nil
}

func (e *Env) writeKubeconfig() error {
	e.Kubeconfig = filepath.Join(e.Dir, "kubeconfig")
	cfg := fmt.Sprintf(`apiVersion: v1
kind: Config
clusters:
- name: kubetest
  cluster:
    server: %s
    certificate-authority-data: %s
users:
- name: admin
  user:
    token: %s
contexts:
- name: kubetest
  context:
    cluster: kubetest
    user: admin
current-context: kubetest
`, e.URL, base64.StdEncoding.EncodeToString(e.CAPEM), e.Token)
	return os.WriteFile(e.Kubeconfig, []byte(cfg), 0o600)
}

// process is one started binary with its log file.
type process struct {
	name    string
	cmd     *exec.Cmd
	log     string
	exited  chan struct{}
	waitErr error
	args    []string
}

func startProcess(bin, logFile string, args ...string) (*process, error) {
	f, err := os.Create(logFile)
	if err != nil {
		return nil, err
	}
	cmd := exec.Command(bin, args...)
	cmd.Stdout, cmd.Stderr = f, f
	cmd.SysProcAttr = sysProcAttr()
	if err := cmd.Start(); err != nil {
		f.Close()
		return nil, fmt.Errorf("starting %s: %w", filepath.Base(bin), err)
	}
	p := &process{name: filepath.Base(bin), cmd: cmd, log: logFile, exited: make(chan struct{}), args: args}
	go func() {
		p.waitErr = cmd.Wait()
		f.Close()
		close(p.exited)
	}()
	return p, nil
}

// url is etcd's client URL, from its flags.
func (p *process) url() string {
	for _, a := range p.args {
		if v, ok := strings.CutPrefix(a, "--advertise-client-urls="); ok {
			return v
		}
	}
	return ""
}

// waitFor polls ready until it succeeds, the process exits or the timeout
// passes; errors carry the end of the process's log.
func (p *process) waitFor(timeout time.Duration, ready func() error, what string) error {
	deadline := time.Now().Add(timeout)
	var last error
	for {
		select {
		case <-p.exited:
			return fmt.Errorf("%s exited before it was ready (%v); its log ends:\n%s", what, p.waitErr, p.tail())
		default:
		}
		if last = ready(); last == nil {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("%s not ready after %s (%v); its log ends:\n%s", what, timeout, last, p.tail())
		}
		time.Sleep(100 * time.Millisecond)
	}
}

func (p *process) tail() string {
	b, err := os.ReadFile(p.log)
	if err != nil {
		return err.Error()
	}
	return lastLines(string(b), 20)
}

// stop sends SIGTERM, then SIGKILL after ten seconds.
func (p *process) stop() {
	if p == nil {
		return
	}
	select {
	case <-p.exited:
		return
	default:
	}
	_ = p.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-p.exited:
	case <-time.After(10 * time.Second):
		_ = p.cmd.Process.Kill()
		<-p.exited
	}
}
