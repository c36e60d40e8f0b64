package glance

import (
	"fmt"
	"net/url"
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"

	"github.com/c5c3/glance-hooks/hooks/contract/api"
	"github.com/c5c3/glance-hooks/hooks/contract/names"
	"github.com/c5c3/glance-hooks/hooks/contract/release"
	"github.com/c5c3/glance-hooks/hooks/glance/decide"
	"github.com/c5c3/glance-hooks/hooks/glance/model"
	"github.com/c5c3/glance-hooks/hooks/glance/observe"
	"github.com/c5c3/glance-hooks/hooks/glance/render"
	"github.com/c5c3/glance-hooks/hooks/glance/storestate"
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

// chooseProcessWideCA is the CA bundles feature's decision: on a release whose
// glance_store has one process-wide CA bundle, which one, leaving out the
// stores it cannot serve (processWideCABundle).
func chooseProcessWideCA(o *observe.Observed, d *decide.Decision) {
	if rel, ok := oldestRunRelease(o.Spec.OpenStackRelease, o.Glance.Status.InstalledRelease); ok && !rel.AtLeast(storeCACertFrom) {
		// The stores it leaves out are reached through the sets it weighs,
		// not by their place: every attached one is made decide's first.
		decide.OwnAll(d.Stores)
		d.ProcessWideCA = processWideCABundle(d.Stores, d.Retired, rel)
	}
}

// storeCACertFrom is the first release whose glance_store reads a CA bundle
// per store (s3_store_cacert): 2025.1 ships glance_store 4.9, the first
// release with the option. 2024.1 and 2024.2 got it only in the point
// releases 4.7.1 and 4.8.2, which an image of those releases need not
// have, and glance_store before that has no such option at all.
var storeCACertFrom = release.Release{Year: 2025, Minor: 1}

// oldestRunRelease is the older of the release the spec asks for and the
// one installed: while an upgrade is under way glance-api may still run the
// installed one, and a CA bundle setup must work on both. A spec release
// that does not parse is the spec's problem, reported when rendering.
func oldestRunRelease(specRelease, installed string) (release.Release, bool) {
	rel, err := release.Parse(specRelease)
	if err != nil {
		return release.Release{}, false
	}
	if in, err := release.Parse(installed); err == nil && in.Before(rel) {
		return in, true
	}
	return rel, true
}

// processWideCABundle decides, for a release whose glance_store has no
// s3_store_cacert, the one bundle botocore verifies every S3 endpoint with
// (the file EnvCABundle names), or "" for none. The stores it weighs are
// the attached ones and the retiring ones kept: glance-api reads from both,
// so a retiring store keeps the bundle its running Deployment mounts, and
// that bundle counts like any other. It can serve the stores only when
// every https:// store names a bundle and all those bundles have the same
// content: a bundle replaces the system trust roots for every store, so a
// store without one would lose them, and two different bundles cannot both
// be the one.
//
// The retiring stores go first: they are already serving, and one left
// out is gone for good (it is read only from the running config), so an
// attached store that asks of the one bundle what they cannot share is
// skipped instead (skipForRetiring). Among the remaining stores, when one
// bundle still cannot serve them all, every store with a bundle is skipped
// with ReasonCABundleConflict (those without one keep working as before),
// and the message says what would make it work. Concatenating the bundles
// is not done: each store would then trust every other store's CA, and the
// hooks would have to copy the bundles' content into a Secret of their own.
// The stores are weighed in store id order, so the file named is the same
// whatever order they come in.
func processWideCABundle(attached, retired []*model.Store, rel release.Release) string {
	why := fmt.Sprintf("glance_store of release %s has no s3_store_cacert, so one CA bundle (botocore's %s) verifies every S3 store of glance-api, ", rel, model.EnvCABundle)
	if incumbents := weighCABundles(decide.WithRetired(nil, retired)); incumbents.servable() {
		skipForRetiring(decide.WithRetired(attached, nil), incumbents, why)
	}
	all := weighCABundles(decide.WithRetired(attached, retired))
	if len(all.withCA) == 0 {
		return ""
	}
	if all.servable() {
		return names.CABundlePath(all.withCA[0].ID)
	}
	if len(all.digests) > 1 {
		why += fmt.Sprintf("and the stores name %d bundles with different content; give them one bundle, or run %s or later", len(all.digests), storeCACertFrom)
	} else {
		why += fmt.Sprintf("which https:// %s without a CA bundle would then be verified with instead of the system trust roots; "+
			"name the same bundle (holding the roots they need) on every https:// store, or run %s or later",
			pluralStores(quoted(all.httpsWithout)), storeCACertFrom)
	}
	for _, s := range all.withCA {
		msg := "its CA bundle cannot be used: " + why
		if s.Retired {
			msg = "its backend is gone and " + msg
		}
		skipForCABundle(s, msg)
	}
	return ""
}

// caNeeds is what a set of rendered stores asks of the one process-wide
// bundle: the stores with a bundle and their distinct contents, and the
// https:// stores without one (they need the system trust roots).
type caNeeds struct {
	withCA, httpsWithout []*model.Store
	digests              map[string]bool
}

func weighCABundles(stores []*model.Store) caNeeds {
	n := caNeeds{digests: map[string]bool{}}
	for _, s := range stores {
		switch {
		case !s.State.Rendered():
		case s.CA != nil:
			n.withCA = append(n.withCA, s)
			n.digests[s.CA.Digest] = true
		case isHTTPS(s.Host()):
			n.httpsWithout = append(n.httpsWithout, s)
		}
	}
	return n
}

// servable reports whether one bundle (or none) serves every store weighed.
func (n caNeeds) servable() bool {
	return len(n.digests) == 0 || len(n.digests) == 1 && len(n.httpsWithout) == 0
}

// skipForRetiring skips, with ReasonCABundleConflict, each attached store
// the kept retiring stores (which one bundle can serve) cannot share the
// process-wide bundle with: one whose bundle differs from theirs, an
// https:// one without a bundle while they have one, one with a bundle
// while an https:// retiring store has none. The message names the
// retiring stores and the ways out: the same bundle, dropping them, or a
// release with s3_store_cacert.
func skipForRetiring(attached []*model.Store, incumbents caNeeds, why string) {
	withBundle := pluralStores(quoted(incumbents.withCA))
	drop := fmt.Sprintf("drop retiring %s (spec.dropRetiredStores), or run %s or later", withBundle, storeCACertFrom)
	for _, s := range attached {
		if !s.State.Rendered() {
			continue
		}
		switch {
		case len(incumbents.withCA) > 0 && s.CA != nil && !incumbents.digests[s.CA.Digest]:
			skipForCABundle(s, fmt.Sprintf("its CA bundle conflicts with retiring %s: %s"+
				"and a retiring store keeps the bundle it is read with, so images in it stay readable, and this store's has other content; "+
				"give this store the same bundle, %s", withBundle, why, drop))
		case len(incumbents.withCA) > 0 && s.CA == nil && isHTTPS(s.Host()):
			skipForCABundle(s, fmt.Sprintf("it conflicts with retiring %s: %s"+
				"and a retiring store keeps the bundle it is read with, so images in it stay readable, and this https:// store without a CA bundle "+
				"would then be verified with it instead of the system trust roots; give this store the same bundle (holding the roots it needs), %s",
				withBundle, why, drop))
		case len(incumbents.httpsWithout) > 0 && s.CA != nil:
			retiring := pluralStores(quoted(incumbents.httpsWithout))
			skipForCABundle(s, fmt.Sprintf("its CA bundle conflicts with retiring https:// %s without a CA bundle: %s"+
				"and this bundle would replace the system trust roots a retiring store is read with; "+
				"name no CA bundle on this store (when the system trust roots verify its endpoint), drop retiring %s (spec.dropRetiredStores), or run %s or later",
				retiring, why, retiring, storeCACertFrom))
		}
	}
}

// skipForCABundle leaves a store out of the config with
// ReasonCABundleConflict.
func skipForCABundle(s *model.Store, msg string) {
	s.Section = ""
	s.Move(storestate.CABundleConflict, msg)
}

// quoted is the stores' ids, each quoted.
func quoted(stores []*model.Store) []string {
	ids := make([]string, len(stores))
	for i, s := range stores {
		ids[i] = fmt.Sprintf("%q", s.ID)
	}
	return ids
}

func pluralStores(ids []string) string {
	if len(ids) == 1 {
		return "store " + ids[0]
	}
	return "stores " + strings.Join(ids, ", ")
}

func isHTTPS(host string) bool {
	u, err := url.Parse(host)
	return err == nil && u.Scheme == "https"
}
