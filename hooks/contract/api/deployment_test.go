package api

import (
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
)

// TestDeploymentPart: the deployment part's rules on the filled-in block,
// the reference's minimum of one replica and its requests not above their
// limits among them, in the words both gates give.
func TestDeploymentPart(t *testing.T) {
	n := func(v int32) *int32 { return &v }
	q := resource.MustParse
	cases := map[string]struct {
		reason string
		in     *DeploymentSpec
		want   string
	}{
		"Unset": {
			reason: "one replica and the default resources pass",
		},
		"NoReplicas": {
			reason: "the reference's minimum: a Glance runs at least one glance-api pod",
			in:     &DeploymentSpec{Replicas: n(0)},
			want:   "deployment.replicas: replicas must be at least 1",
		},
		"NegativeReplicas": {
			reason: "the same rule, the same words",
			in:     &DeploymentSpec{Replicas: n(-1)},
			want:   "deployment.replicas: replicas must be at least 1",
		},
		"RequestsAtTheirLimits": {
			reason: "equal quantities in other units, and a request with no limit, pass",
			in: &DeploymentSpec{Resources: &corev1.ResourceRequirements{
				Requests: corev1.ResourceList{corev1.ResourceCPU: q("1"), corev1.ResourceMemory: q("1024Mi"), corev1.ResourceEphemeralStorage: q("5Gi")},
				Limits:   corev1.ResourceList{corev1.ResourceCPU: q("1000m"), corev1.ResourceMemory: q("1Gi")},
			}},
		},
		"RequestsAboveTheirLimits": {
			reason: "each in name order, the limit named; a name a message must not carry is escaped",
			in: &DeploymentSpec{Resources: &corev1.ResourceRequirements{
				Requests: corev1.ResourceList{corev1.ResourceMemory: q("2Gi"), corev1.ResourceCPU: q("1001m"), "x\ny": q("2")},
				Limits:   corev1.ResourceList{corev1.ResourceMemory: q("1Gi"), corev1.ResourceCPU: q("1"), "x\ny": q("1")},
			}},
			want: "deployment.resources.requests.cpu: cpu request must not exceed limit (1); " +
				"deployment.resources.requests.memory: memory request must not exceed limit (1Gi); " +
				`deployment.resources.requests.x\ny: x\ny request must not exceed limit (1)`,
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			s := GlanceSpec{Deployment: tc.in}
			deploymentDefault(&s, "openstack")
			if got := deploymentRules(s).String(); got != tc.want {
				t.Errorf("%s\nwant %q\n got %q", tc.reason, tc.want, got)
			}
		})
	}
}
