package chart

import (
	"encoding/base64"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// startAPIServer starts a real kube-apiserver (with etcd) on loopback for
// this test and returns the path of a cluster-admin kubeconfig; the server is
// stopped when the test ends. It is set from the shared harness (package
// test/kubetest) in harness_test.go; while that is nil the install tests skip.
var startAPIServer func(t *testing.T) (kubeconfig string)

// apiServerForTest starts the API server and installs what every install test
// needs before the chart: the stand-ins for Metacontroller's and
// cert-manager's CRDs (see testdata/) and the chart's own CRDs.
func apiServerForTest(t *testing.T) (kubeconfig string, kube *kubeClient) {
	t.Helper()
	if startAPIServer == nil {
		t.Skip("no kube-apiserver harness on this branch yet (package test/kubetest)")
	}
	kubeconfig = startAPIServer(t)
	kube = newKubeClient(t, kubeconfig)
	var crds []obj
	for _, f := range []string{"compositecontrollers.metacontroller.k8s.io.yaml", "cert-manager.io.yaml"} {
		objs, err := decodeObjects(mustRead(t, "test/chart/testdata/"+f))
		require.NoError(t, err)
		crds = append(crds, objs...)
	}
	crds = append(crds, render(t, "glance-hooks", "glance-hooks").find("CustomResourceDefinition")...)
	kube.installCRDs(t, crds)
	return kubeconfig, kube
}

// Every values combination that matters renders objects the API server
// accepts: each object is server-side applied with dryRun=All and strict field
// validation, so schema errors, unknown fields, bad enums (updateStrategy
// method, webhook fields, ...), invalid webhooks and RBAC all fail here.
func TestChartAcceptedByAPIServer(t *testing.T) {
	_, kube := apiServerForTest(t)
	for _, c := range combos() {
		t.Run(c.name, func(t *testing.T) {
			r := render(t, c.release, c.namespace, c.set...)
			kube.ensureNamespace(t, c.namespace)
			n := 0
			for _, o := range r.Objects {
				if o.kind() == "CustomResourceDefinition" {
					continue // installed for real above
				}
				_, err := kube.apply(o, true)
				assert.NoError(t, err, "%s", o.id())
				n++
			}
			assert.Greater(t, n, 5)
		})
	}
}

// The stand-in CRDs really constrain what they model: a CompositeController
// the chart could plausibly get wrong is refused.
func TestMetacontrollerSchemaRefusesMistakes(t *testing.T) {
	_, kube := apiServerForTest(t)
	r := render(t, "glance-hooks", "glance-hooks")
	base := r.named(t, "CompositeController", "glance")
	_, err := kube.apply(base, true)
	require.NoError(t, err, "the rendered controller is accepted")

	cases := map[string]struct {
		mutate func(o obj)
		want   string
	}{
		"misspelt update method": {func(o obj) {
			child := get(o, "spec", "childResources").([]any)[0].(map[string]any)
			child["updateStrategy"] = map[string]any{"method": "Inplace"}
		}, "Unsupported value"},
		"unknown hook field": {func(o obj) {
			hook := get(o, "spec", "hooks", "sync", "webhook").(map[string]any)
			hook["endpoint"] = "http://x"
		}, "field not declared in schema"},
		"webhook without target": {func(o obj) {
			hook := get(o, "spec", "hooks", "sync", "webhook").(map[string]any)
			delete(hook, "service")
		}, "a webhook needs url, or service and path"},
		"service without namespace": {func(o obj) {
			svc := get(o, "spec", "hooks", "sync", "webhook", "service").(map[string]any)
			delete(svc, "namespace")
		}, "namespace: Required value"},
		"no parent": {func(o obj) {
			delete(o["spec"].(map[string]any), "parentResource")
		}, "parentResource: Required value"},
		"timeout not a duration": {func(o obj) {
			hook := get(o, "spec", "hooks", "sync", "webhook").(map[string]any)
			hook["timeout"] = "ten seconds"
		}, "timeout"},
		"hook version": {func(o obj) {
			get(o, "spec", "hooks").(map[string]any)["sync"].(map[string]any)["version"] = "v3"
		}, "Unsupported value"},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			o := deepCopy(t, base)
			tc.mutate(o)
			_, err := kube.apply(o, true)
			require.Error(t, err)
			assert.Contains(t, err.Error(), tc.want)
		})
	}
}

// A real install and upgrade with helm: the chart-made webhook CA survives
// the upgrade (lookup), so the API server keeps trusting the running pods.
func TestHelmInstallAndUpgradeKeepCA(t *testing.T) {
	kubeconfig, kube := apiServerForTest(t)
	const rel, ns = "glance-hooks", "glance-hooks"
	helmArgs := func(verb string) []string {
		return []string{verb, rel, chartDir(t), "--namespace", ns, "--kubeconfig", kubeconfig}
	}
	out, err := runHelm(t, append(helmArgs("install"), "--create-namespace")...)
	require.NoError(t, err, out)
	t.Cleanup(func() {
		// The webhook fails closed and no hook pod runs here: remove it so
		// nothing else on this API server is refused.
		_, _ = runHelm(t, "uninstall", rel, "--namespace", ns, "--kubeconfig", kubeconfig)
	})

	caOf := func() (secretCA, bundle string) {
		secret, err := kube.get("v1", "Secret", ns, "glance-hooks-tls")
		require.NoError(t, err)
		vwc, err := kube.get("admissionregistration.k8s.io/v1", "ValidatingWebhookConfiguration", "", "glance-hooks")
		require.NoError(t, err)
		hooks := vwc["webhooks"].([]any)
		require.Len(t, hooks, 1)
		return str(secret, "data", "ca.crt"), str(hooks[0].(map[string]any), "clientConfig", "caBundle")
	}
	ca1, bundle1 := caOf()
	require.NotEmpty(t, ca1)
	assert.Equal(t, ca1, bundle1, "the webhook trusts the CA in the Secret")
	secret1, err := kube.get("v1", "Secret", ns, "glance-hooks-tls")
	require.NoError(t, err)

	// Every object the chart renders exists now.
	for _, o := range render(t, rel, ns).Objects {
		if o.kind() == "CustomResourceDefinition" {
			continue
		}
		_, err := kube.get(o.apiVersion(), o.kind(), o.namespace(), o.name())
		assert.NoError(t, err, "%s after helm install", o.id())
	}

	out, err = runHelm(t, append(helmArgs("upgrade"), "--set", "replicaCount=3")...)
	require.NoError(t, err, out)
	ca2, bundle2 := caOf()
	assert.Equal(t, ca1, ca2, "helm upgrade keeps the CA")
	assert.Equal(t, bundle1, bundle2, "helm upgrade keeps the caBundle")
	secret2, err := kube.get("v1", "Secret", ns, "glance-hooks-tls")
	require.NoError(t, err)
	assert.Equal(t, secret1["data"], secret2["data"], "and the serving certificate and key")
	dep, err := kube.get("apps/v1", "Deployment", ns, "glance-hooks")
	require.NoError(t, err)
	assert.EqualValues(t, 3, get(dep, "spec", "replicas"), "the upgrade did apply")

	// Deleting the Secret and upgrading rotates the pair (the README's recipe).
	require.NoError(t, kube.delete("v1", "Secret", ns, "glance-hooks-tls"))
	out, err = runHelm(t, helmArgs("upgrade")...)
	require.NoError(t, err, out)
	ca3, bundle3 := caOf()
	assert.NotEqual(t, ca1, ca3, "a deleted Secret is made anew")
	assert.Equal(t, ca3, bundle3)
	raw, err := base64.StdEncoding.DecodeString(ca3)
	require.NoError(t, err)
	assert.True(t, strings.HasPrefix(string(raw), "-----BEGIN CERTIFICATE-----"))
}

func deepCopy(t *testing.T, o obj) obj {
	t.Helper()
	objs, err := decodeObjects(mustJSON(t, o))
	require.NoError(t, err)
	require.Len(t, objs, 1)
	return objs[0]
}
