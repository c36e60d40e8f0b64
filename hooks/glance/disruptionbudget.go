package glance

import (
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
	return api.ReplicasOf(spec.Deployment)
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

// disruptionBudgetWithDeployment is the PodDisruptionBudget as a feature
// returns it with the Deployment: glance-api's pods have one whether or not
// an autoscaler sets their number.
func disruptionBudgetWithDeployment(in render.DeploymentInput) []any {
	return []any{podDisruptionBudget(in.Glance, in.Spec)}
}
