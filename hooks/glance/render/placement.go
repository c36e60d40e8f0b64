package render

import (
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/c5c3/glance-hooks/hooks/contract/api"
	"github.com/c5c3/glance-hooks/hooks/glance/model"
)

// Volume names of the writable directories of glance containers.
const (
	VolumeStaging = "staging"
	VolumeTasks   = "tasks"
	VolumeLock    = "lock"
	VolumeTmp     = "tmp"
)

// Sizes of the small writable directories: lock files, and what Python and
// the import flows write to /tmp besides the image data. A schema Job's
// staging and tasks areas hold nothing; they are mounted only because every
// glance program runs with the same mounts.
var (
	lockSize      = resource.MustParse("16Mi")
	tmpSize       = resource.MustParse("1Gi")
	jobUnusedSize = resource.MustParse("64Mi")
)

func emptyDir(name string, limit resource.Quantity) corev1.Volume {
	return BoundedEmptyDir(name, &limit)
}

// BoundedEmptyDir is an emptyDir with the limit given; none when nil.
func BoundedEmptyDir(name string, limit *resource.Quantity) corev1.Volume {
	return corev1.Volume{Name: name, VolumeSource: corev1.VolumeSource{EmptyDir: &corev1.EmptyDirVolumeSource{SizeLimit: limit}}}
}

// APIStateVolumes are glance-api's writable directories. Staging holds what
// a client staged until the same pod imports it (worker_self_reference_url
// sends the import there), so each pod has its own: an emptyDir of the
// staging size, or a generic ephemeral volume, a claim made with the pod and
// deleted with it, which needs no child of the Glance and works with any
// number of replicas (one shared claim would need ReadWriteMany, and its
// files would outlive the pods whose imports they were for). The tasks area
// (the conversion plugins write a converted copy there) gets the staging
// size too. staging.unbounded leaves both without a limit (admission
// refuses it with a claim, which needs a size).
func APIStateVolumes(spec api.GlanceSpec) []corev1.Volume {
	limit := spec.Staging.SizeLimit
	staging := BoundedEmptyDir(VolumeStaging, limit)
	if c := spec.Staging.VolumeClaim; c != nil && limit != nil {
		size := *limit
		claim := corev1.PersistentVolumeClaimSpec{
			AccessModes: []corev1.PersistentVolumeAccessMode{corev1.ReadWriteOnce},
			Resources:   corev1.VolumeResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceStorage: size}},
		}
		if c.StorageClassName != "" {
			class := c.StorageClassName
			claim.StorageClassName = &class
		}
		staging = corev1.Volume{Name: VolumeStaging, VolumeSource: corev1.VolumeSource{Ephemeral: &corev1.EphemeralVolumeSource{
			VolumeClaimTemplate: &corev1.PersistentVolumeClaimTemplate{Spec: claim}}}}
	}
	return []corev1.Volume{staging, BoundedEmptyDir(VolumeTasks, limit), emptyDir(VolumeLock, lockSize), emptyDir(VolumeTmp, tmpSize)}
}

// jobStateVolumes are a schema Job's: glance-manage stages nothing.
func jobStateVolumes() []corev1.Volume {
	return []corev1.Volume{emptyDir(VolumeStaging, jobUnusedSize), emptyDir(VolumeTasks, jobUnusedSize),
		emptyDir(VolumeLock, lockSize), emptyDir(VolumeTmp, tmpSize)}
}

// schedulingOf is the spec's deployment block, whose placement fields say
// where pods run, or none.
func schedulingOf(spec api.GlanceSpec) api.DeploymentSpec {
	if spec.Deployment == nil {
		return api.DeploymentSpec{}
	}
	return *spec.Deployment
}

// PlaceAPIPods places the glance-api pods as the spec's scheduling says,
// spread over nodes and zones unless it says otherwise.
func PlaceAPIPods(in PodInput, d *DeploymentChild) {
	s := schedulingOf(in.Spec)
	pod := &d.Spec.Template.Spec
	pod.NodeSelector, pod.Affinity, pod.Tolerations, pod.PriorityClassName = s.NodeSelector, s.Affinity, s.Tolerations, s.PriorityClassName
	pod.TopologySpreadConstraints = SpreadConstraints(in.Glance, s)
}

// JobPlacement is where a schema Job may run: the nodes glance-api may run
// on (node selector, node affinity, tolerations) at its priority. Pod
// affinities and spreading are about glance-api pods and stay theirs.
func JobPlacement(spec api.GlanceSpec) api.DeploymentSpec {
	s := schedulingOf(spec)
	p := api.DeploymentSpec{NodeSelector: s.NodeSelector, Tolerations: s.Tolerations, PriorityClassName: s.PriorityClassName}
	if s.Affinity != nil && s.Affinity.NodeAffinity != nil {
		p.Affinity = &corev1.Affinity{NodeAffinity: s.Affinity.NodeAffinity}
	}
	return p
}

// SpreadConstraints are the spec's, a missing labelSelector filled in with
// the Glance's glance-api pods, or by default across nodes, then zones, as
// a preference (ScheduleAnyway): a one-node or one-zone cluster still runs
// every replica.
func SpreadConstraints(g *api.Glance, s api.DeploymentSpec) []corev1.TopologySpreadConstraint {
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
