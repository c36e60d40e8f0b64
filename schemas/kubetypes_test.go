package schemas_test

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/c5c3/glance-hooks/schemas"
)

// generator is the module that prints controller-gen's schemas of
// Kubernetes types and of this API's types whose CRD lines are generated.
var generator = filepath.Join("..", "hack", "kubeschema")

// kubeTypesOf reads a CRD file as it is on disk and its generated places.
func kubeTypesOf(t *testing.T, file string) ([]byte, []schemas.KubeType) {
	t.Helper()
	raw, err := os.ReadFile(file)
	require.NoError(t, err)
	places, err := schemas.KubeTypes(raw)
	require.NoError(t, err, file)
	return raw, places
}

// TestKubeTypeSchemas is the drift test of the generated schemas: it runs
// the generator (controller-gen's schema of each type the CRDs name) and
// fails when a CRD holds anything else between a type's comments. With
// UPDATE_SCHEMAS=1 it writes the generated schemas instead (then
// `make chart-crds`).
func TestKubeTypeSchemas(t *testing.T) {
	raws := map[string][]byte{}
	var types []string
	for _, file := range schemas.Names() {
		raw, places := kubeTypesOf(t, file)
		raws[file] = raw
		for _, p := range places {
			if !slices.Contains(types, p.Type) {
				types = append(types, p.Type)
			}
		}
	}
	require.NotEmpty(t, types, "the CRDs embed Kubernetes types")
	generated := generate(t, types)
	for _, file := range schemas.Names() {
		want, err := schemas.SpliceKubeTypes(raws[file], generated)
		require.NoError(t, err, file)
		if os.Getenv("UPDATE_SCHEMAS") != "" {
			require.NoError(t, os.WriteFile(file, want, 0o644))
			continue
		}
		if diff := cmp.Diff(string(raws[file]), string(want)); diff != "" {
			t.Errorf("%s: the schemas of Kubernetes types are generated; run make crd-schemas (-in the file, +generated):\n%s", file, diff)
		}
	}
}

// generate runs hack/kubeschema for the types.
func generate(t *testing.T, types []string) map[string]json.RawMessage {
	t.Helper()
	var stdout, stderr bytes.Buffer
	cmd := exec.Command("go", append([]string{"run", "."}, types...)...)
	cmd.Dir = generator
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	require.NoError(t, cmd.Run(), "hack/kubeschema: %s", stderr.String())
	var out map[string]json.RawMessage
	require.NoError(t, json.Unmarshal(stdout.Bytes(), &out))
	return out
}

// TestKubeTypesAreTheGoFields: each generated place is a field of the
// kind's Go type of exactly that type, which is what the hooks decode it
// as; and the fields the reference types as Kubernetes types, and the
// spec parts whose CRD lines are generated, are generated.
func TestKubeTypesAreTheGoFields(t *testing.T) {
	want := map[string][]string{
		schemas.GlanceFile: {"deployment.strategy", "deployment.topologySpreadConstraints[]", "autoscaling", "dbPurge", "imageCache", "networkPolicy.additionalEgress[]"},
		schemas.ControlPlaneFile: {"services.glance.networkPolicy.additionalEgress[]", "services.glance.imageCache", "services.glance.deployment.strategy",
			"services.glance.deployment.topologySpreadConstraints[]", "services.glance.autoscaling"},
		schemas.GlanceBackendFile: nil,
	}
	for _, k := range kinds {
		t.Run(k.kind, func(t *testing.T) {
			_, places := kubeTypesOf(t, k.file)
			var fields []string
			for _, p := range places {
				fields = append(fields, p.Field)
				spec, ok := k.goType.FieldByName("Spec")
				require.True(t, ok)
				got, err := goTypeAt(spec.Type, p.Field)
				require.NoError(t, err, p.Field)
				assert.Equal(t, p.Type, got.PkgPath()+"."+got.Name(), "spec.%s", p.Field)
			}
			if diff := cmp.Diff(want[k.file], fields); diff != "" {
				t.Errorf("the generated places of %s (-want +got):\n%s", k.kind, diff)
			}
		})
	}
}

// goTypeAt follows a dotted field (json names; [] for a list's item)
// through Go types.
func goTypeAt(t reflect.Type, field string) (reflect.Type, error) {
	for _, part := range strings.Split(field, ".") {
		name, item := strings.CutSuffix(part, "[]")
		for t.Kind() == reflect.Pointer {
			t = t.Elem()
		}
		i := slices.IndexFunc(jsonFields(t), func(f jsonField) bool { return f.name == name })
		if i < 0 {
			return nil, &fieldError{t, name}
		}
		t = jsonFields(t)[i].typ
		if item {
			t = t.Elem()
		}
	}
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	return t, nil
}

type fieldError struct {
	t    reflect.Type
	name string
}

func (e *fieldError) Error() string { return e.t.String() + " has no json field " + e.name }

var modulePin = regexp.MustCompile(`(?m)^\s*k8s\.io/api (v\S+)`)

// TestKubeschemaPinsTheServicesAPI: the generator reads the source of the
// k8s.io/api the service decodes with, so the schemas are those types'.
func TestKubeschemaPinsTheServicesAPI(t *testing.T) {
	pin := func(path string) string {
		raw, err := os.ReadFile(path)
		require.NoError(t, err)
		m := modulePin.FindSubmatch(raw)
		require.NotNil(t, m, "%s requires k8s.io/api", path)
		return string(m[1])
	}
	assert.Equal(t, pin(filepath.Join("..", "go.mod")), pin(filepath.Join(generator, "go.mod")))
}
