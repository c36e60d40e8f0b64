//go:build integration

package reach_test

import (
	"context"
	"encoding/json"
	"os"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/yaml"

	"github.com/c5c3/glance-hooks/simulate/chain"
	"github.com/c5c3/glance-hooks/test/guide"
	"github.com/c5c3/glance-hooks/test/kubetest"
)

func TestMain(m *testing.M) { os.Exit(kubetest.Main(m)) }

const namespace = "openstack"

var (
	glances    = schema.GroupVersionResource{Group: "glance.openstack.c5c3.io", Version: "v1alpha1", Resource: "glances"}
	httpRoutes = schema.GroupVersionResource{Group: "gateway.networking.k8s.io", Version: "v1", Resource: "httproutes"}
	policies   = schema.GroupVersionResource{Group: "networking.k8s.io", Version: "v1", Resource: "networkpolicies"}
)

// TestRouteAndPoliciesOnARealAPIServer: the guide's standalone Glance with
// spec.gateway and spec.networkPolicy is accepted by its CRD; the chain
// converges it with the guide's two backends and a third on an S3 endpoint
// given by address; the HTTPRoute and both NetworkPolicies, exactly as
// Metacontroller applied them (their last-applied record), are created
// owned by the Glance and read back with nothing pruned: the route's 4h
// timeout is there, as the reference's large-upload guide checks it.
func TestRouteAndPoliciesOnARealAPIServer(t *testing.T) {
	env := kubetest.Shared(t)
	version := env.GatewayAPI(t)
	t.Logf("Gateway API CRDs %s installed", version)
	env.Namespace(t, namespace)
	ctx := context.Background()

	var g map[string]any
	require.NoError(t, yaml.Unmarshal([]byte(guide.Glance), &g))
	spec := g["spec"].(map[string]any)
	spec["gateway"] = map[string]any{"hostname": "images.example.com", "path": "/image",
		"parentRef":   map[string]any{"name": "edge", "namespace": "gateways", "sectionName": "https"},
		"annotations": map[string]any{"example.com/max-body": "64Gi"}}
	spec["networkPolicy"] = map[string]any{
		"ingress": []any{map[string]any{"namespaceSelector": map[string]any{"matchLabels": map[string]any{"kubernetes.io/metadata.name": "gateways"}}}},
		"additionalEgress": []any{map[string]any{"to": []any{map[string]any{"ipBlock": map[string]any{"cidr": "203.0.113.0/24"}}},
			"ports": []any{map[string]any{"protocol": "TCP", "port": 443}}}},
	}
	created, err := env.Dynamic.Resource(glances).Namespace(namespace).Create(ctx, &unstructured.Unstructured{Object: g}, metav1.CreateOptions{})
	require.NoError(t, err, "the Glance CRD accepts spec.gateway and spec.networkPolicy")
	uid := string(created.GetUID())

	w := chain.NewWorld(time.Now().UTC().Truncate(time.Second))
	g["metadata"].(map[string]any)["uid"] = uid
	require.NoError(t, w.Apply(g))
	for _, o := range objects(t, guide.Backends) {
		require.NoError(t, w.Apply(o))
	}
	require.NoError(t, w.Apply(chain.Object{"apiVersion": "glance.openstack.c5c3.io/v1alpha1", "kind": "GlanceBackend",
		"metadata": map[string]any{"name": "archive", "namespace": namespace},
		"spec": map[string]any{"glanceRef": map[string]any{"name": "glance"}, "type": "S3",
			"s3": map[string]any{"host": "https://198.51.100.7:9000", "bucket": "archive", "credentialsSecretRef": map[string]any{"name": "garage-s3-credentials"}}}}))
	for _, o := range guide.Secrets(namespace) {
		require.NoError(t, w.Apply(o))
	}
	res, err := w.Run(chain.Controllers(), 40)
	require.NoError(t, err)
	require.True(t, res.Converged)

	owner := []any{map[string]any{"apiVersion": "glance.openstack.c5c3.io/v1alpha1", "kind": "Glance", "name": "glance", "uid": uid,
		"controller": true, "blockOwnerDeletion": true}}
	made := map[string]int{}
	for _, o := range w.Objects() {
		gvr := map[string]schema.GroupVersionResource{"HTTPRoute": httpRoutes, "NetworkPolicy": policies}[chain.RefOf(o).Kind]
		if gvr.Resource == "" {
			continue
		}
		applied := lastApplied(t, o)
		applied["metadata"].(map[string]any)["ownerReferences"] = owner
		_, err := env.Dynamic.Resource(gvr).Namespace(namespace).Create(ctx, &unstructured.Unstructured{Object: applied}, metav1.CreateOptions{})
		require.NoError(t, err, "the API server refuses %s %s", chain.RefOf(o).Kind, chain.RefOf(o).Name)
		made[chain.RefOf(o).Kind]++
	}
	assert.Equal(t, map[string]int{"HTTPRoute": 1, "NetworkPolicy": 2}, made)

	route, err := env.Dynamic.Resource(httpRoutes).Namespace(namespace).Get(ctx, "glance", metav1.GetOptions{})
	require.NoError(t, err)
	out, errOut, err := env.Kubectl(t, "", "get", "httproute", "glance", "-n", namespace,
		"-o", "jsonpath={.spec.rules[0].timeouts.request} {.spec.rules[0].backendRefs[0].name}:{.spec.rules[0].backendRefs[0].port} {.spec.hostnames[0]} {.spec.rules[0].filters[0].urlRewrite.path.replacePrefixMatch}")
	require.NoError(t, err, errOut)
	assert.Equal(t, "4h glance:9292 images.example.com /", out, "nothing the hook set is pruned")
	assert.Equal(t, "64Gi", route.GetAnnotations()["example.com/max-body"])

	np, err := env.Dynamic.Resource(policies).Namespace(namespace).Get(ctx, "glance", metav1.GetOptions{})
	require.NoError(t, err)
	raw, err := json.Marshal(np.Object["spec"])
	require.NoError(t, err)
	for _, want := range []string{`{"ipBlock":{"cidr":"198.51.100.7/32"}}`, `"kubernetes.io/metadata.name":"shared-services"`, `{"ipBlock":{"cidr":"203.0.113.0/24"}}`, `"port":9292`} {
		assert.Contains(t, string(raw), want)
	}
	for _, o := range w.Objects() {
		if r := chain.RefOf(o); r.Kind == "Glance" {
			endpoint, _, _ := unstructured.NestedString(o, "status", "endpoint")
			assert.Equal(t, "https://images.example.com/image/", endpoint)
		}
	}
}

// lastApplied is what Metacontroller applied of a child: its last-applied
// record.
func lastApplied(t *testing.T, o chain.Object) map[string]any {
	t.Helper()
	rec, _, _ := unstructured.NestedString(o, "metadata", "annotations", "metacontroller.k8s.io/last-applied-configuration")
	require.NotEmpty(t, rec, "%s has a last-applied record", chain.RefOf(o))
	var out map[string]any
	require.NoError(t, json.Unmarshal([]byte(rec), &out))
	return out
}

// objects are the objects of a YAML stream of the guide.
func objects(t *testing.T, docs string) []chain.Object {
	objs, err := guide.Objects(docs)
	require.NoError(t, err)
	return objs
}
