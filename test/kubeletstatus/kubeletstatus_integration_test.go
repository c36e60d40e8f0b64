//go:build integration

package kubeletstatus_test

import (
	"context"
	"encoding/json"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/yaml"

	"github.com/c5c3/glance-hooks/hooks/contract/metacontroller"
	"github.com/c5c3/glance-hooks/hooks/contract/names"
	"github.com/c5c3/glance-hooks/hooks/glance"
	"github.com/c5c3/glance-hooks/internal/simulate/chain"
	"github.com/c5c3/glance-hooks/test/guide"
	"github.com/c5c3/glance-hooks/test/kubeletstatus"
	"github.com/c5c3/glance-hooks/test/kubetest"
)

func TestMain(m *testing.M) { os.Exit(kubetest.Main(m)) }

const namespace = "openstack"

var (
	pods    = schema.GroupVersionResource{Version: "v1", Resource: "pods"}
	glances = schema.GroupVersionResource{Group: "glance.openstack.c5c3.io", Version: "v1alpha1", Resource: "glances"}
)

// What DeploymentReady says for a rollout whose one pod has each status,
// the pod created age before the hook is asked.
var expected = map[string]struct {
	age    time.Duration
	reason string
	resync int
}{
	"create-container-config-error": {2 * time.Minute, glance.ReasonPodsNotStarting, 0},
	"image-pull-backoff":            {2 * time.Minute, glance.ReasonPodsNotStarting, 0},
	"crash-loop-backoff":            {4 * time.Minute, glance.ReasonPodsCrashLooping, 0},
	"running-not-ready":             {11 * time.Minute, glance.ReasonPodsNotReady, 0},
	"unschedulable":                 {time.Minute, glance.ReasonPodsUnschedulable, 0},
	"container-creating":            {time.Minute, glance.ReasonRollingOut, 540},
	"evicted":                       {3 * time.Hour, glance.ReasonPodsFailed, 0},
	"ready":                         {time.Minute, glance.ReasonRollingOut, 0},
}

// Each status is written through a real API server's status subresource
// onto a pod of the Glance's rendered Deployment: the server keeps every
// field (the shapes are the Pod schema's), the Glance's sync hook reads the
// pod as the server returns it, and `kubectl get glance` shows the
// verdict in its STATUS and PODS columns.
func TestKubeletStatusesOnARealAPIServer(t *testing.T) {
	env := kubetest.Shared(t)
	env.Namespace(t, namespace)
	ctx := context.Background()
	// No controller manager runs here to make the namespace's default
	// ServiceAccount, which pod admission wants.
	_, err := env.Kube.CoreV1().ServiceAccounts(namespace).Create(ctx,
		&corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Name: "default"}}, metav1.CreateOptions{})
	require.NoError(t, err)

	w, glanceRef, deploymentRef := renderedGlance(t)
	for _, name := range kubeletstatus.Names() {
		t.Run(name, func(t *testing.T) {
			want, ok := expected[name]
			require.True(t, ok, "status %s has no expected verdict here", name)

			// A pod of the rendered Deployment, as its ReplicaSet creates it.
			suffix := strings.ReplaceAll(name, "-", "")[:5]
			ref, err := w.StartPod(deploymentRef, suffix, w.Now)
			require.NoError(t, err)
			local, _ := w.Get(ref)
			pod := &unstructured.Unstructured{Object: map[string]any{"apiVersion": "v1", "kind": "Pod",
				"metadata": map[string]any{"name": ref.Name, "labels": local["metadata"].(map[string]any)["labels"],
					"ownerReferences": local["metadata"].(map[string]any)["ownerReferences"]},
				"spec": local["spec"]}}
			if name != "unschedulable" {
				require.NoError(t, unstructured.SetNestedField(pod.Object, kubeletstatus.Node, "spec", "nodeName"))
			}
			created, err := env.Dynamic.Resource(pods).Namespace(namespace).Create(ctx, pod, metav1.CreateOptions{})
			require.NoError(t, err)

			var typed corev1.Pod
			require.NoError(t, runtime.DefaultUnstructuredConverter.FromUnstructured(created.Object, &typed))
			require.Equal(t, typed.Status.QOSClass, kubeletstatus.QOSClass(typed.Spec), "the server's QoS class is the one QOSClass computes")
			status, err := kubeletstatus.Status(name, kubeletstatus.Pod{Name: created.GetName(), Namespace: namespace,
				UID: string(created.GetUID()), Container: typed.Spec.Containers[0].Name, Image: typed.Spec.Containers[0].Image,
				Created: created.GetCreationTimestamp().Time, QOSClass: typed.Status.QOSClass})
			require.NoError(t, err)
			created.Object["status"] = status
			stored, err := env.Dynamic.Resource(pods).Namespace(namespace).UpdateStatus(ctx, created, metav1.UpdateOptions{})
			require.NoError(t, err, "the API server refuses the status")
			if diff := cmp.Diff(normalized(t, status), normalized(t, stored.Object["status"])); diff != "" {
				t.Errorf("the API server did not keep the status as written (-written +stored):\n%s", diff)
			}

			// The Glance's sync, asked with the pod as the server serves it.
			raw, err := stored.MarshalJSON()
			require.NoError(t, err)
			req, err := w.SyncRequest(glanceController(t), glanceRef)
			require.NoError(t, err)
			req.Related[names.PodsKey] = map[string]json.RawMessage{stored.GetName(): raw}
			now := created.GetCreationTimestamp().Add(want.age)
			resp, err := glance.Sync(req, now)
			require.NoError(t, err)
			cond := deploymentReady(t, resp)
			assert.Equal(t, want.reason, cond.Reason, cond.Message)
			assert.Equal(t, want.resync, resp.ResyncAfterSeconds)
			if want.reason != glance.ReasonRollingOut {
				assert.Contains(t, cond.Message, `pod "`+stored.GetName()+`"`)
			}

			// The answer's status through the Glance's status subresource,
			// read back with kubectl.
			st, err := json.Marshal(map[string]any{"status": resp.Status})
			require.NoError(t, err)
			_, err = env.Dynamic.Resource(glances).Namespace(namespace).Patch(ctx, "glance", types.MergePatchType, st, metav1.PatchOptions{}, "status")
			require.NoError(t, err, "the Glance's status schema refuses the answer")
			out, errOut, err := env.Kubectl(t, "", "get", "glance", "glance", "-n", namespace, "-o", "wide")
			require.NoError(t, err, errOut)
			t.Log(out)
			lines := strings.Split(strings.TrimSpace(out), "\n")
			require.Len(t, lines, 2, out)
			assert.Equal(t, []string{"NAME", "READY", "DEFAULT", "STATUS", "AGE", "RELEASE", "INSTALLED", "UPGRADE", "PODS"}, strings.Fields(lines[0]))
			assert.Contains(t, lines[1], "waiting for DeploymentReady ("+want.reason+")")
			assert.Contains(t, lines[1], cond.Message, "PODS shows DeploymentReady's message")

			require.NoError(t, env.Dynamic.Resource(pods).Namespace(namespace).Delete(ctx, stored.GetName(), metav1.DeleteOptions{}))
			w.Delete(ref)
		})
	}
}

// renderedGlance runs the guide's standalone Glance through the hooks
// in-process and creates the Glance on the API server; its Deployment's
// rollout has not finished (no replica available).
func renderedGlance(t *testing.T) (w *chain.World, glanceRef, deploymentRef chain.Ref) {
	t.Helper()
	w = chain.NewWorld(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
	w.Rollouts = false
	for _, doc := range strings.Split(guide.Glance+"\n---\n"+guide.Backends+"\n---\n"+`apiVersion: v1
kind: Secret
metadata: {name: garage-s3-credentials, namespace: openstack}
stringData: {access-key-id: GKexample0001, secret-access-key: secretexample0001}
---
apiVersion: v1
kind: Secret
metadata: {name: glance-db, namespace: openstack}
stringData: {username: glance, password: db-secret-0001}
---
apiVersion: v1
kind: Secret
metadata: {name: glance-service-user, namespace: openstack}
stringData: {password: service-secret-0001}`, "\n---\n") {
		var o map[string]any
		require.NoError(t, yaml.Unmarshal([]byte(doc), &o))
		require.NoError(t, w.Apply(o))
	}
	res, err := w.Run(chain.Controllers(), 30)
	require.NoError(t, err)
	require.True(t, res.Converged)
	glanceRef = chain.Ref{APIVersion: "glance.openstack.c5c3.io/v1alpha1", Kind: "Glance", Namespace: namespace, Name: "glance"}
	deploymentRef = chain.Ref{APIVersion: "apps/v1", Kind: "Deployment", Namespace: namespace, Name: "glance"}
	d, ok := w.Get(deploymentRef)
	require.True(t, ok, "the schema Jobs ran and the Deployment exists")
	w.SetStatus(deploymentRef, map[string]any{"observedGeneration": d["metadata"].(map[string]any)["generation"],
		"replicas": 1, "updatedReplicas": 1, "unavailableReplicas": 1})

	var g map[string]any
	require.NoError(t, yaml.Unmarshal([]byte(guide.Glance), &g))
	_, err = kubetest.Shared(t).Dynamic.Resource(glances).Namespace(namespace).Create(context.Background(),
		&unstructured.Unstructured{Object: g}, metav1.CreateOptions{})
	require.NoError(t, err)
	return w, glanceRef, deploymentRef
}

func glanceController(t *testing.T) chain.Controller {
	for _, c := range chain.Controllers() {
		if c.Name == "glance" {
			return c
		}
	}
	t.Fatal("no glance controller")
	return chain.Controller{}
}

func deploymentReady(t *testing.T, resp *metacontroller.SyncResponse) metav1.Condition {
	raw, err := json.Marshal(resp.Status)
	require.NoError(t, err)
	var st struct{ Conditions []metav1.Condition }
	require.NoError(t, json.Unmarshal(raw, &st))
	for _, c := range st.Conditions {
		if c.Type == glance.CondDeploymentReady {
			return c
		}
	}
	t.Fatal("no DeploymentReady condition")
	return metav1.Condition{}
}

// normalized is a status as a typed PodStatus sees it, so "2026-...Z" and
// the server's formatting of the same time compare equal.
func normalized(t *testing.T, status any) corev1.PodStatus {
	raw, err := json.Marshal(status)
	require.NoError(t, err)
	var st corev1.PodStatus
	require.NoError(t, json.Unmarshal(raw, &st))
	return st
}
