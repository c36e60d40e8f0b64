package api

import (
	"time"

	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/c5c3/glance-hooks/hooks/contract/problem"
)

// The image cache feature's part of a Glance spec (spec.imageCache): its
// type, its defaults and its rules. Its behaviour (the config options, the
// cache filter, the volume and the sidecar) is hooks/glance/imagecache.go.
// The block resolves its unset fields when the hooks render (Size,
// Interval), never in the stored object, so a Glance that leaves one out
// keeps following the default a later release of the hooks may bring: its
// line in glanceParts has rules and no Defaults. Its floors have no schema
// counterpart: a quantity is int-or-string and a duration a string in the
// CRD, neither of which takes a minimum. Its CRD lines are generated from
// the type, as autoscaling's are (make crd-schemas): the field comments
// are the descriptions, the markers the duration's form; metav1.Duration
// is marked a string so controller-gen takes a length and a pattern on it.

// ImageCacheSpec is each pod's local image cache.
type ImageCacheSpec struct {
	// Bound of the cache volume (default 10Gi, at least 1Mi; checked by admission).
	SizeLimit *resource.Quantity `json:"sizeLimit,omitempty"`
	// How often the cache is pruned, as a duration (default 5m, at least 1m).
	// +kubebuilder:validation:Type=string
	// +kubebuilder:validation:MaxLength=64
	// +kubebuilder:validation:Pattern=`^([0-9]+(\.[0-9]+)?(ns|us|µs|ms|s|m|h))+$`
	MaintenanceInterval *metav1.Duration `json:"maintenanceInterval,omitempty"`
}

var (
	// DefaultImageCacheSize bounds each pod's cache volume.
	DefaultImageCacheSize = resource.MustParse("10Gi")
	// MinImageCacheSize is the smallest cache volume: 100m, a tenth of a
	// byte and the usual typo for 100Mi, would evict the pod on its first
	// cached byte.
	MinImageCacheSize = resource.MustParse("1Mi")
)

const (
	// DefaultCacheMaintenanceInterval is how often the pruner and the
	// cleaner run in each pod.
	DefaultCacheMaintenanceInterval = 5 * time.Minute
	// MinCacheMaintenanceInterval: every pass walks the cache directory and
	// its SQLite index, which a busy pod should not do every few seconds.
	MinCacheMaintenanceInterval = time.Minute
)

// ImageCacheFilter is the paste filter the image cache puts into the
// pipeline; no other middleware may take its name while the cache is on.
const ImageCacheFilter = "cache"

// ImageCacheOptions are the [DEFAULT] options the image cache renders.
// The hooks own them: image_cache_max_size at or above the volume's bound
// leaves the pruner nothing to do until the kubelet evicts the pod, and an
// image_cache_dir elsewhere fills another volume.
var ImageCacheOptions = []string{"image_cache_dir", "image_cache_driver", "image_cache_max_size"}

// Size is the cache volume's bound, resolved.
func (c ImageCacheSpec) Size() resource.Quantity {
	if c.SizeLimit != nil {
		return *c.SizeLimit
	}
	return DefaultImageCacheSize
}

// Interval is the maintenance interval, resolved.
func (c ImageCacheSpec) Interval() time.Duration {
	if c.MaintenanceInterval != nil {
		return c.MaintenanceInterval.Duration
	}
	return DefaultCacheMaintenanceInterval
}

// imageCacheRules are the part's rules, on a spec with its defaults;
// paths are relative to the Glance settings.
func imageCacheRules(s GlanceSpec) problem.List {
	return append(imageCacheProblems(s.ImageCache), cacheFilterProblems(s)...)
}

// imageCacheProblems checks spec.imageCache.
func imageCacheProblems(c *ImageCacheSpec) problem.List {
	if c == nil {
		return nil
	}
	var l problem.List
	at := field.NewPath("imageCache")
	if c.SizeLimit != nil && c.SizeLimit.Cmp(MinImageCacheSize) < 0 {
		l = append(l, problem.Invalid(at.Child("sizeLimit"), "must be at least 1Mi: the kubelet evicts the pod once the cache volume grows past it"))
	}
	if c.SizeLimit != nil && c.SizeLimit.Cmp(MaxVolumeSize) > 0 {
		l = append(l, problem.Invalid(at.Child("sizeLimit"), "must be at most %s: no node holds a larger volume, and image_cache_max_size would not hold the number", MaxVolumeSize.String()))
	}
	if c.MaintenanceInterval != nil && c.MaintenanceInterval.Duration < MinCacheMaintenanceInterval {
		l = append(l, problem.Invalid(at.Child("maintenanceInterval"), "must be at least %s: each pass walks the whole cache", MinCacheMaintenanceInterval))
	}
	return l
}

// cacheFilterProblems refuses a middleware named like the filter
// spec.imageCache puts into the paste pipeline: the pipeline would name one
// filter section twice. The refusal is the reference's, word for word.
func cacheFilterProblems(s GlanceSpec) problem.List {
	if s.ImageCache == nil {
		return nil
	}
	var l problem.List
	for i, m := range s.Middleware {
		if m.Name == ImageCacheFilter {
			l = append(l, problem.At(field.NewPath("middleware").Index(i).Child("name"),
				"the operator injects the %q paste filter and owns that filter name while spec.imageCache is set: "+
					"rename this middleware or unset spec.imageCache", ImageCacheFilter))
		}
	}
	return l
}
