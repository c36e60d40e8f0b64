package glance

import (
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"

	"github.com/c5c3/glance-hooks/hooks/contract/api"
	"github.com/c5c3/glance-hooks/hooks/contract/names"
	"github.com/c5c3/glance-hooks/hooks/glance/model"
	"github.com/c5c3/glance-hooks/hooks/glance/render"
)

// mountCABundles is the CA bundles' part of the glance-api pod.
func mountCABundles(in render.PodInput, d *render.DeploymentChild) {
	addCABundles(d, in.Stores, in.ProcessWideCA)
}

// addCABundles mounts the CA bundle of every rendered store that names one,
// read-only at names.CABundleMountDir(<store id>) where its section's
// s3_store_cacert points, annotates their digests on the pod template (a
// new bundle content rolls the pods), and sets the process-wide bundle when
// the release needs one.
func addCABundles(d *render.DeploymentChild, stores []*model.Store, processWide string) {
	pod := &d.Spec.Template.Spec
	// The mounts and the variable go to glance-api; a pod spec without that
	// container still gets the volumes and the digests.
	container := &corev1.Container{}
	if i := slices.IndexFunc(pod.Containers, func(c corev1.Container) bool { return c.Name == render.ContainerName }); i >= 0 {
		container = &pod.Containers[i]
	}
	var digests []string
	for _, s := range stores {
		if !s.State.Rendered() || s.CA == nil {
			continue
		}
		vol := names.CABundleVolume(s.ID)
		pod.Volumes = append(pod.Volumes, caVolume(vol, s.CA.Ref))
		container.VolumeMounts = append(container.VolumeMounts,
			corev1.VolumeMount{Name: vol, MountPath: names.CABundleMountDir(s.ID), ReadOnly: true})
		digests = append(digests, s.ID+"="+s.CA.Digest)
	}
	if len(digests) == 0 {
		return
	}
	if d.Spec.Template.Annotations == nil {
		d.Spec.Template.Annotations = map[string]string{}
	}
	d.Spec.Template.Annotations[names.AnnotationCABundles] = strings.Join(digests, ",")
	if processWide != "" {
		container.Env = append(container.Env, corev1.EnvVar{Name: model.EnvCABundle, Value: processWide})
	}
}

// caVolume projects the bundle's key as names.CABundleFile, readable by
// the glance group (fsGroup) only when it comes from a Secret.
func caVolume(name string, ref api.CABundleRef) corev1.Volume {
	items := []corev1.KeyToPath{{Key: ref.EffectiveKey(), Path: names.CABundleFile}}
	if ref.EffectiveKind() == api.CABundleKindSecret {
		mode := int32(0o440)
		return corev1.Volume{Name: name, VolumeSource: corev1.VolumeSource{Secret: &corev1.SecretVolumeSource{
			SecretName: ref.Name, Items: items, DefaultMode: &mode}}}
	}
	mode := int32(0o444)
	return corev1.Volume{Name: name, VolumeSource: corev1.VolumeSource{ConfigMap: &corev1.ConfigMapVolumeSource{
		LocalObjectReference: corev1.LocalObjectReference{Name: ref.Name}, Items: items, DefaultMode: &mode}}}
}
