//go:build integration

package chart

import (
	"bytes"
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/base64"
	"encoding/json"
	"encoding/pem"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	authenticationv1 "k8s.io/api/authentication/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/c5c3/glance-hooks/internal/credentials"
	"github.com/c5c3/glance-hooks/test/kubetest"
)

// installed is a default install of the chart on the shared API server,
// seen from its hook pod: the pod's ServiceAccount (a kubeconfig with its
// token, so the chart's RBAC is what is tested), the rendered Deployment,
// and a directory standing for the pod's volumes.
type installed struct {
	c          *cluster
	ns, sa     string
	kubeconfig string
	dir        string
	validate   string // address the validate container listens on
}

// A default install, with nothing of yours: the hooks and /validate are
// reachable once the pod's credentials-init container has run with exactly
// the chart's args under the chart's RBAC. It fills the Secrets the chart
// rendered empty, the webhook's caBundle becomes the CA that signed the
// serving certificate, and the API server's admission calls /validate (the
// webhook pointed at the validate container on loopback, since no Service
// network runs here) and gets its answer for a Glance created with kubectl.
// A second start changes nothing; a certificate near its end is renewed with
// the same CA, a CA near its end is replaced and caBundle follows, and in
// both cases the running containers serve the new certificate. helm upgrade
// keeps all of it.
func TestDefaultInstallReachable(t *testing.T) {
	in := install(t, "glance-hooks", "glance-hooks-install")
	certs, token := in.secret(t, "glance-hooks-certs"), in.secret(t, "glance-hooks-token")
	require.Empty(t, certs.Data, "the chart renders the Secret empty")
	require.Empty(t, token.Data)
	require.Empty(t, in.caBundle(t), "and the webhook without caBundle")

	in.credentials(t)
	certs, token = in.secret(t, "glance-hooks-certs"), in.secret(t, "glance-hooks-token")
	require.True(t, credentials.TokenUsable(token.Data["token"]), "the token is made")
	assert.Equal(t, certs.Data["ca.crt"], in.caBundle(t), "the webhook trusts the CA in the Secret")
	for _, host := range []string{"glance-hooks.glance-hooks-install.svc", "glance-hooks.glance-hooks-install", "127.0.0.1"} {
		verifyServingCert(t, in.caBundle(t), certs.Data["tls.crt"], host)
	}
	for _, f := range []string{"tls/tls.crt", "tls/tls.key", "tls/ca.crt", "hook-token/token"} {
		_, err := os.Stat(filepath.Join(in.dir, f))
		require.NoError(t, err, "the pod's volumes get %s", f)
	}

	in.hooksReachable(t, token.Data["token"])
	in.startValidate(t)
	in.admissionAnswers(t, "first")

	// A second start keeps everything: no write at all.
	vwcBefore := in.vwcVersion(t)
	in.credentials(t)
	assert.Equal(t, certs.ResourceVersion, in.secret(t, "glance-hooks-certs").ResourceVersion, "a second start keeps the certificate")
	assert.Equal(t, token.ResourceVersion, in.secret(t, "glance-hooks-token").ResourceVersion, "and the token")
	assert.Equal(t, vwcBefore, in.vwcVersion(t), "and the caBundle")

	replaced := in.rotations(t, certs)

	// helm upgrade keeps what the pods made (three-way merge: the chart
	// never rendered those fields). The webhook goes back to the Service
	// first: the loopback URL is this test's, not the chart's.
	in.pointWebhook(t, `[{"op":"remove","path":"/webhooks/0/clientConfig/url"},`+
		`{"op":"add","path":"/webhooks/0/clientConfig/service","value":{"name":"glance-hooks","namespace":"`+in.ns+`","port":443,"path":"/validate"}}]`)
	out, err := runHelm(t, "upgrade", "glance-hooks", chartDir(t), "--namespace", in.ns, "--kubeconfig", in.c.env.Kubeconfig,
		"--set", "crds.install=false", "--set", "replicaCount=3")
	require.NoError(t, err, out)
	assert.Equal(t, replaced.Data, in.secret(t, "glance-hooks-certs").Data, "helm upgrade keeps the certificate")
	assert.Equal(t, in.secret(t, "glance-hooks-token").Data, token.Data, "and the token")
	assert.Equal(t, replaced.Data["ca.crt"], in.caBundle(t), "and the caBundle")
}

// rotations: a certificate an hour from its end is renewed with the same
// CA; a CA near its end is replaced and caBundle follows; each time the
// running validate container serves the new certificate and admission
// still gets its answers. It returns the Secret as the last step left it.
func (in *installed) rotations(t *testing.T, certs *corev1.Secret) *corev1.Secret {
	// A certificate an hour from its end is renewed with the same CA.
	short := credentials.Policy{Hosts: []string{"127.0.0.1"}, CAValidity: 2 * time.Hour, CertValidity: time.Hour, RenewBefore: time.Minute}
	nearEnd, err := credentials.Apply(credentials.Decision{Action: credentials.RenewCert}, certs.Data, short, time.Now())
	require.NoError(t, err)
	in.store(t, certs, nearEnd)
	in.credentials(t)
	renewed := in.secret(t, "glance-hooks-certs")
	assert.NotEqual(t, nearEnd["tls.crt"], renewed.Data["tls.crt"], "a certificate near its end is renewed")
	assert.Equal(t, certs.Data["ca.crt"], renewed.Data["ca.crt"], "with the same CA")
	assert.Equal(t, renewed.Data["ca.crt"], in.caBundle(t))
	in.servesCert(t, renewed.Data["tls.crt"])
	in.admissionAnswers(t, "renewed")

	// A CA near its end is replaced, and caBundle follows.
	oldCA, err := credentials.Apply(credentials.Decision{Action: credentials.NewCA}, nil, short, time.Now())
	require.NoError(t, err)
	in.store(t, renewed, oldCA)
	in.credentials(t)
	replaced := in.secret(t, "glance-hooks-certs")
	assert.NotEqual(t, oldCA["ca.crt"], replaced.Data["ca.crt"], "a CA near its end is replaced")
	assert.Equal(t, replaced.Data["ca.crt"], in.caBundle(t), "the webhook trusts the new CA")
	in.servesCert(t, replaced.Data["tls.crt"])
	in.admissionAnswers(t, "new-ca")

	return replaced
}

// install runs helm install with default values (the harness owns the
// CRDs) and gives the pod's view of it.
func install(t *testing.T, rel, ns string) *installed {
	c := apiServerForTest(t)
	out, err := runHelm(t, "install", rel, chartDir(t), "--namespace", ns, "--create-namespace", "--kubeconfig", c.env.Kubeconfig,
		"--set", "crds.install=false")
	require.NoError(t, err, out)
	t.Cleanup(func() {
		// The webhook fails closed: remove it so nothing else on this API
		// server is refused.
		if out, err := runHelm(t, "uninstall", rel, "--namespace", ns, "--kubeconfig", c.env.Kubeconfig); err != nil {
			t.Errorf("helm uninstall: %v\n%s", err, out)
		}
	})
	in := &installed{c: c, ns: ns, sa: rel, dir: t.TempDir()}
	for _, o := range render(t, rel, ns, "crds.install=false").Objects {
		if str(o, "metadata", "annotations", "helm.sh/hook") != "" {
			continue // `helm test`'s pod exists only while helm test runs
		}
		_, err := c.get(t, o.apiVersion(), o.kind(), o.namespace(), o.name())
		assert.NoError(t, err, "%s after helm install", o.id())
	}
	in.kubeconfig = in.serviceAccountKubeconfig(t)
	return in
}

// serviceAccountKubeconfig is a kubeconfig with a token of the hook pods'
// ServiceAccount: what the projected kube-api-access volume holds.
func (in *installed) serviceAccountKubeconfig(t *testing.T) string {
	exp := int64(3600)
	tok, err := in.c.env.Kube.CoreV1().ServiceAccounts(in.ns).CreateToken(context.Background(), in.sa,
		&authenticationv1.TokenRequest{Spec: authenticationv1.TokenRequestSpec{ExpirationSeconds: &exp}}, metav1.CreateOptions{})
	require.NoError(t, err)
	path := filepath.Join(t.TempDir(), "kubeconfig")
	cfg := fmt.Sprintf(`apiVersion: v1
kind: Config
clusters: [{name: c, cluster: {server: %q, certificate-authority-data: %q}}]
users: [{name: sa, user: {token: %q}}]
contexts: [{name: c, context: {cluster: c, user: sa}}]
current-context: c
`, in.c.env.URL, base64.StdEncoding.EncodeToString(in.c.env.CAPEM), tok.Status.Token)
	require.NoError(t, os.WriteFile(path, []byte(cfg), 0o600))
	return path
}

// deployment is the Deployment as installed.
func (in *installed) deployment(t *testing.T) corev1.PodSpec {
	dep, err := in.c.env.Kube.AppsV1().Deployments(in.ns).Get(context.Background(), "glance-hooks", metav1.GetOptions{})
	require.NoError(t, err)
	return dep.Spec.Template.Spec
}

// credentials runs the init container's args as the pod's ServiceAccount,
// paths mapped into dir, and 127.0.0.1 added to the certificate's names
// (the API server calls the validate container there).
func (in *installed) credentials(t *testing.T) {
	pod := in.deployment(t)
	require.Len(t, pod.InitContainers, 1)
	var args []string
	for _, a := range pod.InitContainers[0].Args {
		args = append(args, strings.ReplaceAll(a, "/etc/glance-hooks/", in.dir+"/"))
	}
	args = append(args, "--host=127.0.0.1", "--kubeconfig="+in.kubeconfig)
	for _, d := range []string{"tls", "hook-token"} {
		require.NoError(t, os.MkdirAll(filepath.Join(in.dir, d), 0o700))
	}
	out, err := exec.Command(serviceBinary(t), args...).CombinedOutput()
	require.NoError(t, err, "credentials %q:\n%s", args, out)
}

// hooksReachable: the hooks container with the chart's args and the files
// the credentials wrote answers Metacontroller's calls, trusting the
// Secret's CA for the name the CompositeControllers call, with the token.
func (in *installed) hooksReachable(t *testing.T, token []byte) {
	base := "https://" + in.startHooks(t)
	client := chartClient(t, in.secret(t, "glance-hooks-certs").Data["ca.crt"], "glance-hooks."+in.ns)
	assert.Equal(t, http.StatusUnprocessableEntity, postStatus(t, client, base+"/sync/glance", "Bearer "+string(token)), "served, and {} has no parent")
	assert.Equal(t, http.StatusUnauthorized, postStatus(t, client, base+"/sync/glance", ""), "refused without the token")
}

// startHooks runs the hooks container with the chart's args and the files
// the credentials wrote; it returns the address it listens on.
func (in *installed) startHooks(t *testing.T) string {
	return runContainer(t, containerOf(t, in.deployment(t), "hooks"), in.dir)["hooks"]
}

// startValidate runs the validate container with the chart's args (and the
// ServiceAccount's kubeconfig) and points the webhook at it.
func (in *installed) startValidate(t *testing.T) {
	ctr := containerOf(t, in.deployment(t), "validate")
	ctr.Args = append(ctr.Args, "--kubeconfig="+in.kubeconfig)
	in.validate = runContainer(t, ctr, in.dir)["validate"]
	in.pointWebhook(t, fmt.Sprintf(`[{"op":"remove","path":"/webhooks/0/clientConfig/service"},`+
		`{"op":"add","path":"/webhooks/0/clientConfig/url","value":"https://%s/validate"}]`, in.validate))
}

// pointWebhook changes where the API server calls /validate (a JSON patch
// of the clientConfig), leaving its caBundle.
func (in *installed) pointWebhook(t *testing.T, patch string) {
	_, err := in.c.env.Kube.AdmissionregistrationV1().ValidatingWebhookConfigurations().Patch(context.Background(),
		"glance-hooks", types.JSONPatchType, []byte(patch), metav1.PatchOptions{})
	require.NoError(t, err)
}

// admissionAnswers: through the API server's admission, /validate refuses
// a Glance whose database Secret is the one the hooks write (the fixture's
// Glance; no CRD rule can say it, so the answer is the webhook's), and
// admits the same Glance naming its own Secret.
func (in *installed) admissionAnswers(t *testing.T, name string) {
	var review struct {
		Request struct {
			Object map[string]any `json:"object"`
		} `json:"request"`
	}
	fixture := filepath.Join(repoRoot(t), "test", "fixtures", "validate", "glance-hook-owned-secret-denied", "request.json")
	require.NoError(t, json.Unmarshal(mustReadAbs(t, fixture), &review))
	glance := func(secret string) string {
		g := review.Request.Object
		g["metadata"] = map[string]any{"name": name, "namespace": "reach"}
		g["spec"].(map[string]any)["database"].(map[string]any)["secretRef"] = map[string]any{"name": secret}
		return string(mustJSON(t, g))
	}
	in.c.env.Namespace(t, "reach")
	kubetest.Eventually(t, 30*time.Second, func() error {
		_, errOut, err := in.c.env.Kubectl(t, glance(name+"-db-connection"), "create", "-f", "-")
		if err == nil || !strings.Contains(errOut, "the Secret the hooks write the database URL into") {
			return fmt.Errorf("not refused by /validate: %v: %s", err, errOut)
		}
		return nil
	})
	_, errOut, err := in.c.env.Kubectl(t, glance("glance-db"), "create", "-f", "-")
	assert.NoError(t, err, "admitted by /validate: %s", errOut)
}

// servesCert: the validate container now serves cert (it reloads the files
// the credentials rewrote).
func (in *installed) servesCert(t *testing.T, certPEM []byte) {
	block, _ := pem.Decode(certPEM)
	require.NotNil(t, block)
	kubetest.Eventually(t, 10*time.Second, func() error {
		conn, err := tls.Dial("tcp", in.validate, &tls.Config{InsecureSkipVerify: true, MinVersion: tls.VersionTLS12}) //nolint:gosec // compares the certificate itself
		if err != nil {
			return err
		}
		defer conn.Close()
		if got := conn.ConnectionState().PeerCertificates[0].Raw; !bytes.Equal(got, block.Bytes) {
			return fmt.Errorf("still serving the previous certificate")
		}
		return nil
	})
}

func (in *installed) secret(t *testing.T, name string) *corev1.Secret {
	s, err := in.c.env.Kube.CoreV1().Secrets(in.ns).Get(context.Background(), name, metav1.GetOptions{})
	require.NoError(t, err)
	return s
}

// store writes data into the Secret, as an admin (to set up a case).
func (in *installed) store(t *testing.T, s *corev1.Secret, data map[string][]byte) {
	cur := in.secret(t, s.Name)
	cur.Data = data
	_, err := in.c.env.Kube.CoreV1().Secrets(in.ns).Update(context.Background(), cur, metav1.UpdateOptions{})
	require.NoError(t, err)
}

func (in *installed) webhookConfiguration(t *testing.T) *admissionregistrationv1.ValidatingWebhookConfiguration {
	vwc, err := in.c.env.Kube.AdmissionregistrationV1().ValidatingWebhookConfigurations().Get(context.Background(), "glance-hooks", metav1.GetOptions{})
	require.NoError(t, err)
	require.Len(t, vwc.Webhooks, 1)
	return vwc
}

func (in *installed) caBundle(t *testing.T) []byte {
	return in.webhookConfiguration(t).Webhooks[0].ClientConfig.CABundle
}

func (in *installed) vwcVersion(t *testing.T) string {
	return in.webhookConfiguration(t).ResourceVersion
}

func containerOf(t *testing.T, pod corev1.PodSpec, name string) corev1.Container {
	for _, c := range pod.Containers {
		if c.Name == name {
			return c
		}
	}
	require.Failf(t, "no container", "no container %q", name)
	return corev1.Container{}
}

// verifyServingCert checks that certPEM chains to caPEM and is valid for a
// TLS server at dnsName, as the API server checks it.
func verifyServingCert(t *testing.T, caPEM, certPEM []byte, dnsName string) {
	t.Helper()
	pool := x509.NewCertPool()
	require.True(t, pool.AppendCertsFromPEM(caPEM), "caBundle is PEM")
	block, _ := pem.Decode(certPEM)
	require.NotNil(t, block, "tls.crt is PEM")
	cert, err := x509.ParseCertificate(block.Bytes)
	require.NoError(t, err)
	_, err = cert.Verify(x509.VerifyOptions{
		DNSName:   dnsName,
		Roots:     pool,
		KeyUsages: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
	})
	assert.NoError(t, err, "serving certificate for %s", dnsName)
}
