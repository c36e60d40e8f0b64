package api

import (
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/c5c3/glance-hooks/hooks/contract/problem"
)

// The autoscaling feature's part of a Glance spec (spec.autoscaling, the
// reference's HorizontalPodAutoscaler): its type, its defaults and its
// rules. Its behaviour (the autoscaler child, HPAReady) is
// hooks/glance/autoscaling.go. Its CRD lines are generated from the type:
// the field comments are the descriptions kubectl explain shows, the
// +kubebuilder markers the bounds the API server holds alone (make
// crd-schemas writes them under spec.autoscaling of the Glance CRD and
// spec.services.glance.autoscaling of the ControlPlane CRD).

// AutoscalingSpec is the HorizontalPodAutoscaler of the glance-api pods.
//
// +kubebuilder:validation:XValidation:rule="!has(self.minReplicas) || self.minReplicas <= self.maxReplicas",message="minReplicas must not exceed maxReplicas"
type AutoscalingSpec struct {
	// Fewest pods; default deployment.replicas, as the reference's.
	// +kubebuilder:validation:Minimum=1
	MinReplicas *int32 `json:"minReplicas,omitempty"`
	// Most pods.
	// +kubebuilder:validation:Minimum=1
	// +kubebuilder:validation:Maximum=100
	MaxReplicas int32 `json:"maxReplicas"`
	// Average CPU use the autoscaler keeps, in percent of the CPU request; 80 when neither target is set.
	// +kubebuilder:validation:Minimum=1
	// +kubebuilder:validation:Maximum=100
	TargetCPUUtilization *int32 `json:"targetCPUUtilization,omitempty"`
	// Average memory use the autoscaler keeps, in percent of the memory request.
	// +kubebuilder:validation:Minimum=1
	// +kubebuilder:validation:Maximum=100
	TargetMemoryUtilization *int32 `json:"targetMemoryUtilization,omitempty"`
}

const (
	// DefaultTargetCPUUtilization is the CPU use, in percent of the
	// request, the autoscaler keeps when no target is named.
	DefaultTargetCPUUtilization = int32(80)
)

// autoscalingDefault fills a set autoscaling block; unset, there is no
// autoscaler.
func autoscalingDefault(s *GlanceSpec, _ string) {
	if s.Autoscaling != nil {
		s.Autoscaling = autoscalingWithDefaults(*s.Autoscaling, ReplicasOf(s.Deployment))
	}
}

// autoscalingWithDefaults keeps at least the pods the Deployment runs
// without an autoscaler (replicas), as the reference does, and targets CPU
// only when no utilization target is named at all.
func autoscalingWithDefaults(a AutoscalingSpec, replicas int32) *AutoscalingSpec {
	if a.MinReplicas == nil {
		a.MinReplicas = &replicas
	}
	if a.TargetCPUUtilization == nil && a.TargetMemoryUtilization == nil {
		u := DefaultTargetCPUUtilization
		a.TargetCPUUtilization = &u
	}
	return &a
}

// autoscalingProblems checks the autoscaler's bounds on the spec as
// written, before its defaults, with the reference's rules in its words: a
// set minimum (at least 1, not above the maximum), the maximum, at least the
// replicas the minimum defaults to when it is not set, and the targets. Run
// on the spec with its defaults, a rule could not tell a minimum written
// from the default one. Paths are relative to the Glance settings.
func autoscalingProblems(written GlanceSpec) problem.List {
	a := written.Autoscaling
	if a == nil {
		return nil
	}
	var l problem.List
	at := field.NewPath("autoscaling")
	if a.MaxReplicas < 1 {
		l = append(l, problem.At(at.Child("maxReplicas"), "maxReplicas must be at least 1"))
	}
	switch lo := a.MinReplicas; {
	case lo == nil && a.MaxReplicas >= 1 && a.MaxReplicas < ReplicasOf(written.Deployment):
		l = append(l, problem.At(at.Child("maxReplicas"), "maxReplicas must be >= spec.deployment.replicas (%d) when minReplicas is not set, because minReplicas defaults to spec.deployment.replicas",
			ReplicasOf(written.Deployment)))
	case lo == nil:
	case *lo < 1:
		l = append(l, problem.At(at.Child("minReplicas"), "minReplicas must be at least 1"))
	case *lo > a.MaxReplicas:
		l = append(l, problem.At(at.Child("minReplicas"), "minReplicas must not exceed maxReplicas"))
	}
	for _, t := range []struct {
		name string
		v    *int32
	}{{"targetCPUUtilization", a.TargetCPUUtilization}, {"targetMemoryUtilization", a.TargetMemoryUtilization}} {
		if t.v != nil && (*t.v < 1 || *t.v > 100) {
			l = append(l, problem.At(at.Child(t.name), "%s must be between 1 and 100", t.name))
		}
	}
	return l
}
