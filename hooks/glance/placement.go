package glance

import (
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/c5c3/glance-hooks/hooks/contract/api"
	"github.com/c5c3/glance-hooks/hooks/glance/model"
	"github.com/c5c3/glance-hooks/hooks/glance/render"
)

// schedulingOf is the spec's deployment block, whose placement fields say
// where pods run, or none.
func schedulingOf(spec api.GlanceSpec) api.DeploymentSpec {
	if spec.Deployment == nil {
		return api.DeploymentSpec{}
	}
	return *spec.Deployment
}

// placeAPIPods places the glance-api pods as the spec's scheduling says,
// spread over nodes and zones unless it says otherwise.
func placeAPIPods(in render.PodInput, d *render.DeploymentChild) {
	s := schedulingOf(in.Spec)
	pod := &d.Spec.Template.Spec
	pod.NodeSelector, pod.Affinity, pod.Tolerations, pod.PriorityClassName = s.NodeSelector, s.Affinity, s.Tolerations, s.PriorityClassName
	pod.TopologySpreadConstraints = spreadConstraints(in.Glance, s)
}

// placeJobPods places a glance-manage Job's pod (a schema step's, a purge
// run's) as jobPlacement says.
func placeJobPods(pod *corev1.PodSpec, spec api.GlanceSpec) {
	p := jobPlacement(spec)
	pod.NodeSelector, pod.Affinity, pod.Tolerations, pod.PriorityClassName = p.NodeSelector, p.Affinity, p.Tolerations, p.PriorityClassName
}

// jobPlacement is where a schema Job may run: the nodes glance-api may run
// on (node selector, node affinity, tolerations) at its priority. Pod
// affinities and spreading are about glance-api pods and stay theirs.
func jobPlacement(spec api.GlanceSpec) api.DeploymentSpec {
	s := schedulingOf(spec)
	p := api.DeploymentSpec{NodeSelector: s.NodeSelector, Tolerations: s.Tolerations, PriorityClassName: s.PriorityClassName}
	if s.Affinity != nil && s.Affinity.NodeAffinity != nil {
		p.Affinity = &corev1.Affinity{NodeAffinity: s.Affinity.NodeAffinity}
	}
	return p
}

// spreadConstraints are the spec's, a missing labelSelector filled in with
// the Glance's glance-api pods, or by default across nodes, then zones, as
// a preference (ScheduleAnyway): a one-node or one-zone cluster still runs
// every replica.
func spreadConstraints(g *api.Glance, s api.DeploymentSpec) []corev1.TopologySpreadConstraint {
	selector := &metav1.LabelSelector{MatchLabels: model.SelectorLabels(g)}
	if len(s.TopologySpreadConstraints) == 0 {
		return []corev1.TopologySpreadConstraint{
			{MaxSkew: 1, TopologyKey: "kubernetes.io/hostname", WhenUnsatisfiable: corev1.ScheduleAnyway, LabelSelector: selector},
			{MaxSkew: 1, TopologyKey: "topology.kubernetes.io/zone", WhenUnsatisfiable: corev1.ScheduleAnyway, LabelSelector: selector},
		}
	}
	out := make([]corev1.TopologySpreadConstraint, len(s.TopologySpreadConstraints))
	for i, c := range s.TopologySpreadConstraints {
		if c.LabelSelector == nil {
			c.LabelSelector = selector
		}
		out[i] = c
	}
	return out
}
