package observe

import (
	"regexp"
	"strings"

	appsv1 "k8s.io/api/apps/v1"

	"github.com/c5c3/glance-hooks/hooks/contract/api"
	"github.com/c5c3/glance-hooks/hooks/contract/names"
	"github.com/c5c3/glance-hooks/hooks/contract/storeconf"
	"github.com/c5c3/glance-hooks/hooks/glance/model"
)

// SectionOf cuts one [id] section out of a backends.conf.
func SectionOf(text, id string) (string, bool) {
	lines := strings.Split(text, "\n")
	start := -1
	for i, l := range lines {
		if strings.HasPrefix(l, "[") {
			if start >= 0 {
				return strings.TrimRight(strings.Join(lines[start:i], "\n"), "\n") + "\n", true
			}
			if l == "["+id+"]" {
				start = i
			}
		}
	}
	if start < 0 {
		return "", false
	}
	return strings.TrimRight(strings.Join(lines[start:], "\n"), "\n") + "\n", true
}

var DigestPattern = regexp.MustCompile(`^sha256:[0-9a-f]{64}$`)

// RunningCA is the CA bundle a running Deployment mounts for a store, read
// back from its volume and the pod template's digests; false when it mounts
// none.
func RunningCA(d *appsv1.Deployment, storeID string) (*model.CAMount, bool) {
	if d == nil {
		return nil, false
	}
	digest := ""
	for _, entry := range strings.Split(d.Spec.Template.Annotations[names.AnnotationCABundles], ",") {
		if id, dg, ok := strings.Cut(entry, "="); ok && id == storeID && DigestPattern.MatchString(dg) {
			digest = dg
		}
	}
	vol := names.CABundleVolume(storeID)
	for _, v := range d.Spec.Template.Spec.Volumes {
		if v.Name != vol {
			continue
		}
		switch {
		case digest == "":
		case v.ConfigMap != nil && len(v.ConfigMap.Items) == 1:
			return &model.CAMount{Ref: api.CABundleRef{Kind: api.CABundleKindConfigMap, Name: v.ConfigMap.Name, Key: v.ConfigMap.Items[0].Key}, Digest: digest}, true
		case v.Secret != nil && len(v.Secret.Items) == 1:
			return &model.CAMount{Ref: api.CABundleRef{Kind: api.CABundleKindSecret, Name: v.Secret.SecretName, Key: v.Secret.Items[0].Key}, Digest: digest}, true
		}
	}
	return nil, false
}

// NamesCACert reports whether a store section sets s3_store_cacert.
func NamesCACert(section string) bool {
	_, ok := storeconf.OptionValue(section, "s3_store_cacert")
	return ok
}
