//go:build integration

package chart

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/discovery/cached/memory"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/restmapper"

	"github.com/c5c3/glance-hooks/test/kubetest"
)

func init() { runTests = kubetest.Main }

// cluster is the shared kube-apiserver with what the install tests need
// besides the CRDs of schemas/ (which the harness applies): the stand-ins for
// Metacontroller's and cert-manager's CRDs in testdata/, and the chart's own
// CRDs applied as the chart ships them.
type cluster struct {
	env    *kubetest.Env
	mapper *restmapper.DeferredDiscoveryRESTMapper
}

var (
	clusterOnce sync.Once
	theCluster  *cluster
	clusterErr  error
)

func apiServerForTest(t *testing.T) *cluster {
	t.Helper()
	env := kubetest.Shared(t)
	clusterOnce.Do(func() {
		c := &cluster{env: env, mapper: restmapper.NewDeferredDiscoveryRESTMapper(memory.NewMemCacheClient(env.Discovery()))}
		var crds []obj
		for _, f := range []string{"compositecontrollers.metacontroller.k8s.io.yaml", "cert-manager.io.yaml"} {
			objs, err := decodeObjects(mustRead(t, "test/chart/testdata/"+f))
			if err != nil {
				clusterErr = err
				return
			}
			crds = append(crds, objs...)
		}
		crds = append(crds, render(t, "glance-hooks", "glance-hooks").find("CustomResourceDefinition")...)
		clusterErr = c.installCRDs(crds)
		theCluster = c
	})
	require.NoError(t, clusterErr)
	return theCluster
}

var crdGVR = schema.GroupVersionResource{Group: "apiextensions.k8s.io", Version: "v1", Resource: "customresourcedefinitions"}

// installCRDs applies CRDs for real and waits until each is established
// and served.
func (c *cluster) installCRDs(crds []obj) error {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	for _, crd := range crds {
		if _, err := c.apply(ctx, crd, false); err != nil {
			return err
		}
	}
	for _, crd := range crds {
		for {
			cur, err := c.env.Dynamic.Resource(crdGVR).Get(ctx, crd.name(), metav1.GetOptions{})
			if err == nil && established(cur) {
				break
			}
			select {
			case <-ctx.Done():
				return fmt.Errorf("CRD %s is not established: %v", crd.name(), err)
			case <-time.After(50 * time.Millisecond):
			}
		}
	}
	c.mapper.Reset()
	return nil
}

func established(crd *unstructured.Unstructured) bool {
	conds, _, _ := unstructured.NestedSlice(crd.Object, "status", "conditions")
	for _, cond := range conds {
		m, _ := cond.(map[string]any)
		if m["type"] == "Established" && m["status"] == "True" {
			return true
		}
	}
	return false
}

// resource is the dynamic client for an object's kind (and namespace).
func (c *cluster) resource(apiVersion, kind, namespace string) (dynamic.ResourceInterface, error) {
	gv, err := schema.ParseGroupVersion(apiVersion)
	if err != nil {
		return nil, err
	}
	mapping, err := c.mapper.RESTMapping(gv.WithKind(kind).GroupKind(), gv.Version)
	if meta.IsNoMatchError(err) {
		c.mapper.Reset()
		mapping, err = c.mapper.RESTMapping(gv.WithKind(kind).GroupKind(), gv.Version)
	}
	if err != nil {
		return nil, err
	}
	if mapping.Scope.Name() == meta.RESTScopeNameNamespace {
		if namespace == "" {
			return nil, fmt.Errorf("%s is namespaced but has no namespace", kind)
		}
		return c.env.Dynamic.Resource(mapping.Resource).Namespace(namespace), nil
	}
	return c.env.Dynamic.Resource(mapping.Resource), nil
}

// apply server-side-applies an object with strict field validation: a field
// the schema does not know is an error, not silently dropped. dryRun has the
// API server run every validation and admission step without storing.
func (c *cluster) apply(ctx context.Context, o obj, dryRun bool) (*unstructured.Unstructured, error) {
	ri, err := c.resource(o.apiVersion(), o.kind(), o.namespace())
	if err != nil {
		return nil, fmt.Errorf("%s: %w", o.id(), err)
	}
	force := true
	opts := metav1.PatchOptions{FieldManager: "glance-hooks-chart-test", Force: &force, FieldValidation: "Strict"}
	if dryRun {
		opts.DryRun = []string{metav1.DryRunAll}
	}
	body, err := json.Marshal(o)
	if err != nil {
		return nil, err
	}
	out, err := ri.Patch(ctx, o.name(), types.ApplyPatchType, body, opts)
	if err != nil {
		return nil, fmt.Errorf("apply %s: %w", o.id(), err)
	}
	return out, nil
}

func (c *cluster) get(t *testing.T, apiVersion, kind, namespace, name string) (obj, error) {
	t.Helper()
	ri, err := c.resource(apiVersion, kind, namespace)
	require.NoError(t, err)
	u, err := ri.Get(context.Background(), name, metav1.GetOptions{})
	if err != nil {
		return nil, err
	}
	return obj(u.Object), nil
}

// Every values combination that matters renders objects the API server
// accepts: each object is server-side applied with dryRun=All and strict field
// validation, so schema errors, unknown fields, bad enums (updateStrategy
// method, webhook fields, ...), invalid webhooks and RBAC all fail here.
func TestChartAcceptedByAPIServer(t *testing.T) {
	c := apiServerForTest(t)
	for _, cb := range combos() {
		t.Run(cb.name, func(t *testing.T) {
			r := render(t, cb.release, cb.namespace, cb.set...)
			c.env.Namespace(t, cb.namespace)
			n := 0
			// Stored for real: a pod (the helm test pod) is only admitted
			// with its ServiceAccount in place.
			for _, o := range r.find("ServiceAccount") {
				_, err := c.apply(context.Background(), o, false)
				require.NoError(t, err, "%s", o.id())
			}
			for _, o := range r.Objects {
				if o.kind() == "CustomResourceDefinition" {
					continue // applied for real in apiServerForTest
				}
				_, err := c.apply(context.Background(), o, true)
				assert.NoError(t, err, "%s", o.id())
				n++
			}
			assert.Greater(t, n, 5)
		})
	}
}

// The stand-in CRD really constrains what it models: a CompositeController
// the chart could plausibly get wrong is refused.
func TestMetacontrollerSchemaRefusesMistakes(t *testing.T) {
	c := apiServerForTest(t)
	base := render(t, "glance-hooks", "glance-hooks").named(t, "CompositeController", "glance")
	_, err := c.apply(context.Background(), base, true)
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
			get(o, "spec", "hooks", "sync", "webhook").(map[string]any)["endpoint"] = "http://x"
		}, "field not declared in schema"},
		"webhook without target": {func(o obj) {
			delete(get(o, "spec", "hooks", "sync", "webhook").(map[string]any), "service")
		}, "a webhook needs url, or service and path"},
		"service without namespace": {func(o obj) {
			delete(get(o, "spec", "hooks", "sync", "webhook", "service").(map[string]any), "namespace")
		}, "namespace: Required value"},
		"no parent": {func(o obj) {
			delete(o["spec"].(map[string]any), "parentResource")
		}, "parentResource: Required value"},
		"timeout not a duration": {func(o obj) {
			get(o, "spec", "hooks", "sync", "webhook").(map[string]any)["timeout"] = "ten seconds"
		}, "timeout"},
		"hook version": {func(o obj) {
			get(o, "spec", "hooks", "sync").(map[string]any)["version"] = "v3"
		}, "Unsupported value"},
		"two CA sources": {func(o obj) {
			get(o, "spec", "hooks", "sync", "webhook", "caBundle").(map[string]any)["inline"] = "PEM"
		}, "exactly one of inline, secretRef, or configMapRef"},
		"token without key": {func(o obj) {
			delete(get(o, "spec", "hooks", "sync", "webhook", "authorization", "secretRef").(map[string]any), "key")
		}, "key: Required value"},
		"basic as authorization": {func(o obj) {
			get(o, "spec", "hooks", "sync", "webhook", "authorization").(map[string]any)["type"] = "Basic"
		}, "use the basicAuth field instead"},
		"token and basic auth": {func(o obj) {
			get(o, "spec", "hooks", "sync", "webhook").(map[string]any)["basicAuth"] = map[string]any{
				"secretRef": map[string]any{"name": "x", "namespace": "y"}}
		}, "authorization and basicAuth are mutually exclusive"},
		"misspelt caBundle field": {func(o obj) {
			get(o, "spec", "hooks", "sync", "webhook", "caBundle").(map[string]any)["secret"] = map[string]any{"name": "x"}
		}, "field not declared in schema"},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			o := deepCopy(t, base)
			tc.mutate(o)
			_, err := c.apply(context.Background(), o, true)
			require.Error(t, err)
			assert.Contains(t, err.Error(), tc.want)
		})
	}
}

// The CRDs as chart templates, on a real API server with helm: CRDs that
// exist but Helm does not own are handed over with the chart README's
// recipe; then `helm upgrade` puts back a CRD that drifted (what crds/ would
// never do), and `helm uninstall` keeps the CRDs and the objects of their
// kinds (helm.sh/resource-policy: keep).
func TestHelmOwnsUpgradesAndKeepsCRDs(t *testing.T) {
	c := apiServerForTest(t)
	const rel, ns = "crd-owner", "glance-hooks-crds"
	helmArgs := func(verb string, extra ...string) []string {
		return append([]string{verb, rel, chartDir(t), "--namespace", ns, "--kubeconfig", c.env.Kubeconfig,
			// Nothing here would answer the fail-closed webhook.
			"--set", "webhook.enabled=false"}, extra...)
	}
	crds := map[string]bool{}
	for _, o := range render(t, rel, ns).find("CustomResourceDefinition") {
		crds[o.name()] = true
	}
	require.Len(t, crds, 3)

	// The harness applied schemas/ as plain objects: Helm refuses to take
	// them over until they are labelled and annotated for the release.
	out, err := runHelm(t, helmArgs("install", "--create-namespace")...)
	require.Error(t, err, "helm must not silently adopt CRDs it does not own")
	assert.Contains(t, out+err.Error(), "invalid ownership metadata")
	for name := range crds {
		patch := fmt.Sprintf(`{"metadata":{"labels":{"app.kubernetes.io/managed-by":"Helm"},`+
			`"annotations":{"meta.helm.sh/release-name":%q,"meta.helm.sh/release-namespace":%q}}}`, rel, ns)
		_, err := c.env.Dynamic.Resource(crdGVR).Patch(context.Background(), name, types.MergePatchType, []byte(patch), metav1.PatchOptions{})
		require.NoError(t, err)
	}
	out, err = runHelm(t, helmArgs("install", "--create-namespace")...)
	require.NoError(t, err, out)
	uninstalled := false
	t.Cleanup(func() {
		if !uninstalled {
			_, _ = runHelm(t, "uninstall", rel, "--namespace", ns, "--kubeconfig", c.env.Kubeconfig)
		}
	})
	crd := func(name string) obj {
		o, err := c.get(t, "apiextensions.k8s.io/v1", "CustomResourceDefinition", "", name)
		require.NoError(t, err)
		return o
	}
	const glances = "glances.glance.openstack.c5c3.io"
	assert.Equal(t, "keep", str(crd(glances), "metadata", "annotations", "helm.sh/resource-policy"))
	assert.Equal(t, rel, str(crd(glances), "metadata", "labels", "app.kubernetes.io/instance"))

	// A CRD that drifted (here: its short name removed) is put back by an
	// upgrade.
	_, err = c.env.Dynamic.Resource(crdGVR).Patch(context.Background(), glances, types.JSONPatchType,
		[]byte(`[{"op":"remove","path":"/spec/names/shortNames"}]`), metav1.PatchOptions{})
	require.NoError(t, err)
	require.Nil(t, get(crd(glances), "spec", "names", "shortNames"))
	out, err = runHelm(t, helmArgs("upgrade")...)
	require.NoError(t, err, out)
	assert.Equal(t, []any{"gl"}, get(crd(glances), "spec", "names", "shortNames"), "helm upgrade updates the CRDs")

	// Uninstall keeps the CRDs and what lives in them.
	c.env.Namespace(t, "kept")
	g := deepCopy(t, obj{"apiVersion": "glance.openstack.c5c3.io/v1alpha1", "kind": "Glance",
		"metadata": map[string]any{"name": "kept", "namespace": "kept"},
		"spec":     map[string]any{"openStackRelease": "2025.2"}})
	_, err = c.apply(context.Background(), g, false)
	require.NoError(t, err)
	out, err = runHelm(t, "uninstall", rel, "--namespace", ns, "--kubeconfig", c.env.Kubeconfig)
	require.NoError(t, err, out)
	uninstalled = true
	for name := range crds {
		assert.NotNil(t, crd(name), "%s is kept", name)
	}
	_, err = c.get(t, "glance.openstack.c5c3.io/v1alpha1", "Glance", "kept", "kept")
	assert.NoError(t, err, "and so is every object of the kept kinds")
}

func deepCopy(t *testing.T, o obj) obj {
	t.Helper()
	objs, err := decodeObjects(mustJSON(t, o))
	require.NoError(t, err)
	require.Len(t, objs, 1)
	return objs[0]
}

// The ControlPlane the README's install section applies is one the API
// server accepts (schemas/ with their CEL rules).
func TestReadmeControlPlaneIsValid(t *testing.T) {
	c := apiServerForTest(t)
	readme := string(mustRead(t, "README.md"))
	_, rest, ok := strings.Cut(readme, "kubectl apply -f - <<'YAML'\n")
	require.True(t, ok, "README's install section applies a ControlPlane from a heredoc")
	block, _, ok := strings.Cut(rest, "\n   YAML\n")
	require.True(t, ok)
	var lines []string
	for _, line := range strings.Split(block, "\n") {
		lines = append(lines, strings.TrimPrefix(line, "   "))
	}
	objs, err := decodeObjects([]byte(strings.Join(lines, "\n")))
	require.NoError(t, err)
	require.Len(t, objs, 1)
	cp := objs[0]
	require.Equal(t, "ControlPlane", cp.kind())
	c.env.Namespace(t, cp.namespace())
	_, err = c.apply(context.Background(), cp, true)
	assert.NoError(t, err)

	// And a broken copy is refused, so the check means something.
	bad := deepCopy(t, cp)
	for _, b := range get(bad, "spec", "services", "glance", "backends").([]any) {
		b.(map[string]any)["isDefault"] = true
	}
	_, err = c.apply(context.Background(), bad, true)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "exactly one backends entry must set isDefault")
}

func (o obj) apiVersion() string { s, _ := o["apiVersion"].(string); return s }

func mustJSON(t testing.TB, v any) []byte {
	t.Helper()
	raw, err := json.Marshal(v)
	require.NoError(t, err)
	return raw
}
