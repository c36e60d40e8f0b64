package glance

import (
	autoscalingv2 "k8s.io/api/autoscaling/v2"
	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"

	"github.com/c5c3/glance-hooks/hooks/contract/api"
	"github.com/c5c3/glance-hooks/hooks/glance/model"
	"github.com/c5c3/glance-hooks/hooks/glance/render"
)

// fewestPods is the number of glance-api pods that may be all there is:
// the replicas, or under an autoscaler its minimum. Call it on a spec with
// defaults.
func fewestPods(spec api.GlanceSpec) int32 {
	if a := spec.Autoscaling; a != nil && a.MinReplicas != nil {
		return *a.MinReplicas
	}
	if spec.Deployment != nil && spec.Deployment.Replicas != nil {
		return *spec.Deployment.Replicas
	}
	return api.DefaultReplicas
}

// podDisruptionBudgetChild is what the hook returns for a PodDisruptionBudget.
type podDisruptionBudgetChild struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata"`
	Spec              policyv1.PodDisruptionBudgetSpec `json:"spec"`
}

// podDisruptionBudget is the reference's: with two pods or more a drain
// must leave one serving (minAvailable 1); where one pod may be all there
// is, minAvailable 1 would refuse every eviction and hold the drain for
// ever, so it is maxUnavailable 1 instead. Under an autoscaler the choice
// follows its minimum, not the replicas it does not use: the autoscaler
// may have scaled down to that many.
func podDisruptionBudget(g *api.Glance, spec api.GlanceSpec) *podDisruptionBudgetChild {
	one := intstr.FromInt32(1)
	budget := policyv1.PodDisruptionBudgetSpec{Selector: &metav1.LabelSelector{MatchLabels: model.SelectorLabels(g)}}
	if fewestPods(spec) > 1 {
		budget.MinAvailable = &one
	} else {
		budget.MaxUnavailable = &one
	}
	return &podDisruptionBudgetChild{
		TypeMeta:   metav1.TypeMeta{APIVersion: "policy/v1", Kind: "PodDisruptionBudget"},
		ObjectMeta: metav1.ObjectMeta{Name: g.Name, Namespace: g.Namespace, Labels: model.ObjectLabels(g)},
		Spec:       budget,
	}
}

// horizontalPodAutoscalerChild is what the hook returns for an autoscaler.
type horizontalPodAutoscalerChild struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata"`
	Spec              autoscalingv2.HorizontalPodAutoscalerSpec `json:"spec"`
}

// horizontalPodAutoscaler scales the Deployment on the CPU and, when a
// target is set for it, the memory its pods use against their requests.
func horizontalPodAutoscaler(g *api.Glance, a api.AutoscalingSpec) *horizontalPodAutoscalerChild {
	var metrics []autoscalingv2.MetricSpec
	for _, t := range []struct {
		resource corev1.ResourceName
		target   *int32
	}{{corev1.ResourceCPU, a.TargetCPUUtilization}, {corev1.ResourceMemory, a.TargetMemoryUtilization}} {
		if t.target == nil {
			continue
		}
		u := *t.target
		metrics = append(metrics, autoscalingv2.MetricSpec{
			Type: autoscalingv2.ResourceMetricSourceType,
			Resource: &autoscalingv2.ResourceMetricSource{
				Name:   t.resource,
				Target: autoscalingv2.MetricTarget{Type: autoscalingv2.UtilizationMetricType, AverageUtilization: &u},
			},
		})
	}
	return &horizontalPodAutoscalerChild{
		TypeMeta:   metav1.TypeMeta{APIVersion: "autoscaling/v2", Kind: "HorizontalPodAutoscaler"},
		ObjectMeta: metav1.ObjectMeta{Name: g.Name, Namespace: g.Namespace, Labels: model.ObjectLabels(g)},
		Spec: autoscalingv2.HorizontalPodAutoscalerSpec{
			ScaleTargetRef: autoscalingv2.CrossVersionObjectReference{APIVersion: "apps/v1", Kind: "Deployment", Name: g.Name},
			MinReplicas:    a.MinReplicas,
			MaxReplicas:    a.MaxReplicas,
			Metrics:        metrics,
		},
	}
}

// scalingWithDeployment are the scaling children as a feature returns
// them with the Deployment.
func scalingWithDeployment(in render.DeploymentInput) []any {
	return scalingChildren(in.Glance, in.Spec)
}

// scalingChildren are the PodDisruptionBudget and the autoscaler the spec
// calls for, returned with the Deployment.
func scalingChildren(g *api.Glance, spec api.GlanceSpec) []any {
	out := []any{podDisruptionBudget(g, spec)}
	if spec.Autoscaling != nil {
		out = append(out, horizontalPodAutoscaler(g, *spec.Autoscaling))
	}
	return out
}
