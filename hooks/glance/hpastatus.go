package glance

import (
	"fmt"

	"github.com/c5c3/glance-hooks/hooks/contract/excerpt"
	"github.com/c5c3/glance-hooks/hooks/contract/hook"
	"github.com/c5c3/glance-hooks/hooks/contract/metacontroller"
	"github.com/c5c3/glance-hooks/hooks/contract/names"
	"github.com/c5c3/glance-hooks/hooks/glance/model"
	"github.com/c5c3/glance-hooks/hooks/glance/observe"
	"github.com/c5c3/glance-hooks/hooks/glance/report"
)

// hpaReady is HPAReady: with spec.autoscaling, True once the
// HorizontalPodAutoscaler is returned (it comes with the Deployment,
// scaling.go) or kept as last applied; without it, True under
// HPANotRequired, as the reference reports it.
func hpaReady(in report.StatusInput) (hook.Condition, error) {
	g := in.Observed.Glance
	c := hook.Condition{Type: model.CondHPAReady, Status: true, Reason: model.ReasonHPANotRequired,
		Message: "spec.autoscaling is not set: spec.deployment.replicas sets the number of glance-api pods"}
	if in.Observed.Spec.Autoscaling == nil {
		return c, nil
	}
	if !returnsAutoscaler(in, g.Name) {
		c.Status, c.Reason = false, model.ReasonWaitingForDeployment
		c.Message = fmt.Sprintf("HorizontalPodAutoscaler %s comes with the Deployment it scales, which waits for the schema", excerpt.Name(g.Name))
		return c, nil
	}
	c.Reason = model.ReasonHPAReady
	c.Message = fmt.Sprintf("HorizontalPodAutoscaler %s scales Deployment %s from %d to %d pods",
		excerpt.Name(g.Name), excerpt.Name(g.Name), *in.Observed.Spec.Autoscaling.MinReplicas, in.Observed.Spec.Autoscaling.MaxReplicas)
	return c, nil
}

// observeAutoscaler is the scaling feature's observation: whether the
// Glance's autoscaler is observed.
func observeAutoscaler(o *observe.Observed, children metacontroller.ObjectMap) error {
	_, o.AutoscalerObserved = children.Get(names.HorizontalPodAutoscalersKey, o.Glance.Name)
	return nil
}

// returnsAutoscaler reports whether the answer holds the Glance's
// autoscaler: rendered now, or, when nothing is re-rendered, the observed
// one kept as last applied.
func returnsAutoscaler(in report.StatusInput, name string) bool {
	for _, child := range in.Out.Children {
		if _, ok := child.(*horizontalPodAutoscalerChild); ok {
			return true
		}
	}
	return in.Observed.AutoscalerObserved && !in.Out.Rendered.Status
}
