//go:build integration

package webhook_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	batchv1 "k8s.io/api/batch/v1"
	policyv1 "k8s.io/api/policy/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/yaml"

	"github.com/c5c3/glance-hooks/hooks/contract/names"
	"github.com/c5c3/glance-hooks/simulate/chain"
	"github.com/c5c3/glance-hooks/test/guide"
)

// TestDefaultPurgeOnARealAPIServer: the guide's standalone Glance, which
// has no spec.dbPurge, is admitted; the hooks, run to convergence by the
// in-process chain as Metacontroller would run them, answer its children,
// and every one of them, the purge CronJob and the one-pod
// PodDisruptionBudget among them, is created on the real API server as the
// chain holds it. The server keeps the CronJob's schedule, the reference's
// default, and its glance-manage db purge of 30 days; the Glance's status,
// written through the status subresource, says DBPurgeReady, and kubectl
// wait on that condition, as a script written against the reference would,
// returns.
func TestDefaultPurgeOnARealAPIServer(t *testing.T) {
	s := setup(t)
	const ns = "purge-default"
	s.env.Namespace(t, ns)
	ctx := context.Background()

	g := object(t, inNamespace(guide.Glance, ns))
	_, has, err := unstructured.NestedMap(g.Object, "spec", "dbPurge")
	require.NoError(t, err)
	require.False(t, has, "the guide's Glance leaves dbPurge out")
	created, err := s.env.Dynamic.Resource(glances).Namespace(ns).Create(ctx, g, metav1.CreateOptions{})
	require.NoError(t, err, "the Glance without dbPurge is admitted")
	uid := string(created.GetUID())

	w := chain.NewWorld(time.Now().UTC().Truncate(time.Second))
	g.Object["metadata"].(map[string]any)["uid"] = uid
	require.NoError(t, w.Apply(g.Object))
	docs, err := guide.Objects(inNamespace(guide.Backends, ns))
	require.NoError(t, err)
	for _, o := range append(docs, guide.Secrets(ns)...) {
		require.NoError(t, w.Apply(o))
	}
	res, err := w.Run(chain.Controllers(), 40)
	require.NoError(t, err)
	require.True(t, res.Converged)

	children := childrenOf(w, uid)
	require.NotEmpty(t, children)
	var kinds []string
	for _, c := range children {
		kinds = append(kinds, c.GetKind()+"/"+c.GetName())
		stored, err := s.env.Dynamic.Resource(resourceOf(t, c)).Namespace(ns).Create(ctx, c, metav1.CreateOptions{})
		require.NoError(t, err, "the API server refuses %s %s", c.GetKind(), c.GetName())
		require.Equal(t, c.GetName(), stored.GetName())
	}
	t.Logf("created on the API server: %s", strings.Join(kinds, ", "))

	cronJob := names.DBPurgeCronJobName("glance")
	var cj batchv1.CronJob
	getTyped(t, s, "cronjobs", ns, cronJob, &cj)
	assert.Equal(t, "1 0 * * *", cj.Spec.Schedule, "the reference's schedule")
	require.NotNil(t, cj.Spec.Suspend)
	assert.False(t, *cj.Spec.Suspend, "not suspended")
	containers := cj.Spec.JobTemplate.Spec.Template.Spec.Containers
	require.Len(t, containers, 1, "db purge only: the images table is kept by default")
	assert.Equal(t, []string{"db", "purge", "--age_in_days", "30", "--max_rows", "1000"}, containers[0].Args[2:],
		"the reference's retention")

	var pdb policyv1.PodDisruptionBudget
	getTyped(t, s, "poddisruptionbudgets", ns, "glance", &pdb)
	require.NotNil(t, pdb.Spec.MinAvailable, "the reference's three pods by default: minAvailable")
	assert.Equal(t, 1, pdb.Spec.MinAvailable.IntValue())
	assert.Nil(t, pdb.Spec.MaxUnavailable)

	// The status as the chain holds it, through the status subresource.
	o, ok := w.Get(chain.RefOf(g.Object))
	require.True(t, ok)
	st, err := json.Marshal(map[string]any{"status": o["status"]})
	require.NoError(t, err)
	_, err = s.env.Dynamic.Resource(glances).Namespace(ns).Patch(ctx, "glance", types.MergePatchType, st, metav1.PatchOptions{}, "status")
	require.NoError(t, err, "the Glance's status schema refuses the status")
	out, errOut, err := s.env.Kubectl(t, "", "wait", "-n", ns, "--for=condition=DBPurgeReady", "--timeout=20s", "glance/glance")
	require.NoError(t, err, "kubectl wait --for=condition=DBPurgeReady: %s", errOut)
	t.Log(strings.TrimSpace(out))
	out, _, err = s.env.Kubectl(t, "", "get", "glance", "glance", "-n", ns, "-o",
		`jsonpath={.status.conditions[?(@.type=="DBPurgeReady")].reason}: {.status.conditions[?(@.type=="DBPurgeReady")].message}`)
	require.NoError(t, err)
	assert.Contains(t, out, `DBPurgeScheduled: CronJob "glance-db-purge" purges the rows deleted more than 30 days ago on "1 0 * * *"`)
}

// childrenOf are the objects the Glance of uid owns in the world, as the
// API server takes them on create: without what the server sets.
func childrenOf(w *chain.World, uid string) []*unstructured.Unstructured {
	var out []*unstructured.Unstructured
	for _, o := range w.Objects() {
		u := &unstructured.Unstructured{Object: o}
		owned := false
		for _, ref := range u.GetOwnerReferences() {
			owned = owned || string(ref.UID) == uid
		}
		if !owned {
			continue
		}
		for _, f := range []string{"uid", "resourceVersion", "creationTimestamp", "generation", "managedFields"} {
			unstructured.RemoveNestedField(u.Object, "metadata", f)
		}
		delete(u.Object, "status")
		out = append(out, u)
	}
	return out
}

// resourceOf is the API resource of a child's kind.
func resourceOf(t *testing.T, u *unstructured.Unstructured) schema.GroupVersionResource {
	t.Helper()
	gv, err := schema.ParseGroupVersion(u.GetAPIVersion())
	require.NoError(t, err)
	plural := map[string]string{"ConfigMap": "configmaps", "Secret": "secrets", "Service": "services", "Deployment": "deployments",
		"Job": "jobs", "CronJob": "cronjobs", "PodDisruptionBudget": "poddisruptionbudgets", "Event": "events",
		"HorizontalPodAutoscaler": "horizontalpodautoscalers"}[u.GetKind()]
	require.NotEmpty(t, plural, "no resource known for kind %s", u.GetKind())
	return gv.WithResource(plural)
}

// getTyped reads a namespaced object of resource into out, through kubectl,
// as the server stores it.
func getTyped(t *testing.T, s *suite, resource, ns, name string, out any) {
	t.Helper()
	raw, errOut, err := s.env.Kubectl(t, "", "get", resource, name, "-n", ns, "-o", "yaml")
	require.NoError(t, err, errOut)
	require.NoError(t, yaml.Unmarshal([]byte(raw), out))
}
