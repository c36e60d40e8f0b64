//go:build integration

package secretstore_test

import (
	"context"
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

const (
	namespace = "openstack"
	storeName = "openbao"
)

var (
	glances             = schema.GroupVersionResource{Group: "glance.openstack.c5c3.io", Version: "v1alpha1", Resource: "glances"}
	clusterSecretStores = schema.GroupVersionResource{Group: "external-secrets.io", Version: "v1", Resource: "clustersecretstores"}
	glanceRef           = chain.Ref{APIVersion: "glance.openstack.c5c3.io/v1alpha1", Kind: "Glance", Namespace: namespace, Name: "glance"}
)

// TestGlanceWaitsForItsClusterSecretStore: the guide's Glance naming a
// ClusterSecretStore that does not exist yet is accepted by its CRD; the
// chain converges it to SecretsReady=False/SecretStoreNotReady and no
// Deployment. The store is then created on the API server (a valid v1
// spec, the fake provider) and its status set Ready=True through the
// status subresource, as External Secrets' controller would; read back
// from the API server into the chain, it opens the gate: SecretsReady True
// and the Deployment. Each status the hook wrote is accepted by the Glance
// CRD's status schema.
func TestGlanceWaitsForItsClusterSecretStore(t *testing.T) {
	env := kubetest.Shared(t)
	start := time.Now()
	version := env.ExternalSecrets(t)
	t.Logf("External Secrets store CRDs %s installed in %s", version, time.Since(start).Round(time.Millisecond))
	env.Namespace(t, namespace)
	ctx := context.Background()

	var g map[string]any
	require.NoError(t, yaml.Unmarshal([]byte(guide.Glance), &g))
	g["spec"].(map[string]any)["secretStoreRef"] = map[string]any{"kind": "ClusterSecretStore", "name": storeName}
	bad := map[string]any{"apiVersion": g["apiVersion"], "kind": g["kind"], "metadata": map[string]any{"name": "glance-bad-store", "namespace": namespace},
		"spec": map[string]any{}}
	for k, v := range g["spec"].(map[string]any) {
		bad["spec"].(map[string]any)[k] = v
	}
	bad["spec"].(map[string]any)["secretStoreRef"] = map[string]any{"name": "Not_A_Name"}
	_, err := env.Dynamic.Resource(glances).Namespace(namespace).Create(ctx, &unstructured.Unstructured{Object: bad}, metav1.CreateOptions{DryRun: []string{metav1.DryRunAll}})
	require.Error(t, err, "the CRD refuses a store name that cannot name an object")
	assert.Contains(t, err.Error(), "spec.secretStoreRef.name")

	created, err := env.Dynamic.Resource(glances).Namespace(namespace).Create(ctx, &unstructured.Unstructured{Object: g}, metav1.CreateOptions{})
	require.NoError(t, err, "the Glance CRD accepts spec.secretStoreRef")

	w := chain.NewWorld(time.Now().UTC().Truncate(time.Second))
	g["metadata"].(map[string]any)["uid"] = string(created.GetUID())
	require.NoError(t, w.Apply(g))
	for _, o := range append(objects(t, guide.Backends), guide.Secrets(namespace)...) {
		require.NoError(t, w.Apply(o))
	}
	converge(t, w)
	assert.Equal(t, "False/SecretStoreNotReady", condition(t, w, "SecretsReady"))
	assert.Contains(t, message(t, w, "SecretsReady"), "ClusterSecretStore/"+storeName+" is not found")
	assert.False(t, has(w, "Deployment"), "no Deployment before the store is Ready")
	created = writeStatus(t, env, created, w)

	store := &unstructured.Unstructured{Object: map[string]any{"apiVersion": "external-secrets.io/v1", "kind": "ClusterSecretStore",
		"metadata": map[string]any{"name": storeName},
		"spec":     map[string]any{"provider": map[string]any{"fake": map[string]any{"data": []any{map[string]any{"key": "glance-db-password", "value": "unused"}}}}}}}
	store, err = env.Dynamic.Resource(clusterSecretStores).Create(ctx, store, metav1.CreateOptions{})
	require.NoError(t, err, "the ClusterSecretStore CRD accepts the fake provider")
	store.Object["status"] = map[string]any{"capabilities": "ReadWrite", "conditions": []any{map[string]any{
		"type": "Ready", "status": "True", "reason": "Valid", "message": "store validated", "lastTransitionTime": time.Now().UTC().Format(time.RFC3339)}}}
	_, err = env.Dynamic.Resource(clusterSecretStores).UpdateStatus(ctx, store, metav1.UpdateOptions{})
	require.NoError(t, err, "the store's status is written through its status subresource")
	store, err = env.Dynamic.Resource(clusterSecretStores).Get(ctx, storeName, metav1.GetOptions{})
	require.NoError(t, err)
	ready, _, _ := unstructured.NestedSlice(store.Object, "status", "conditions")
	require.Len(t, ready, 1, "the API server kept the store's Ready condition")

	require.NoError(t, w.Apply(store.Object))
	converge(t, w)
	assert.Equal(t, "True/SecretsAvailable", condition(t, w, "SecretsReady"))
	assert.True(t, has(w, "Deployment"), "the Deployment once the store is Ready")
	writeStatus(t, env, created, w)
}

func converge(t *testing.T, w *chain.World) {
	t.Helper()
	res, err := w.Run(chain.Controllers(), 40)
	require.NoError(t, err)
	require.True(t, res.Converged, "did not converge in %d rounds", res.Rounds)
}

// writeStatus writes the status the chain's Glance has through the
// Glance's status subresource: its CRD's status schema accepts it.
func writeStatus(t *testing.T, env *kubetest.Env, on *unstructured.Unstructured, w *chain.World) *unstructured.Unstructured {
	t.Helper()
	g, ok := w.Get(glanceRef)
	require.True(t, ok)
	on.Object["status"] = g["status"]
	out, err := env.Dynamic.Resource(glances).Namespace(namespace).UpdateStatus(context.Background(), on, metav1.UpdateOptions{})
	require.NoError(t, err, "the Glance CRD accepts the status the hook wrote")
	return out
}

// condition is "Status/Reason" of a condition of the chain's Glance.
func condition(t *testing.T, w *chain.World, typ string) string {
	t.Helper()
	c := find(t, w, typ)
	return c["status"].(string) + "/" + c["reason"].(string)
}

func message(t *testing.T, w *chain.World, typ string) string {
	t.Helper()
	m, _ := find(t, w, typ)["message"].(string)
	return m
}

func find(t *testing.T, w *chain.World, typ string) map[string]any {
	t.Helper()
	g, ok := w.Get(glanceRef)
	require.True(t, ok)
	c, ok := chain.Condition(g, typ)
	require.True(t, ok, "the Glance has no %s condition", typ)
	return c
}

// has says the chain holds an object of the kind in the namespace.
func has(w *chain.World, kind string) bool {
	return len(w.ObjectsIn(namespace, kind)) > 0
}

// objects are the objects of a YAML stream of the guide.
func objects(t *testing.T, docs string) []chain.Object {
	objs, err := guide.Objects(docs)
	require.NoError(t, err)
	return objs
}
