//go:build integration

package schemas_test

import (
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/c5c3/glance-hooks/test/kubetest"
	"github.com/c5c3/glance-hooks/test/refrules"
)

// TestImageCacheIntervalIsADuration: the CRD takes maintenanceInterval only
// in the form a duration decodes from (5m, 1h30m), and names the field when
// it refuses one, before the webhook, whose typed decode could not say
// which value failed.
func TestImageCacheIntervalIsADuration(t *testing.T) {
	env := kubetest.Shared(t)
	glance := func(interval string) *unstructured.Unstructured {
		o := object(t, refrules.ExampleGlance)
		refrules.Rule{Set: map[string]any{"imageCache.maintenanceInterval": interval}}.Apply(o.Object)
		return o
	}
	for _, v := range []string{"5m", "1h30m", "90s"} {
		accepted(t, env, glances, glance(v))
	}
	for _, v := range []string{"five minutes", "5", "-5m"} {
		_, err := dryCreate(t, env, glances, glance(v))
		refused(t, err, "spec.imageCache.maintenanceInterval")
	}
}
