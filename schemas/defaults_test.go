package schemas_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/c5c3/glance-hooks/hooks/contract/api"
	"github.com/c5c3/glance-hooks/schemas"
)

// TestGlanceSchemaDefaultsAreTheHooks: a default the API server stores
// (as the reference's API server stores it, so `kubectl get -o yaml` reads
// the same) must be the value the hooks fill in when the field is unset;
// otherwise a Glance written with the field and one without it would run
// differently.
func TestGlanceSchemaDefaultsAreTheHooks(t *testing.T) {
	spec := get(version(t, loadCRD(t, schemas.GlanceFile)), "schema", "openAPIV3Schema", "properties", "spec").(node)
	cases := map[string]any{
		"apiServer.uwsgi.processes": api.DefaultAPIProcesses,
		"logging.format":            api.LogFormatText,
		"logging.level":             api.DefaultLogLevel,
		"secretStoreRef.kind":       api.KindClusterSecretStore,
	}
	for path, want := range cases {
		cur := spec
		for _, seg := range strings.Split(path, ".") {
			next, ok := get(cur, "properties", seg).(node)
			if !assert.True(t, ok, "spec.%s is not in the schema", path) {
				break
			}
			cur = next
		}
		// JSON numbers decode as float64: compare as text.
		assert.Equal(t, fmt.Sprint(want), fmt.Sprint(cur["default"]), "spec.%s's default", path)
	}
}
