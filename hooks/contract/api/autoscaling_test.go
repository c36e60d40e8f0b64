package api

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestAutoscalingPart: the autoscaling part's defaults fill only a set
// block, and its rules hold the bounds on the block as written, in the
// words both gates give, the reference's. The minimum defaults to the
// replicas, as there.
func TestAutoscalingPart(t *testing.T) {
	n := func(v int32) *int32 { return &v }
	type want struct {
		Autoscaling *AutoscalingSpec
		Problems    string
	}
	cases := map[string]struct {
		reason   string
		in       *AutoscalingSpec
		replicas *int32
		want     want
	}{
		"Unset": {
			reason: "no autoscaler: nothing filled in, nothing to check",
			want:   want{},
		},
		"MaximumOnly": {
			reason: "the minimum the replicas' default, 3, and, with no target named, CPU at 80%",
			in:     &AutoscalingSpec{MaxReplicas: 4},
			want:   want{Autoscaling: &AutoscalingSpec{MinReplicas: n(3), MaxReplicas: 4, TargetCPUUtilization: n(80)}},
		},
		"MinimumFollowsReplicas": {
			reason:   "the minimum is the replicas written",
			in:       &AutoscalingSpec{MaxReplicas: 4},
			replicas: n(2),
			want:     want{Autoscaling: &AutoscalingSpec{MinReplicas: n(2), MaxReplicas: 4, TargetCPUUtilization: n(80)}},
		},
		"MemoryTarget": {
			reason: "a memory target is a target: no CPU target is added",
			in:     &AutoscalingSpec{MaxReplicas: 4, TargetMemoryUtilization: n(70)},
			want:   want{Autoscaling: &AutoscalingSpec{MinReplicas: n(3), MaxReplicas: 4, TargetMemoryUtilization: n(70)}},
		},
		"MaximumBelowDefaultMinimum": {
			reason: "the CRD compares only a set minimum; the default one, the replicas, is checked here, in the reference's words",
			in:     &AutoscalingSpec{MaxReplicas: 2},
			want: want{Autoscaling: &AutoscalingSpec{MinReplicas: n(3), MaxReplicas: 2, TargetCPUUtilization: n(80)},
				Problems: "autoscaling.maxReplicas: maxReplicas must be >= spec.deployment.replicas (3) when minReplicas is not set, because minReplicas defaults to spec.deployment.replicas"},
		},
		"MaximumBelowReplicasWritten": {
			reason:   "the replicas written are the minimum's default",
			in:       &AutoscalingSpec{MaxReplicas: 4},
			replicas: n(5),
			want: want{Autoscaling: &AutoscalingSpec{MinReplicas: n(5), MaxReplicas: 4, TargetCPUUtilization: n(80)},
				Problems: "autoscaling.maxReplicas: maxReplicas must be >= spec.deployment.replicas (5) when minReplicas is not set, because minReplicas defaults to spec.deployment.replicas"},
		},
		"MinimumAboveMaximum": {
			reason: "a set minimum above the maximum, in the reference's words",
			in:     &AutoscalingSpec{MinReplicas: n(4), MaxReplicas: 3},
			want: want{Autoscaling: &AutoscalingSpec{MinReplicas: n(4), MaxReplicas: 3, TargetCPUUtilization: n(80)},
				Problems: "autoscaling.minReplicas: minReplicas must not exceed maxReplicas"},
		},
		"SetMinimumOfOne": {
			reason: "a minimum of 1 written by hand lets the maximum be 1",
			in:     &AutoscalingSpec{MinReplicas: n(1), MaxReplicas: 1},
			want:   want{Autoscaling: &AutoscalingSpec{MinReplicas: n(1), MaxReplicas: 1, TargetCPUUtilization: n(80)}},
		},
		"NoMaximum": {
			reason: "a maximum of 0, in the reference's words, and a set minimum above it",
			in:     &AutoscalingSpec{MinReplicas: n(1)},
			want: want{Autoscaling: &AutoscalingSpec{MinReplicas: n(1), TargetCPUUtilization: n(80)},
				Problems: "autoscaling.maxReplicas: maxReplicas must be at least 1; autoscaling.minReplicas: minReplicas must not exceed maxReplicas"},
		},
		"Bounds": {
			reason: "a minimum of 0 and targets outside 1..100, each said",
			in:     &AutoscalingSpec{MinReplicas: n(0), MaxReplicas: 3, TargetCPUUtilization: n(0), TargetMemoryUtilization: n(101)},
			want: want{Autoscaling: &AutoscalingSpec{MinReplicas: n(0), MaxReplicas: 3, TargetCPUUtilization: n(0), TargetMemoryUtilization: n(101)},
				Problems: "autoscaling.minReplicas: minReplicas must be at least 1; " +
					"autoscaling.targetCPUUtilization: targetCPUUtilization must be between 1 and 100; " +
					"autoscaling.targetMemoryUtilization: targetMemoryUtilization must be between 1 and 100"},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			written := GlanceSpec{Autoscaling: tc.in}
			if tc.replicas != nil {
				written.Deployment = &DeploymentSpec{Replicas: tc.replicas}
			}
			s := written
			autoscalingDefault(&s, "openstack")
			got := want{Autoscaling: s.Autoscaling, Problems: autoscalingProblems(written).String()}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("%s\n-want, +got:\n%s", tc.reason, diff)
			}
		})
	}
}
