package glance

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	appsv1 "k8s.io/api/apps/v1"
	policyv1 "k8s.io/api/policy/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"

	"github.com/c5c3/glance-hooks/hooks/contract/api"
	"github.com/c5c3/glance-hooks/hooks/contract/names"
	"github.com/c5c3/glance-hooks/hooks/glance/decide"
	"github.com/c5c3/glance-hooks/hooks/glance/model"
	"github.com/c5c3/glance-hooks/hooks/glance/render"
)

func ptr[T any](v T) *T { return &v }

func TestDesiredReplicasAndDisruptionBudget(t *testing.T) {
	observed := func(n int32) *appsv1.Deployment {
		d := &appsv1.Deployment{}
		d.Spec.Replicas = &n
		return d
	}
	scaler := func(minReplicas, maxReplicas int32) *api.AutoscalingSpec {
		return &api.AutoscalingSpec{MinReplicas: ptr(minReplicas), MaxReplicas: maxReplicas, TargetCPUUtilization: ptr(int32(80))}
	}
	replicas := func(n int32) *api.DeploymentSpec { return &api.DeploymentSpec{Replicas: ptr(n)} }
	type want struct {
		Replicas *int32
		// Budget is the PodDisruptionBudget's one bound, as
		// "minAvailable=1" or "maxUnavailable=1".
		Budget string
	}
	cases := map[string]struct {
		reason  string
		spec    api.GlanceSpec
		current *appsv1.Deployment
		want    want
	}{
		"Defaults": {
			reason: "no replicas set: the reference's three pods, and its budget for several",
			spec:   api.GlanceSpec{}.WithDefaults("openstack"),
			want:   want{Replicas: ptr(int32(3)), Budget: "minAvailable=1"},
		},
		"OneReplica": {
			reason: "one pod: maxUnavailable 1, since minAvailable 1 would refuse every eviction",
			spec:   api.GlanceSpec{Deployment: replicas(1)},
			want:   want{Replicas: ptr(int32(1)), Budget: "maxUnavailable=1"},
		},
		"TwoReplicas": {
			reason: "from two pods on a drain must leave one serving",
			spec:   api.GlanceSpec{Deployment: replicas(2)},
			want:   want{Replicas: ptr(int32(2)), Budget: "minAvailable=1"},
		},
		"ThreeReplicas": {
			reason: "several pods: minAvailable 1",
			spec:   api.GlanceSpec{Deployment: replicas(3)}, current: observed(3),
			want: want{Replicas: ptr(int32(3)), Budget: "minAvailable=1"},
		},
		"AutoscaledFirstInstall": {
			reason: "with an autoscaler and no Deployment yet, its minimum; a minimum of two keeps one serving",
			spec:   api.GlanceSpec{Deployment: replicas(1), Autoscaling: scaler(2, 5)},
			want:   want{Replicas: ptr(int32(2)), Budget: "minAvailable=1"},
		},
		"AutoscaledKeepsWhatItObserves": {
			reason:  "the autoscaler set 4: the hook returns 4, neither the spec's replicas nor nothing (InPlace apply would drop the field and the API server default it to 1)",
			spec:    api.GlanceSpec{Deployment: replicas(1), Autoscaling: scaler(2, 5)},
			current: observed(4),
			want:    want{Replicas: ptr(int32(4)), Budget: "minAvailable=1"},
		},
		"AutoscaledDownToOne": {
			reason:  "the autoscaler may scale down to one pod: the budget follows its minimum, not the unused replicas, so a drain is never held",
			spec:    api.GlanceSpec{Deployment: replicas(3), Autoscaling: scaler(1, 5)},
			current: observed(3),
			want:    want{Replicas: ptr(int32(3)), Budget: "maxUnavailable=1"},
		},
		"AutoscaledToOne": {
			reason: "an autoscaler that may only run one pod: the one-pod budget",
			spec:   api.GlanceSpec{Autoscaling: scaler(1, 1)},
			want:   want{Replicas: ptr(int32(1)), Budget: "maxUnavailable=1"},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			g := &api.Glance{}
			g.Name, g.Namespace = "glance", "openstack"
			got := want{Replicas: render.DesiredReplicas(tc.spec, tc.current)}
			children := disruptionBudgetWithDeployment(render.DeploymentInput{Glance: g, Spec: tc.spec})
			require.Len(t, children, 1, "one budget, with or without an autoscaler")
			got.Budget = budgetOf(t, children[0].(*podDisruptionBudgetChild).Spec)
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("%s\n-want, +got:\n%s", tc.reason, diff)
			}
		})
	}
}

// budgetOf is a budget's one bound; a budget with both or neither fails.
func budgetOf(t *testing.T, s policyv1.PodDisruptionBudgetSpec) string {
	t.Helper()
	switch {
	case s.MinAvailable != nil && s.MaxUnavailable == nil:
		return "minAvailable=" + s.MinAvailable.String()
	case s.MaxUnavailable != nil && s.MinAvailable == nil:
		return "maxUnavailable=" + s.MaxUnavailable.String()
	}
	t.Fatalf("a budget sets exactly one of minAvailable and maxUnavailable: %+v", s)
	return ""
}

// TestDisruptionBudgetCountsOnlyGlanceAPI: the budget selects glance-api's
// pods and neither the purge's nor the schema Jobs' pods, which are Ready
// without a probe and, counted, would let a drain take the last glance-api
// pod.
func TestDisruptionBudgetCountsOnlyGlanceAPI(t *testing.T) {
	g := &api.Glance{}
	g.Name, g.Namespace = "glance", "openstack"
	spec := testSpec(func(s *api.GlanceSpec) { s.Deployment = &api.DeploymentSpec{Replicas: ptr(int32(2))} })
	sel, err := metav1.LabelSelectorAsSelector(podDisruptionBudget(g, spec).Spec.Selector)
	require.NoError(t, err)
	cases := map[string]struct {
		reason string
		labels map[string]string
		want   bool
	}{
		"api":      {"glance-api's pods are what the budget keeps", render.Deployment(g, spec, decide.RunTarget{Image: "i"}, render.PodInputs{}, ptr(int32(2))).Spec.Template.Labels, true},
		"db-purge": {"a purge run's pod is not glance-api", dbPurgeChildren(g, spec, decide.RunTarget{Image: "i"}, render.PodInputs{})[0].(*cronJobChild).Spec.JobTemplate.Spec.Template.Labels, false},
		"schema":   {"a schema Job's pod is not glance-api", map[string]string{names.LabelName: "glance", names.LabelInstance: "glance", names.LabelComponent: model.ComponentSchema}, false},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			assert.Equal(t, tc.want, sel.Matches(labels.Set(tc.labels)), tc.reason)
		})
	}
}
