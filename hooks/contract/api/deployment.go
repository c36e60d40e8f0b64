package api

import (
	"maps"
	"slices"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/c5c3/glance-hooks/hooks/contract/excerpt"
	"github.com/c5c3/glance-hooks/hooks/contract/problem"
)

// The deployment's part of a Glance spec (spec.deployment): its defaults
// and its rules. Its type, DeploymentSpec, stays in glance.go: a
// ControlPlane's services.glance carries it too. Its behaviour
// (DeploymentReady) is the report stage.

// DefaultReplicas is the glance-api pods a Glance runs when it sets none.
const DefaultReplicas = int32(3)

// The glance-api container's requests and memory limit when a Glance sets
// none.
var (
	DefaultCPURequest    = resource.MustParse("100m")
	DefaultMemoryRequest = resource.MustParse("512Mi")
	DefaultMemoryLimit   = resource.MustParse("1Gi")
)

// DefaultResources are the glance-api container's requests and limits when
// a Glance sets none: requests so the scheduler and an autoscaler can count
// them, a memory limit, and no CPU limit (throttling a busy upload helps no
// one).
func DefaultResources() corev1.ResourceRequirements {
	return corev1.ResourceRequirements{
		Requests: corev1.ResourceList{corev1.ResourceCPU: DefaultCPURequest, corev1.ResourceMemory: DefaultMemoryRequest},
		Limits:   corev1.ResourceList{corev1.ResourceMemory: DefaultMemoryLimit},
	}
}

// ReplicasOf is deployment.replicas, resolved: as written, else the
// default.
func ReplicasOf(d *DeploymentSpec) int32 {
	if d != nil && d.Replicas != nil {
		return *d.Replicas
	}
	return DefaultReplicas
}

func deploymentDefault(s *GlanceSpec, _ string) { s.Deployment = deploymentWithDefaults(s.Deployment) }

func deploymentWithDefaults(in *DeploymentSpec) *DeploymentSpec {
	dep := DeploymentSpec{}
	if in != nil {
		dep = *in
	}
	if dep.Replicas == nil {
		r := DefaultReplicas
		dep.Replicas = &r
	}
	if dep.Resources == nil {
		r := DefaultResources()
		dep.Resources = &r
	}
	return &dep
}

// deploymentRules are the part's rules, on a spec with its defaults.
func deploymentRules(s GlanceSpec) problem.List { return deploymentProblems(*s.Deployment) }

// minGraceSeconds is the shortest grace period a pod may have, as in the
// reference: glance-api needs a few seconds to answer what it has taken.
const minGraceSeconds = 10

// deploymentProblems checks spec.deployment with the defaults filled in.
func deploymentProblems(d DeploymentSpec) problem.List {
	var l problem.List
	at := field.NewPath("deployment")
	if *d.Replicas < 1 {
		l = append(l, problem.At(at.Child("replicas"), "replicas must be at least 1"))
	}
	l = append(l, resourceProblems(at.Child("resources"), d.Resources)...)
	grace := d.GraceSeconds()
	if d.TerminationGracePeriodSeconds != nil && grace < minGraceSeconds {
		l = append(l, problem.At(at.Child("terminationGracePeriodSeconds"), "terminationGracePeriodSeconds must be at least %d", minGraceSeconds))
	}
	if p := d.PreStopSleepSeconds; p != nil {
		switch {
		case *p < 0:
			l = append(l, problem.At(at.Child("preStopSleepSeconds"), "preStopSleepSeconds must be non-negative"))
		case *p >= grace:
			l = append(l, problem.At(at.Child("preStopSleepSeconds"),
				"preStopSleepSeconds (%d) must be strictly less than terminationGracePeriodSeconds (%d)", *p, grace))
		}
	}
	if st := d.Strategy; st != nil {
		switch st.Type {
		case "", appsv1.RollingUpdateDeploymentStrategyType:
		case appsv1.RecreateDeploymentStrategyType:
			if st.RollingUpdate != nil {
				l = append(l, problem.At(at.Child("strategy", "rollingUpdate"), "rollingUpdate must not be set when strategy.type is Recreate"))
			}
		default:
			l = append(l, problem.Invalid(at.Child("strategy", "type"), "must be RollingUpdate or Recreate"))
		}
	}
	return l
}

// resourceProblems refuses a request above its limit, as the reference
// does and as the API server does in the Deployment's pod template, where
// every apply of the Deployment would fail. The resources are in name order,
// so the problems are too.
func resourceProblems(at *field.Path, r *corev1.ResourceRequirements) problem.List {
	if r == nil {
		return nil
	}
	var l problem.List
	for _, name := range slices.Sorted(maps.Keys(r.Requests)) {
		limit, limited := r.Limits[name]
		if request := r.Requests[name]; limited && request.Cmp(limit) > 0 {
			shown := excerpt.Bare(string(name))
			l = append(l, problem.At(at.Child("requests", shown), "%s request must not exceed limit (%s)", shown, limit.String()))
		}
	}
	return l
}

// GraceSeconds is the pods' grace period.
func (d DeploymentSpec) GraceSeconds() int64 {
	if d.TerminationGracePeriodSeconds != nil {
		return *d.TerminationGracePeriodSeconds
	}
	return DefaultTerminationGraceSeconds
}
