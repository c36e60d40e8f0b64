package observe

import (
	"strings"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/c5c3/glance-hooks/hooks/contract/api"
	"github.com/c5c3/glance-hooks/hooks/contract/hook"
	"github.com/c5c3/glance-hooks/hooks/contract/metacontroller"
	"github.com/c5c3/glance-hooks/hooks/contract/names"
	"github.com/c5c3/glance-hooks/hooks/glance/model"
)

// PodsRelated is the related-resource rule for a Glance's pods: the
// Deployment's (component api) and the schema Jobs' (component schema),
// selected by the labels both carry, which the customize hook knows from
// the Glance's name alone, and by their component. Sync tells them apart by
// their owner.
func PodsRelated(g *api.Glance) metacontroller.RelatedResource {
	sel := model.SelectorLabels(g)
	delete(sel, names.LabelComponent)
	// Only the pods sync reads: glance-api's and the schema Jobs'. The
	// purge CronJob's pods carry the same name and instance; each would add
	// its bytes to every sync request and a sync per start and end.
	only := metav1.LabelSelectorRequirement{Key: names.LabelComponent, Operator: metav1.LabelSelectorOpIn,
		Values: []string{model.ComponentAPI, model.ComponentSchema}}
	return metacontroller.RelatedResource{
		APIVersion: "v1", Resource: "pods", Namespace: g.Namespace,
		LabelSelector: &metav1.LabelSelector{MatchLabels: sel, MatchExpressions: []metav1.LabelSelectorRequirement{only}},
	}
}

// observedPod is a related pod as far as the hooks read it: not its spec,
// which is most of its bytes.
type observedPod struct {
	Metadata struct {
		Name              string                  `json:"name"`
		CreationTimestamp metav1.Time             `json:"creationTimestamp"`
		DeletionTimestamp *metav1.Time            `json:"deletionTimestamp,omitempty"`
		OwnerReferences   []metav1.OwnerReference `json:"ownerReferences,omitempty"`
	} `json:"metadata"`
	Status corev1.PodStatus `json:"status"`
}

// ReadPods decodes the related pods a ReplicaSet of the Deployment or a Job
// controls, in name order.
func ReadPods(related metacontroller.ObjectMap, deployment string) (ObservedPods, error) {
	var out ObservedPods
	owners := map[string]metav1.OwnerReference{}
	objs, err := metacontroller.Decode(related, names.PodsKey, func(p *observedPod) bool {
		for _, ref := range p.Metadata.OwnerReferences {
			if ref.Controller != nil && *ref.Controller {
				owners[p.Metadata.Name] = ref
				return ref.Kind == "Job" || ref.Kind == "ReplicaSet" && strings.HasPrefix(ref.Name, deployment+"-")
			}
		}
		return false
	})
	if err != nil {
		return out, hook.Invalid("related %v", err)
	}
	for _, o := range objs {
		var pod corev1.Pod
		pod.Name = o.Metadata.Name
		pod.CreationTimestamp = o.Metadata.CreationTimestamp
		pod.DeletionTimestamp = o.Metadata.DeletionTimestamp
		pod.Status = o.Status
		if ref := owners[pod.Name]; ref.Kind == "Job" {
			if out.ByJob == nil {
				out.ByJob = map[string][]corev1.Pod{}
			}
			out.ByJob[ref.Name] = append(out.ByJob[ref.Name], pod)
			continue
		}
		out.Rollout = append(out.Rollout, pod)
	}
	return out, nil
}
