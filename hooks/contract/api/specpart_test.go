package api

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestGlancePartsContribute: each part is listed once, under a name of its
// own, and fills in defaults or checks rules; a line with neither would do
// nothing.
func TestGlancePartsContribute(t *testing.T) {
	seen := map[string]bool{}
	for _, part := range GlanceParts() {
		if part.Name == "" || seen[part.Name] {
			t.Errorf("spec part %q: every part needs a name of its own", part.Name)
		}
		seen[part.Name] = true
		if part.Defaults == nil && part.Rules == nil && part.WrittenRules == nil {
			t.Errorf("spec part %q has neither defaults nor rules", part.Name)
		}
	}
}

// TestWithDefaultsIsSettled: filling in a spec that has its defaults
// changes nothing, so no part's defaults undo or shift another's, and the
// sync hooks, which fill in again what admission filled in, see the same
// spec.
func TestWithDefaultsIsSettled(t *testing.T) {
	min := int32(3)
	cases := map[string]struct {
		reason string
		spec   GlanceSpec
	}{
		"Empty":       {"every default", GlanceSpec{}},
		"Autoscaling": {"a set part is filled in, not replaced", GlanceSpec{Autoscaling: &AutoscalingSpec{MinReplicas: &min, MaxReplicas: 5}}},
		"Logging":     {"an optional part set empty", GlanceSpec{OpenStackRelease: "2026.1", Logging: &LoggingSpec{}}},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			once := tc.spec.WithDefaults("openstack")
			if diff := cmp.Diff(once, once.WithDefaults("openstack")); diff != "" {
				t.Errorf("%s: -once, +twice:\n%s", tc.reason, diff)
			}
		})
	}
}
