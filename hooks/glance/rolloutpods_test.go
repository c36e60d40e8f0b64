package glance

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"

	"github.com/c5c3/glance-hooks/hooks/contract/api"
	"github.com/c5c3/glance-hooks/hooks/contract/hook"
	"github.com/c5c3/glance-hooks/hooks/contract/metacontroller"
	"github.com/c5c3/glance-hooks/hooks/contract/names"
	"github.com/c5c3/glance-hooks/hooks/glance/model"
	"github.com/c5c3/glance-hooks/hooks/glance/observe"
	"github.com/c5c3/glance-hooks/hooks/glance/report"
)

func TestDeploymentPodsAreThoseOfItsReplicaSets(t *testing.T) {
	yes := true
	pod := func(name string, owner *metav1.OwnerReference) json.RawMessage {
		p := corev1.Pod{TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "Pod"}}
		p.Name = name
		p.Spec.Containers = []corev1.Container{{Name: "glance-api", Image: "x",
			Env: []corev1.EnvVar{{Name: "OS_X", Value: "a value that is never read"}}}}
		p.Status.Phase = corev1.PodRunning
		if owner != nil {
			p.OwnerReferences = []metav1.OwnerReference{*owner}
		}
		raw, err := json.Marshal(p)
		require.NoError(t, err)
		return raw
	}
	related := metacontroller.ObjectMap{names.PodsKey: {
		"glance-7c9d8f6b5-b": pod("glance-7c9d8f6b5-b", &metav1.OwnerReference{Kind: "ReplicaSet", Name: "glance-7c9d8f6b5", Controller: &yes}),
		"glance-5f4d-a":      pod("glance-5f4d-a", &metav1.OwnerReference{Kind: "ReplicaSet", Name: "glance-5f4d", Controller: &yes}),
		"glance-db-sync-x":   pod("glance-db-sync-x", &metav1.OwnerReference{Kind: "Job", Name: "glance-db-sync", Controller: &yes}),
		"glance-x-y":         pod("glance-x-y", &metav1.OwnerReference{Kind: "ReplicaSet", Name: "glance-x", Controller: nil}),
		"glance-bare":        pod("glance-bare", nil),
		"glancex-1-a":        pod("glancex-1-a", &metav1.OwnerReference{Kind: "ReplicaSet", Name: "glancex-1", Controller: &yes}),
	}}
	observed, err := observe.ReadPods(related, "glance")
	require.NoError(t, err)
	var got []string
	for _, p := range observed.Rollout {
		got = append(got, p.Name)
		assert.Empty(t, p.Spec.Containers, "the spec is not read")
	}
	assert.Equal(t, []string{"glance-5f4d-a", "glance-7c9d8f6b5-b"}, got,
		"the pods a ReplicaSet of the Deployment controls, old and new, in name order; not a Job's, not a bare pod, not another Deployment's")

	related[names.PodsKey]["glance-broken"] = json.RawMessage(`{"metadata": {"name": "glance-broken"}, "status": {"phase": 7}}`)
	_, err = observe.ReadPods(related, "glance")
	require.Error(t, err)
	assert.True(t, hook.IsInputError(err))
	assert.Contains(t, err.Error(), `"glance-broken"`)
}

func TestRolloutPods(t *testing.T) {
	seconds := func(n int32) *int32 { return &n }
	configError := func(t *testing.T, age time.Duration) []corev1.Pod {
		return []corev1.Pod{kubeletPod(t, "p", age, "create-container-config-error")}
	}
	notReady := func(t *testing.T, age time.Duration) []corev1.Pod {
		return []corev1.Pod{kubeletPod(t, "p", age, "running-not-ready")}
	}
	type want struct {
		reason, message string
		resync          int
	}
	cases := map[string]struct {
		reason     string
		deployment appsv1.Deployment
		pods       []corev1.Pod
		want       want
	}{
		"DefaultDeadline": {
			reason: "without progressDeadlineSeconds the Deployment's default of 600 s holds; a resync when it passes",
			pods:   notReady(t, 4*time.Minute),
			want:   want{resync: 360},
		},
		"OwnDeadline": {
			reason:     "the Deployment's progressDeadlineSeconds is the pods' deadline",
			deployment: appsv1.Deployment{Spec: appsv1.DeploymentSpec{ProgressDeadlineSeconds: seconds(120)}},
			pods:       notReady(t, 4*time.Minute),
			want:       want{reason: model.ReasonPodsNotReady, message: `1 of 1 pod is not ready: pod "p" container "glance-api" runs but is not ready within the deadline`},
		},
		"ResyncRoundsUp": {
			reason:     "a resync never comes before the deadline",
			deployment: appsv1.Deployment{Spec: appsv1.DeploymentSpec{ProgressDeadlineSeconds: seconds(120)}},
			pods:       notReady(t, 90*time.Second+time.Millisecond),
			want:       want{resync: 30},
		},
		"ProgressDeadlineExceeded": {
			reason: "the Deployment controller's verdict counts for every pod",
			deployment: appsv1.Deployment{Status: appsv1.DeploymentStatus{Conditions: []appsv1.DeploymentCondition{{
				Type: appsv1.DeploymentProgressing, Status: corev1.ConditionFalse, Reason: "ProgressDeadlineExceeded",
				Message: `ReplicaSet "glance-7c9d8f6b5" has timed out progressing.`}}}},
			pods: notReady(t, time.Minute),
			want: want{reason: model.ReasonPodsNotReady, message: `1 of 1 pod is not ready: pod "p" container "glance-api" runs but is not ready within the deadline`},
		},
		"StillProgressing": {
			reason: "Progressing True (ReplicaSetUpdated) is no verdict",
			deployment: appsv1.Deployment{Status: appsv1.DeploymentStatus{Conditions: []appsv1.DeploymentCondition{{
				Type: appsv1.DeploymentProgressing, Status: corev1.ConditionTrue, Reason: "ReplicaSetUpdated"}}}},
			pods: notReady(t, time.Minute),
			want: want{resync: 540},
		},
		"ReplicaFailure": {
			reason: "pods the ReplicaSet cannot create: the API server's refusal comes first, what existing pods show after it",
			deployment: appsv1.Deployment{Status: appsv1.DeploymentStatus{Conditions: []appsv1.DeploymentCondition{{
				Type: appsv1.DeploymentReplicaFailure, Status: corev1.ConditionTrue, Reason: "FailedCreate",
				Message: `pods "glance-7c9d8f6b5-x2x4k" is forbidden: exceeded quota: compute, requested: limits.memory=1Gi, used: limits.memory=4Gi, limited: limits.memory=4Gi`}}}},
			pods: configError(t, time.Minute),
			want: want{reason: model.ReasonPodsNotCreated, message: `pods cannot be created: "pods \"glance-7c9d8f6b5-x2x4k\" is forbidden: exceeded quota: compute, requested: limits.memory=1Gi, used: limits.memory=4Gi, limited: limits.memory=4Gi"; ` +
				`1 of 1 pod cannot start: pod "p" container "glance-api": CreateContainerConfigError: "couldn't find key password in Secret openstack/glance-service-user"`},
		},
		"ReplicaFailureNoPods": {
			reason: "no pod at all: the refusal alone",
			deployment: appsv1.Deployment{Status: appsv1.DeploymentStatus{Conditions: []appsv1.DeploymentCondition{{
				Type: appsv1.DeploymentReplicaFailure, Status: corev1.ConditionTrue, Reason: "FailedCreate", Message: "m"}}}},
			want: want{reason: model.ReasonPodsNotCreated, message: `pods cannot be created: "m"`},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			v := report.RolloutPods(&tc.deployment, tc.pods, podsNow)
			got := want{reason: v.Reason, message: v.Message, resync: report.ResyncAfter(v)}
			if diff := cmp.Diff(tc.want, got, cmp.AllowUnexported(want{})); diff != "" {
				t.Errorf("%s\n-want +got:\n%s", tc.reason, diff)
			}
		})
	}
}

func TestExplainRollout(t *testing.T) {
	rolling := hook.Condition{Type: model.CondDeploymentReady, Reason: model.ReasonWaitingForDeployment, Message: "1 of 1 replicas are updated to the current config, 0 available"}
	crash := report.PodsVerdict{Reason: model.ReasonPodsCrashLooping, Message: "1 of 1 pod is crash-looping: ..."}
	assert.Equal(t, hook.Condition{Type: model.CondDeploymentReady, Reason: model.ReasonPodsCrashLooping,
		Message: "1 of 1 replicas are updated to the current config, 0 available; 1 of 1 pod is crash-looping: ..."}, report.ExplainRollout(rolling, crash))
	assert.Equal(t, rolling, report.ExplainRollout(rolling, report.PodsVerdict{Recheck: time.Minute}), "no problem (yet): WaitingForDeployment stays")
	missing := hook.Condition{Type: model.CondDeploymentReady, Reason: model.ReasonDeploymentMissing, Message: "m"}
	assert.Equal(t, missing, report.ExplainRollout(missing, crash), "only a rollout is explained")
	available := hook.Condition{Type: model.CondDeploymentReady, Status: true, Reason: model.ReasonDeploymentReady, Message: "m"}
	assert.Equal(t, available, report.ExplainRollout(available, crash))
}

// The customize hook asks for the pods sync reads: glance-api's and the
// schema Jobs', not the purge CronJob's, which carry the same name and
// instance.
func TestPodsRelatedSelectsWhatSyncReads(t *testing.T) {
	g := &api.Glance{}
	g.Name, g.Namespace = "glance", "openstack"
	sel, err := metav1.LabelSelectorAsSelector(observe.PodsRelated(g).LabelSelector)
	require.NoError(t, err)
	pod := func(component string) labels.Set {
		return labels.Set{names.LabelName: "glance", names.LabelInstance: "glance", names.LabelComponent: component}
	}
	assert.True(t, sel.Matches(labels.Set(model.SelectorLabels(g))), "glance-api's pods")
	assert.True(t, sel.Matches(pod(model.ComponentSchema)), "the schema Jobs' pods")
	assert.False(t, sel.Matches(pod(componentDBPurge)), "not the purge Jobs' pods")
	assert.False(t, sel.Matches(labels.Set{names.LabelName: "glance", names.LabelInstance: "other", names.LabelComponent: model.ComponentAPI}), "not another Glance's")
}
