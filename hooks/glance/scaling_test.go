package glance

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	appsv1 "k8s.io/api/apps/v1"

	"github.com/c5c3/glance-hooks/hooks/contract/api"
)

func ptr[T any](v T) *T { return &v }

func TestDesiredReplicasAndDisruptionBudget(t *testing.T) {
	observed := func(n int32) *appsv1.Deployment {
		d := &appsv1.Deployment{}
		d.Spec.Replicas = &n
		return d
	}
	type want struct {
		Replicas *int32
		Budget   bool
		Scaler   bool
	}
	cases := map[string]struct {
		reason  string
		spec    api.GlanceSpec
		current *appsv1.Deployment
		want    want
	}{
		"OneReplica": {
			reason: "one pod: no budget, which would only say it may go",
			spec:   api.GlanceSpec{Deployment: &api.DeploymentSpec{Replicas: ptr(int32(1))}},
			want:   want{Replicas: ptr(int32(1))},
		},
		"ThreeReplicas": {
			reason: "several pods: a budget lets a drain take one at a time",
			spec:   api.GlanceSpec{Deployment: &api.DeploymentSpec{Replicas: ptr(int32(3))}}, current: observed(3),
			want: want{Replicas: ptr(int32(3)), Budget: true},
		},
		"AutoscaledFirstInstall": {
			reason: "with an autoscaler and no Deployment yet, its minimum",
			spec:   api.GlanceSpec{Deployment: &api.DeploymentSpec{Replicas: ptr(int32(1))}, Autoscaling: &api.AutoscalingSpec{MinReplicas: ptr(int32(2)), MaxReplicas: 5, TargetCPUUtilization: ptr(int32(80))}},
			want:   want{Replicas: ptr(int32(2)), Budget: true, Scaler: true},
		},
		"AutoscaledKeepsWhatItObserves": {
			reason:  "the autoscaler set 4: the hook returns 4, neither the spec's replicas nor nothing (InPlace apply would drop the field and the API server default it to 1)",
			spec:    api.GlanceSpec{Deployment: &api.DeploymentSpec{Replicas: ptr(int32(1))}, Autoscaling: &api.AutoscalingSpec{MinReplicas: ptr(int32(2)), MaxReplicas: 5, TargetCPUUtilization: ptr(int32(80))}},
			current: observed(4),
			want:    want{Replicas: ptr(int32(4)), Budget: true, Scaler: true},
		},
		"AutoscaledToOne": {
			reason: "an autoscaler that may only run one pod needs no budget",
			spec:   api.GlanceSpec{Autoscaling: &api.AutoscalingSpec{MinReplicas: ptr(int32(1)), MaxReplicas: 1, TargetCPUUtilization: ptr(int32(80))}},
			want:   want{Replicas: ptr(int32(1)), Scaler: true},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			g := &api.Glance{}
			g.Name, g.Namespace = "glance", "openstack"
			got := want{Replicas: desiredReplicas(tc.spec, tc.current)}
			for _, c := range scalingChildren(g, tc.spec) {
				switch c := c.(type) {
				case *podDisruptionBudgetChild:
					got.Budget = c.Spec.MaxUnavailable != nil && c.Spec.MaxUnavailable.IntValue() == 1
				case *horizontalPodAutoscalerChild:
					got.Scaler = c.Spec.ScaleTargetRef.Name == "glance" && c.Spec.MaxReplicas == tc.spec.Autoscaling.MaxReplicas
				}
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("%s\n-want, +got:\n%s", tc.reason, diff)
			}
		})
	}
}
