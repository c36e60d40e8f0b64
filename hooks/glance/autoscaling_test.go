package glance

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/c5c3/glance-hooks/hooks/contract/api"
	"github.com/c5c3/glance-hooks/hooks/contract/metacontroller"
	"github.com/c5c3/glance-hooks/hooks/contract/names"
	"github.com/c5c3/glance-hooks/hooks/glance/model"
	"github.com/c5c3/glance-hooks/hooks/glance/observe"
	"github.com/c5c3/glance-hooks/hooks/glance/render"
)

// TestAutoscalerWithDeployment: the autoscaler comes with the Deployment
// only when spec.autoscaling is set, scales that Deployment between the
// spec's bounds, and watches each resource a target is set for.
func TestAutoscalerWithDeployment(t *testing.T) {
	type want struct {
		Scalers  int
		Target   string
		Min, Max int32
		// Metrics are the watched resources and their targets.
		Metrics map[string]int32
	}
	cases := map[string]struct {
		reason      string
		autoscaling *api.AutoscalingSpec
		want        want
	}{
		"Unset": {
			reason: "without spec.autoscaling there is no autoscaler: the replicas are the spec's",
			want:   want{},
		},
		"Defaults": {
			reason:      "only the maximum named: the minimum the replicas (default 3), and CPU at 80%",
			autoscaling: &api.AutoscalingSpec{MaxReplicas: 5},
			want:        want{Scalers: 1, Target: "Deployment/glance", Min: 3, Max: 5, Metrics: map[string]int32{"cpu": 80}},
		},
		"MemoryOnly": {
			reason:      "a memory target alone: no CPU target is added",
			autoscaling: &api.AutoscalingSpec{MinReplicas: ptr(int32(3)), MaxReplicas: 6, TargetMemoryUtilization: ptr(int32(70))},
			want:        want{Scalers: 1, Target: "Deployment/glance", Min: 3, Max: 6, Metrics: map[string]int32{"memory": 70}},
		},
		"Both": {
			reason:      "both targets: both resources watched",
			autoscaling: &api.AutoscalingSpec{MaxReplicas: 4, TargetCPUUtilization: ptr(int32(60)), TargetMemoryUtilization: ptr(int32(90))},
			want:        want{Scalers: 1, Target: "Deployment/glance", Min: 3, Max: 4, Metrics: map[string]int32{"cpu": 60, "memory": 90}},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			g := &api.Glance{}
			g.Name, g.Namespace = "glance", "openstack"
			spec := testSpec(func(s *api.GlanceSpec) { s.Autoscaling = tc.autoscaling })
			children := autoscalerWithDeployment(render.DeploymentInput{Glance: g, Spec: spec})
			got := want{Scalers: len(children)}
			for _, c := range children {
				hpa := c.(*horizontalPodAutoscalerChild)
				ref := hpa.Spec.ScaleTargetRef
				got.Target, got.Min, got.Max = ref.Kind+"/"+ref.Name, *hpa.Spec.MinReplicas, hpa.Spec.MaxReplicas
				got.Metrics = map[string]int32{}
				for _, m := range hpa.Spec.Metrics {
					got.Metrics[string(m.Resource.Name)] = *m.Resource.Target.AverageUtilization
				}
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("%s\n-want, +got:\n%s", tc.reason, diff)
			}
		})
	}
}

// TestHPAReady: HPAReady says whether the answer holds the autoscaler
// spec.autoscaling asks for, and is True under HPANotRequired without it.
func TestHPAReady(t *testing.T) {
	scaler := &api.AutoscalingSpec{MinReplicas: ptr(int32(2)), MaxReplicas: 4, TargetCPUUtilization: ptr(int32(80))}
	type want struct {
		Status bool
		Reason string
	}
	cases := map[string]struct {
		reason      string
		autoscaling *api.AutoscalingSpec
		rendered    bool // the config is re-rendered now
		returned    bool // the answer holds the autoscaler
		observed    bool // the request holds it
		want        want
	}{
		"NotRequired":     {"no autoscaling asked for", nil, true, false, false, want{true, model.ReasonHPANotRequired}},
		"Returned":        {"returned with the Deployment", scaler, true, true, false, want{true, model.ReasonHPAReady}},
		"KeptAsApplied":   {"nothing re-rendered: the observed one is kept as last applied", scaler, false, false, true, want{true, model.ReasonHPAReady}},
		"WaitingFirst":    {"the Deployment waits for the schema, and no autoscaler exists yet", scaler, true, false, false, want{false, model.ReasonWaitingForDeployment}},
		"ObservedNotKept": {"re-rendered without the Deployment: an observed autoscaler is not returned", scaler, true, false, true, want{false, model.ReasonWaitingForDeployment}},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			in := referenceStatus()
			in.Observed.Spec.Autoscaling = tc.autoscaling
			in.Observed.AutoscalerObserved = tc.observed
			in.Out.Rendered.Status = tc.rendered
			if tc.returned {
				in.Out.Children = append(in.Out.Children, horizontalPodAutoscaler(in.Observed.Glance, *tc.autoscaling))
			}
			c, err := hpaReady(in)
			require.NoError(t, err)
			if diff := cmp.Diff(tc.want, want{c.Status, c.Reason}); diff != "" {
				t.Errorf("%s\n-want, +got:\n%s", tc.reason, diff)
			}
		})
	}
}

// TestObserveAutoscaler: the observation is whether the Glance's own
// autoscaler is among the children, by its name.
func TestObserveAutoscaler(t *testing.T) {
	cases := map[string]struct {
		reason   string
		children metacontroller.ObjectMap
		want     bool
	}{
		"None":   {"no autoscaler child", metacontroller.ObjectMap{}, false},
		"Own":    {"the Glance's autoscaler", metacontroller.ObjectMap{names.HorizontalPodAutoscalersKey: {"glance": []byte(`{}`)}}, true},
		"Others": {"an autoscaler of another name is not the Glance's", metacontroller.ObjectMap{names.HorizontalPodAutoscalersKey: {"other": []byte(`{}`)}}, false},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			o := &observe.Observed{Glance: &api.Glance{}}
			o.Glance.Name = "glance"
			require.NoError(t, observeAutoscaler(o, tc.children))
			assert.Equal(t, tc.want, o.AutoscalerObserved, tc.reason)
		})
	}
}
