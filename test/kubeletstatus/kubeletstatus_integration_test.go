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
	"github.com/c5c3/glance-hooks/simulate/chain"
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

// What the Glance says for one pod with each status, created age before
// the hook is asked: a pod of its Deployment's unfinished rollout
// (DeploymentReady), or with job, a pod of its running db sync Job
// (DatabaseReady).
var expected = map[string]struct {
	age    time.Duration
	job    bool
	reason string
	resync int
}{
	"create-container-config-error": {2 * time.Minute, false, glance.ReasonPodsNotStarting, 0},
	"image-pull-backoff":            {2 * time.Minute, false, glance.ReasonPodsNotStarting, 0},
	"crash-loop-backoff":            {4 * time.Minute, false, glance.ReasonPodsCrashLooping, 0},
	"running-not-ready":             {11 * time.Minute, false, glance.ReasonPodsNotReady, 0},
	"unschedulable":                 {time.Minute, false, glance.ReasonPodsUnschedulable, 0},
	"container-creating":            {time.Minute, false, glance.ReasonWaitingForDeployment, 540},
	"evicted":                       {3 * time.Hour, false, glance.ReasonPodsFailed, 0},
	"ready":                         {time.Minute, false, glance.ReasonWaitingForDeployment, 0},
	"job-failed":                    {2 * time.Minute, true, glance.ReasonPodsFailed, 0},
	"job-image-pull-backoff":        {2 * time.Minute, true, glance.ReasonPodsNotStarting, 0},
}

// Each status is written through a real API server's status subresource
// onto a pod of the Glance's rendered Deployment or schema Job: the server
// keeps every field (the shapes are the Pod schema's), the Glance's sync
// hook reads the pod as the server returns it, and `kubectl get glance`
// shows the verdict in its STATUS and PODS columns.
func TestKubeletStatusesOnARealAPIServer(t *testing.T) {
	env := kubetest.Shared(t)
	env.Namespace(t, namespace)
	ctx := context.Background()
	// No controller manager runs here to make the namespace's default
	// ServiceAccount, which pod admission wants.
	_, err := env.Kube.CoreV1().ServiceAccounts(namespace).Create(ctx,
		&corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Name: "default"}}, metav1.CreateOptions{})
	require.NoError(t, err)
	var g map[string]any
	require.NoError(t, yaml.Unmarshal([]byte(guide.Glance), &g))
	_, err = env.Dynamic.Resource(glances).Namespace(namespace).Create(ctx, &unstructured.Unstructured{Object: g}, metav1.CreateOptions{})
	require.NoError(t, err)

	rollingOut, syncing := renderedGlance(t, false), renderedGlance(t, true)
	glanceRef := chain.Ref{APIVersion: "glance.openstack.c5c3.io/v1alpha1", Kind: "Glance", Namespace: namespace, Name: "glance"}
	for _, name := range kubeletstatus.Names() {
		t.Run(name, func(t *testing.T) {
			want, ok := expected[name]
			require.True(t, ok, "status %s has no expected verdict here", name)
			w, owner, condType := rollingOut, chain.Ref{APIVersion: "apps/v1", Kind: "Deployment", Namespace: namespace, Name: "glance"}, glance.CondDeploymentReady
			if want.job {
				w, owner, condType = syncing, schemaJob(t, syncing), glance.CondDatabaseReady
			}

			// A pod as the ReplicaSet or the Job creates it.
			suffix := strings.ReplaceAll(name, "-", "")[:5]
			ref, err := w.StartPod(owner, suffix, w.Now)
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
			p := kubeletstatus.Pod{Name: created.GetName(), Namespace: namespace, UID: string(created.GetUID()),
				Container: typed.Spec.Containers[0].Name, Image: typed.Spec.Containers[0].Image,
				Created: created.GetCreationTimestamp().Time, QOSClass: typed.Status.QOSClass}
			if len(typed.Spec.InitContainers) > 0 {
				p.InitContainer = typed.Spec.InitContainers[0].Name
			}
			status, err := kubeletstatus.Status(name, p)
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
			cond := condition(t, resp, condType)
			assert.Equal(t, want.reason, cond.Reason, cond.Message)
			assert.Equal(t, want.resync, resp.ResyncAfterSeconds)
			if want.reason != glance.ReasonWaitingForDeployment {
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
			assert.Equal(t, []string{"NAME", "READY", "RELEASE", "ENDPOINT", "AGE", "DEFAULT", "STATUS", "WANTED", "UPGRADE", "PODS"}, strings.Fields(lines[0]))
			assert.Contains(t, lines[1], condType+" ("+want.reason+")", "STATUS names the condition and its reason")
			if !want.job {
				assert.Contains(t, lines[1], cond.Message, "PODS shows DeploymentReady's message")
			}

			require.NoError(t, env.Dynamic.Resource(pods).Namespace(namespace).Delete(ctx, stored.GetName(), metav1.DeleteOptions{}))
			w.Delete(ref)
		})
	}
}

// renderedGlance runs the guide's standalone Glance through the hooks
// in-process. Its db sync Job succeeds and its Deployment's rollout has not
// finished (no replica available); or, with syncing, its db sync Job runs
// and there is no Deployment yet.
func renderedGlance(t *testing.T, syncing bool) *chain.World {
	t.Helper()
	w := chain.NewWorld(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
	w.Rollouts = false
	if syncing {
		w.JobResult = func(*chain.World, chain.Object) (chain.JobOutcome, error) { return chain.JobRuns, nil }
	}
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
	deployment := chain.Ref{APIVersion: "apps/v1", Kind: "Deployment", Namespace: namespace, Name: "glance"}
	d, ok := w.Get(deployment)
	if syncing {
		require.False(t, ok, "no Deployment before the schema is synced")
		return w
	}
	require.True(t, ok, "the schema Jobs ran and the Deployment exists")
	w.SetStatus(deployment, map[string]any{"observedGeneration": d["metadata"].(map[string]any)["generation"],
		"replicas": 1, "updatedReplicas": 1, "unavailableReplicas": 1})
	return w
}

// schemaJob is the one schema Job of the world.
func schemaJob(t *testing.T, w *chain.World) chain.Ref {
	for _, o := range w.Objects() {
		if r := chain.RefOf(o); r.Kind == "Job" {
			return r
		}
	}
	t.Fatal("no schema Job")
	return chain.Ref{}
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

func condition(t *testing.T, resp *metacontroller.SyncResponse, typ string) metav1.Condition {
	raw, err := json.Marshal(resp.Status)
	require.NoError(t, err)
	var st struct{ Conditions []metav1.Condition }
	require.NoError(t, json.Unmarshal(raw, &st))
	for _, c := range st.Conditions {
		if c.Type == typ {
			return c
		}
	}
	t.Fatalf("no %s condition", typ)
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
