package glance

import (
	"fmt"

	autoscalingv2 "k8s.io/api/autoscaling/v2"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/c5c3/glance-hooks/hooks/contract/api"
	"github.com/c5c3/glance-hooks/hooks/contract/excerpt"
	"github.com/c5c3/glance-hooks/hooks/contract/hook"
	"github.com/c5c3/glance-hooks/hooks/contract/metacontroller"
	"github.com/c5c3/glance-hooks/hooks/contract/names"
	"github.com/c5c3/glance-hooks/hooks/glance/model"
	"github.com/c5c3/glance-hooks/hooks/glance/observe"
	"github.com/c5c3/glance-hooks/hooks/glance/render"
	"github.com/c5c3/glance-hooks/hooks/glance/report"
)

// The autoscaling feature (spec.autoscaling, the reference's
// HorizontalPodAutoscaler and HPAReady), as one file: what it observes,
// its child, its condition. Its line in features names each contribution;
// its type, defaults and rules are its spec part,
// hooks/contract/api/autoscaling.go. How many pods the Deployment asks for
// under an autoscaler is render.DesiredReplicas; the disruption budget that
// follows its minimum is disruptionbudget.go.

// observeAutoscaler is the feature's observation: whether the Glance's
// autoscaler is among the children, so HPAReady can say it is kept when
// nothing is re-rendered.
func observeAutoscaler(o *observe.Observed, children metacontroller.ObjectMap) error {
	_, o.AutoscalerObserved = children.Get(names.HorizontalPodAutoscalersKey, o.Glance.Name)
	return nil
}

// horizontalPodAutoscalerChild is what the hook returns for an autoscaler.
type horizontalPodAutoscalerChild struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata"`
	Spec              autoscalingv2.HorizontalPodAutoscalerSpec `json:"spec"`
}

// autoscalerWithDeployment is the autoscaler as the feature returns it
// with the Deployment it scales, none without spec.autoscaling.
func autoscalerWithDeployment(in render.DeploymentInput) []any {
	if in.Spec.Autoscaling == nil {
		return nil
	}
	return []any{horizontalPodAutoscaler(in.Glance, *in.Spec.Autoscaling)}
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

// hpaReady is HPAReady: with spec.autoscaling, True once the
// HorizontalPodAutoscaler is returned (it comes with the Deployment) or
// kept as last applied; without it, True under HPANotRequired, as the
// reference reports it.
func hpaReady(in report.StatusInput) (hook.Condition, error) {
	g := in.Observed.Glance
	c := hook.Condition{Type: model.CondHPAReady, Status: true, Reason: model.ReasonHPANotRequired,
		Message: "spec.autoscaling is not set: spec.deployment.replicas sets the number of glance-api pods"}
	if in.Observed.Spec.Autoscaling == nil {
		return c, nil
	}
	if !returnsAutoscaler(in) {
		c.Status, c.Reason = false, model.ReasonWaitingForDeployment
		c.Message = fmt.Sprintf("HorizontalPodAutoscaler %s comes with the Deployment it scales, which waits for the schema", excerpt.Name(g.Name))
		return c, nil
	}
	c.Reason = model.ReasonHPAReady
	c.Message = fmt.Sprintf("HorizontalPodAutoscaler %s scales Deployment %s from %d to %d pods",
		excerpt.Name(g.Name), excerpt.Name(g.Name), *in.Observed.Spec.Autoscaling.MinReplicas, in.Observed.Spec.Autoscaling.MaxReplicas)
	return c, nil
}

// returnsAutoscaler reports whether the answer holds the Glance's
// autoscaler: rendered now, or, when nothing is re-rendered, the observed
// one kept as last applied.
func returnsAutoscaler(in report.StatusInput) bool {
	for _, child := range in.Out.Children {
		if _, ok := child.(*horizontalPodAutoscalerChild); ok {
			return true
		}
	}
	return in.Observed.AutoscalerObserved && !in.Out.Rendered.Status
}
