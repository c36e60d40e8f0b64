package test

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"

	"github.com/c5c3/glance-hooks/hooks/glance"
	"github.com/c5c3/glance-hooks/simulate/chain"
	"github.com/c5c3/glance-hooks/test/kubeletstatus"
)

// startPod starts a pod of a Deployment created age before the fixture
// clock, with a status as a kubelet writes it, and returns its ReplicaSet.
func (s *scenario) startPod(deployment, suffix, status string, age time.Duration) (replicaSet string) {
	s.t.Helper()
	r := s.startPodOf(chain.Ref{APIVersion: "apps/v1", Kind: "Deployment", Namespace: "openstack", Name: deployment}, suffix, status, age)
	return strings.TrimSuffix(r.Name, "-"+suffix)
}

// startJobPod starts a pod of the schema Job of an action the same way and
// returns the Job's name.
func (s *scenario) startJobPod(action, suffix, status string, age time.Duration) (job string) {
	s.t.Helper()
	for _, o := range s.w.Objects() {
		if r := chain.RefOf(o); r.Kind == "Job" && jobAction(o) == action {
			s.startPodOf(r, suffix, status, age)
			return r.Name
		}
	}
	s.t.Fatalf("no %s Job", action)
	return ""
}

func (s *scenario) startPodOf(owner chain.Ref, suffix, status string, age time.Duration) chain.Ref {
	s.t.Helper()
	created := FixtureNow.Add(-age)
	r, err := s.w.StartPod(owner, suffix, created)
	require.NoError(s.t, err)
	pod, ok := s.w.Get(r)
	require.True(s.t, ok)
	uid, _ := pod["metadata"].(map[string]any)["uid"].(string)
	spec := podSpec(s.t, pod)
	p := kubeletstatus.Pod{Name: r.Name, Namespace: r.Namespace, UID: uid, Container: spec.Containers[0].Name,
		Image: spec.Containers[0].Image, Created: created, QOSClass: kubeletstatus.QOSClass(spec)}
	if len(spec.InitContainers) > 0 {
		p.InitContainer = spec.InitContainers[0].Name
	}
	st, err := kubeletstatus.Status(status, p)
	require.NoError(s.t, err)
	s.w.SetStatus(r, st)
	return r
}

// rollout writes a Deployment's status as the Deployment controller does
// while a rollout runs: the replica counts and its Progressing condition
// (progressing, or past its deadline) about the ReplicaSet being rolled
// out.
func (s *scenario) rollout(deployment, replicaSet string, replicas, updated, available int, deadlineExceeded bool) {
	s.t.Helper()
	d := s.get("Deployment", deployment)
	availability := deploymentCondition("Available", "False", "MinimumReplicasUnavailable", "Deployment does not have minimum availability.")
	if available > 0 {
		availability = deploymentCondition("Available", "True", "MinimumReplicasAvailable", "Deployment has minimum availability.")
	}
	progressing := deploymentCondition("Progressing", "True", "ReplicaSetUpdated", `ReplicaSet "`+replicaSet+`" is progressing.`)
	if deadlineExceeded {
		progressing = deploymentCondition("Progressing", "False", "ProgressDeadlineExceeded", `ReplicaSet "`+replicaSet+`" has timed out progressing.`)
	}
	status := map[string]any{
		"observedGeneration": d["metadata"].(map[string]any)["generation"],
		"replicas":           replicas, "updatedReplicas": updated, "readyReplicas": available,
		"availableReplicas": available, "unavailableReplicas": replicas - available,
		"conditions": []any{availability, progressing},
	}
	require.True(s.t, s.w.SetStatus(chain.Ref{APIVersion: "apps/v1", Kind: "Deployment", Namespace: "openstack", Name: deployment}, status))
}

// replicaFailure adds the condition the Deployment controller sets when
// its ReplicaSet cannot create a pod: the API server's refusal.
func (s *scenario) replicaFailure(deployment, message string) {
	s.t.Helper()
	d := s.get("Deployment", deployment)
	status := d["status"].(map[string]any)
	status["conditions"] = append(status["conditions"].([]any), deploymentCondition("ReplicaFailure", "True", "FailedCreate", message))
	require.True(s.t, s.w.SetStatus(chain.Ref{APIVersion: "apps/v1", Kind: "Deployment", Namespace: "openstack", Name: deployment}, status))
}

// deploymentCondition is a Deployment condition as the Deployment
// controller writes it, last changed 15 minutes before the fixture clock.
func deploymentCondition(typ, status, reason, message string) map[string]any {
	since := FixtureNow.Add(-15 * time.Minute).Format(time.RFC3339)
	return map[string]any{"type": typ, "status": status, "reason": reason, "message": message,
		"lastUpdateTime": since, "lastTransitionTime": since}
}

// standaloneRollingOut is the guide's standalone Glance whose first rollout
// has not finished: the Deployment exists, no replica is available.
func standaloneRollingOut(s *scenario) {
	standalone(s)
	s.w.Rollouts = false
}

// onePod builds the guide's standalone Glance whose first rollout has one
// pod, created age before the fixture clock, with a kubelet's status; the
// Deployment controller says the rollout's deadline passed or not.
func onePod(status string, age time.Duration, deadlineExceeded bool) func(s *scenario) string {
	return func(s *scenario) string {
		standaloneRollingOut(s)
		rs := s.startPod("glance", "x2x4k", status, age)
		s.rollout("glance", rs, 1, 1, 0, deadlineExceeded)
		return "glance"
	}
}

// capturedPodCases are /sync/glance fixtures of a rollout whose pods do
// not run, one per reason DeploymentReady gives, and of one that runs as
// it should.
var capturedPodCases = []capturedCase{
	{"pods-not-starting", `
The service user's Secret was re-created with its key misspelt (passwd)
while the Deployment rolls out: the kubelet cannot build the glance-api
container's environment and reports CreateContainerConfigError (the pod
stays Pending). DeploymentReady is False/PodsNotStarting and names the pod,
the container and the kubelet's own message, which names the Secret and the
key, never a value; ServiceUserReady says the same from the Secret's side,
and the running Deployment is kept as it is.`,
		func(s *scenario) string {
			onePod("create-container-config-error", 2*time.Minute, false)(s)
			s.apply(`
apiVersion: v1
kind: Secret
metadata: {name: glance-service-user, namespace: openstack}
stringData: {passwd: service-secret-0001}
`)
			return "glance"
		}},
	{"pods-image-pull-backoff", `
The image cannot be pulled: the kubelet backs off (ImagePullBackOff).
DeploymentReady is False/PodsNotStarting with the image it tries.`,
		onePod("image-pull-backoff", 3*time.Minute, false)},
	{"pods-crash-looping", `
The issue's second case: glance-api starts and exits 1 (a paste file
missing, say), again and again. DeploymentReady is False/PodsCrashLooping
with the container's restart count and last exit code and reason; not the
kubelet's back-off message, which changes with every restart.`,
		onePod("crash-loop-backoff", 4*time.Minute, false)},
	{"pods-not-ready", `
glance-api runs but never gets ready (its readiness probe fails; the
kubelet says why only in events), and the Deployment controller declared
the rollout stalled (Progressing=False/ProgressDeadlineExceeded).
DeploymentReady is False/PodsNotReady.`,
		onePod("running-not-ready", 11*time.Minute, true)},
	{"pods-unschedulable", `
No node can take the pod. DeploymentReady is False/PodsUnschedulable with
the scheduler's message.`,
		onePod("unschedulable", time.Minute, false)},
	{"pods-not-created", `
The namespace's ResourceQuota leaves no room for the pod: the ReplicaSet
cannot create it and the Deployment controller reports the API server's
refusal in its ReplicaFailure condition. DeploymentReady is
False/PodsNotCreated with that message.`,
		func(s *scenario) string {
			standaloneRollingOut(s)
			rs, err := s.w.ReplicaSetName(chain.Ref{APIVersion: "apps/v1", Kind: "Deployment", Namespace: "openstack", Name: "glance"})
			require.NoError(s.t, err)
			s.rollout("glance", rs, 0, 0, 0, false)
			s.replicaFailure("glance", `pods "glance-f19e4dbed7-x2x4k" is forbidden: exceeded quota: compute-resources, requested: limits.memory=1Gi, used: limits.memory=8Gi, limited: limits.memory=8Gi`)
			return "glance"
		}},
	{"pods-starting-normally", `
A rollout that progresses: the pod was created a minute ago and the
kubelet is creating its container. Not a failure: DeploymentReady stays
False/WaitingForDeployment, and the answer asks Metacontroller to sync again when the
pod's deadline (the Deployment's progressDeadlineSeconds, 600 s) has
passed (resyncAfterSeconds 540), since nothing about a stuck pod changes
by itself.`,
		onePod("container-creating", time.Minute, false)},
	{"pods-rollout-many", `
Three replicas on the old config serve while the default switch rolls out:
the new config's first pod crash-loops. Then Glance is scaled to five
replicas, which the Deployment controller spreads over both ReplicaSets:
one more old pod (it finds no node) and one more new one (it crash-loops
too). The message has one part per reason, each with its count and the
first pod by name, the most fundamental reason first
(PodsUnschedulable); the three serving old replicas are counted and fine.`,
		func(s *scenario) string {
			standalone(s)
			s.w.Rollouts = false
			for _, p := range []string{"old1a", "old2b", "old3c"} {
				s.startPod("glance", p, "ready", 3*time.Hour)
			}
			s.startPod("glance", "old4d", "unschedulable", time.Minute)
			s.apply(standaloneBackend("primary", "glance-images", "garage-s3-credentials", false))
			s.apply(standaloneBackend("secondary", "glance-images-2", "garage-s3-credentials", true))
			g := s.get("Glance", "glance")
			g["spec"].(map[string]any)["deployment"] = map[string]any{"replicas": 5}
			require.NoError(s.t, s.w.Apply(g))
			s.converge()
			s.startPod("glance", "new1a", "crash-loop-backoff", 5*time.Minute)
			rs := s.startPod("glance", "new2b", "crash-loop-backoff", time.Minute)
			s.rollout("glance", rs, 6, 2, 3, false)
			return "glance"
		}},
}

// capturedSchemaPodCases are /sync/glance fixtures of a schema Job whose
// pods do not run.
var capturedSchemaPodCases = []capturedCase{
	{"schema-sync-pods-failed", `
The first db sync Job failed: each of its four pods (the first try and the
three of its backoffLimit) ended with db sync exiting 1 (a database it
cannot reach, say). DatabaseReady stays False/DBSyncFailed, naming the
Job and how to run it again, and adds how its pods ended: the count, the
first by name, its init container and exit code; never the container's
termination message.`,
		func(s *scenario) string {
			newSchemaLog(s).fail = "sync"
			standalone(s)
			for i, p := range []string{"a1", "b2", "c3", "d4"} {
				s.startJobPod("sync", p, "job-failed", time.Duration(8-2*i)*time.Minute)
			}
			return "glance"
		}},
	{"schema-sync-retrying", `
The first db sync Job is still running, but two of its pods have failed
already (db sync exited 1) and the Job controller is trying again.
DatabaseReady is False/PodsFailed instead of DBSyncInProgress: the message
still names the Job and what it does, then the pods' failures.`,
		func(s *scenario) string {
			newSchemaLog(s).hold = true
			standalone(s)
			s.startJobPod("sync", "a1", "job-failed", 3*time.Minute)
			s.startJobPod("sync", "b2", "job-failed", 2*time.Minute)
			return "glance"
		}},
	{"schema-sync-pod-image-pull-backoff", `
The first db sync Job's pod cannot pull its image: its first step waits in
ImagePullBackOff. DatabaseReady is False/PodsNotStarting, naming the Job,
the pod, the init container and the kubelet's message; no Deployment
exists yet, since glance-api starts only once the schema is synced.`,
		func(s *scenario) string {
			newSchemaLog(s).hold = true
			standalone(s)
			s.startJobPod("sync", "a1", "job-image-pull-backoff", 2*time.Minute)
			return "glance"
		}},
}

// TestPodsExplainARolloutThatDoesNotProgress runs the two cases
// through the chain: the Glance says why its pods do not run, Ready
// names the reason, and once the pods run everything is ready again.
func TestPodsExplainARolloutThatDoesNotProgress(t *testing.T) {
	s := newScenario(t)
	standaloneRollingOut(s)
	rs := s.startPod("glance", "a", "create-container-config-error", 2*time.Minute)
	s.rollout("glance", rs, 1, 1, 0, false)
	s.w.Now = FixtureNow
	s.converge()
	g := s.get("Glance", "glance")
	assert.Equal(t, "False/PodsNotStarting", conditionOf(g, glance.CondDeploymentReady))
	assert.Contains(t, conditionMessage(g, glance.CondDeploymentReady),
		`CreateContainerConfigError: "couldn't find key password in Secret openstack/glance-service-user"`)
	// No pod passes its readiness probe either: GlanceAPIReady says so
	// beside the reason DeploymentReady gives.
	assert.Equal(t, "waiting for DeploymentReady (PodsNotStarting), GlanceAPIReady (APIUnhealthy)", conditionMessage(g, "Ready"))

	// The Secret fixed, the kubelet restarts the container; it crashes.
	s.w.SetStatus(chain.Ref{APIVersion: "v1", Kind: "Pod", Namespace: "openstack", Name: rs + "-a"}, mustStatus(t, s, rs+"-a", "crash-loop-backoff"))
	s.converge()
	g = s.get("Glance", "glance")
	assert.Equal(t, "False/PodsCrashLooping", conditionOf(g, glance.CondDeploymentReady))
	assert.Contains(t, conditionMessage(g, glance.CondDeploymentReady), "restarted 4 times, last exited with code 1 (Error)")

	// Fixed again: the rollout finishes and nothing is reported.
	s.w.Rollouts = true
	s.converge()
	g = s.get("Glance", "glance")
	assert.Equal(t, "True/DeploymentReady", conditionOf(g, glance.CondDeploymentReady))
	assert.Equal(t, "True/APIHealthy", conditionOf(g, glance.CondGlanceAPIReady))
	assert.Equal(t, "True/AllReady", conditionOf(g, "Ready"))
}

func mustStatus(t *testing.T, s *scenario, pod, status string) map[string]any {
	p := s.get("Pod", pod)
	meta := p["metadata"].(map[string]any)
	created, err := time.Parse(time.RFC3339, meta["creationTimestamp"].(string))
	require.NoError(t, err)
	spec := podSpec(t, p)
	st, err := kubeletstatus.Status(status, kubeletstatus.Pod{Name: pod, Namespace: "openstack", UID: meta["uid"].(string),
		Container: spec.Containers[0].Name, Image: spec.Containers[0].Image, Created: created, QOSClass: kubeletstatus.QOSClass(spec)})
	require.NoError(t, err)
	return st
}

// podSpec is a chain pod's spec, typed.
func podSpec(t *testing.T, pod chain.Object) corev1.PodSpec {
	raw, err := json.Marshal(pod["spec"])
	require.NoError(t, err)
	var spec corev1.PodSpec
	require.NoError(t, json.Unmarshal(raw, &spec))
	return spec
}
