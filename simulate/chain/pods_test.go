package chain

import (
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/c5c3/glance-hooks/hooks/contract/metacontroller"
)

func TestStartPod(t *testing.T) {
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	w := NewWorld(now)
	deployment := func(image string) Object {
		return Object{"apiVersion": "apps/v1", "kind": "Deployment",
			"metadata": map[string]any{"name": "glance", "namespace": "openstack"},
			"spec": map[string]any{"template": map[string]any{
				"metadata": map[string]any{"labels": map[string]any{"app": "glance"}, "annotations": map[string]any{"a": "b"}},
				"spec":     map[string]any{"containers": []any{map[string]any{"name": "glance-api", "image": image}}},
			}}}
	}
	require.NoError(t, w.Apply(deployment("glance:1")))
	dref := Ref{APIVersion: "apps/v1", Kind: "Deployment", Namespace: "openstack", Name: "glance"}

	created := now.Add(-5 * time.Minute)
	r, err := w.StartPod(dref, "a", created)
	require.NoError(t, err)
	pod, ok := w.Get(r)
	require.True(t, ok)
	rs := strings.TrimSuffix(r.Name, "-a")
	named, err := w.ReplicaSetName(dref)
	require.NoError(t, err)
	assert.Equal(t, rs, named)
	assert.True(t, strings.HasPrefix(rs, "glance-"), r.Name)
	meta := pod["metadata"].(map[string]any)
	assert.Equal(t, "glance", meta["labels"].(map[string]any)["app"], "the template's labels")
	assert.Equal(t, strings.TrimPrefix(rs, "glance-"), meta["labels"].(map[string]any)["pod-template-hash"])
	assert.Equal(t, map[string]any{"a": "b"}, meta["annotations"])
	assert.Equal(t, created.Format(time.RFC3339), meta["creationTimestamp"])
	owner := meta["ownerReferences"].([]any)[0].(map[string]any)
	assert.Equal(t, []any{"ReplicaSet", rs, true}, []any{owner["kind"], owner["name"], owner["controller"]})
	assert.Equal(t, "glance:1", pod["spec"].(map[string]any)["containers"].([]any)[0].(map[string]any)["image"])
	assert.Equal(t, map[string]any{"phase": "Pending"}, pod["status"])

	// A kubelet's status, written through the status subresource.
	assert.True(t, w.SetStatus(r, map[string]any{"phase": "Running"}))

	// A new template is a new ReplicaSet; the old pod stays, as during a rollout.
	require.NoError(t, w.Apply(deployment("glance:2")))
	r2, err := w.StartPod(dref, "a", now)
	require.NoError(t, err)
	assert.NotEqual(t, r.Name, r2.Name)

	// A customize answer that selects the pods by label finds both.
	c := Controller{Parent: Type{"apps/v1", "Deployment"},
		Customize: func(*metacontroller.CustomizeRequest) (*metacontroller.CustomizeResponse, error) {
			return &metacontroller.CustomizeResponse{RelatedResources: []metacontroller.RelatedResource{{
				APIVersion: "v1", Resource: "pods", LabelSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "glance"}}}}}, nil
		}}
	req, err := w.SyncRequest(c, dref)
	require.NoError(t, err)
	assert.ElementsMatch(t, []string{r.Name, r2.Name}, req.Related.Names("Pod.v1"))

	// A Job's pods are the Job's.
	require.NoError(t, w.Apply(Object{"apiVersion": "batch/v1", "kind": "Job",
		"metadata": map[string]any{"name": "glance-db-sync", "namespace": "openstack"},
		"spec":     map[string]any{"template": map[string]any{"spec": map[string]any{}}}}))
	jr, err := w.StartPod(Ref{APIVersion: "batch/v1", Kind: "Job", Namespace: "openstack", Name: "glance-db-sync"}, "x", now)
	require.NoError(t, err)
	assert.Equal(t, "glance-db-sync-x", jr.Name)

	_, err = w.StartPod(Ref{APIVersion: "v1", Kind: "Secret", Namespace: "openstack", Name: "nothing"}, "x", now)
	assert.ErrorContains(t, err, "not found")
	require.NoError(t, w.Apply(Object{"apiVersion": "v1", "kind": "ConfigMap", "metadata": map[string]any{"name": "c", "namespace": "openstack"}}))
	_, err = w.StartPod(Ref{APIVersion: "v1", Kind: "ConfigMap", Namespace: "openstack", Name: "c"}, "x", now)
	assert.ErrorContains(t, err, "no pod template")
}
