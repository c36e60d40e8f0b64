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
	// Fewest pods; default 2, so one can be drained while another serves.
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
	// DefaultMinReplicas keeps two pods under an autoscaler, so one can be
	// drained while the other serves.
	DefaultMinReplicas = int32(2)
	// DefaultTargetCPUUtilization is the CPU use, in percent of the
	// request, the autoscaler keeps when no target is named.
	DefaultTargetCPUUtilization = int32(80)
)

// autoscalingDefault fills a set autoscaling block; unset, there is no
// autoscaler.
func autoscalingDefault(s *GlanceSpec, _ string) {
	if s.Autoscaling != nil {
		s.Autoscaling = autoscalingWithDefaults(*s.Autoscaling)
	}
}

// autoscalingWithDefaults targets CPU only when no utilization target is
// named at all.
func autoscalingWithDefaults(a AutoscalingSpec) *AutoscalingSpec {
	if a.MinReplicas == nil {
		m := DefaultMinReplicas
		a.MinReplicas = &m
	}
	if a.TargetCPUUtilization == nil && a.TargetMemoryUtilization == nil {
		u := DefaultTargetCPUUtilization
		a.TargetCPUUtilization = &u
	}
	return &a
}

// autoscalingProblems checks the autoscaler's bounds on the spec as
// written, before its defaults: the reference's rules on a set minimum (at
// least 1, not above the maximum) and on the maximum and the targets, in
// its words, and this project's on the default minimum, which the
// reference does not have (its minimum follows the replicas). Run on the
// spec with its defaults, a rule could not tell a minimum written from the
// default one. Paths are relative to the Glance settings.
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
	case lo == nil && a.MaxReplicas >= 1 && a.MaxReplicas < DefaultMinReplicas:
		l = append(l, problem.Invalid(at.Child("maxReplicas"), "must be at least minReplicas (default %d)", DefaultMinReplicas))
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
