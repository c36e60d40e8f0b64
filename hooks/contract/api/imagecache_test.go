package api

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

func TestImageCacheProblems(t *testing.T) {
	size := func(s string) *resource.Quantity { q := resource.MustParse(s); return &q }
	every := func(d time.Duration) *metav1.Duration { return &metav1.Duration{Duration: d} }
	cases := map[string]struct {
		reason string
		cache  *ImageCacheSpec
		want   string
	}{
		"unset":        {"no block, nothing to check", nil, ""},
		"empty":        {"an empty block takes the defaults", &ImageCacheSpec{}, ""},
		"at the floor": {"1Mi and 1m are allowed", &ImageCacheSpec{SizeLimit: size("1Mi"), MaintenanceInterval: every(time.Minute)}, ""},
		"milli typo": {"100m is a tenth of a byte", &ImageCacheSpec{SizeLimit: size("100m")},
			"imageCache.sizeLimit must be at least 1Mi: the kubelet evicts the pod once the cache volume grows past it"},
		"below a minute": {"a pass walks the whole cache", &ImageCacheSpec{MaintenanceInterval: every(59 * time.Second)},
			"imageCache.maintenanceInterval must be at least 1m0s: each pass walks the whole cache"},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			if diff := cmp.Diff(c.want, imageCacheProblems(c.cache).String()); diff != "" {
				t.Errorf("%s: -want +got:\n%s", c.reason, diff)
			}
		})
	}
}

func TestCacheFilterProblems(t *testing.T) {
	mw := []MiddlewareSpec{{Name: "audit"}, {Name: "cache"}}
	cases := map[string]struct {
		reason string
		spec   GlanceSpec
		want   string
	}{
		"cache on": {"the filter's name is taken", GlanceSpec{ImageCache: &ImageCacheSpec{}, Middleware: mw},
			`middleware[1].name: the operator injects the "cache" paste filter and owns that filter name while spec.imageCache is set: rename this middleware or unset spec.imageCache`},
		"cache off": {"without the cache the name is free", GlanceSpec{Middleware: mw}, ""},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			if diff := cmp.Diff(c.want, cacheFilterProblems(c.spec).String()); diff != "" {
				t.Errorf("%s: -want +got:\n%s", c.reason, diff)
			}
		})
	}
}
