//go:build integration

package webhook_test

import (
	"bytes"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
)

// TestReferenceExamplesApply: every Glance, GlanceBackend and ControlPlane
// running Glance the reference publishes (test/refexamples, unchanged) is taken by the real API server
// with the CRDs and /validate, with strict field validation as kubectl
// apply asks for it. Each is a dry-run create, so examples that share a
// name do not meet; the webhook is still asked (sideEffects None).
func TestReferenceExamplesApply(t *testing.T) {
	s := setup(t)
	files, err := filepath.Glob("../refexamples/*/*.yaml")
	require.NoError(t, err)
	nested, err := filepath.Glob("../refexamples/*/*/*.yaml")
	require.NoError(t, err)
	for _, f := range nested {
		if !strings.HasPrefix(f, "../refexamples/refused/") {
			files = append(files, f)
		}
	}
	require.GreaterOrEqual(t, len(files), 40, "the examples of the reference's docs and suites")
	namespaces := map[string]bool{}
	for _, f := range files {
		for i, o := range examplesIn(t, f) {
			ns := o.GetNamespace()
			if ns == "" {
				ns = "openstack"
				o.SetNamespace(ns)
			}
			if !namespaces[ns] {
				s.env.Namespace(t, ns)
				namespaces[ns] = true
			}
			gvr := glances
			switch o.GetKind() {
			case "GlanceBackend":
				gvr = glanceBackends
			case "ControlPlane":
				gvr = controlPlanes
			default:
				o = completed(t, o)
			}
			ctx, cancel := contextTimeout()
			_, err := s.env.Dynamic.Resource(gvr).Namespace(ns).Create(ctx, o,
				metav1.CreateOptions{DryRun: []string{metav1.DryRunAll}, FieldValidation: metav1.FieldValidationStrict})
			cancel()
			require.NoError(t, err, "%s, document %d (%s %s) is taken as published", strings.TrimPrefix(f, "../"), i+1, o.GetKind(), o.GetName())
		}
	}
}

// completed is a guide's Glance: a fragment (no spec.openStackRelease)
// shows the block a feature adds to "the Glance CR you own", so it is
// merged onto the reference's complete example, as kubectl apply of the
// block onto that Glance would; a complete Glance is taken as it is.
func completed(t *testing.T, o *unstructured.Unstructured) *unstructured.Unstructured {
	t.Helper()
	if _, found, _ := unstructured.NestedString(o.Object, "spec", "openStackRelease"); found {
		return o
	}
	full := examplesIn(t, "../refexamples/docs/glance-crd.yaml")
	require.Len(t, full, 1)
	spec, _, _ := unstructured.NestedMap(full[0].Object, "spec")
	fragment, _, _ := unstructured.NestedMap(o.Object, "spec")
	for k, v := range fragment {
		spec[k] = v
	}
	require.NoError(t, unstructured.SetNestedMap(o.Object, spec, "spec"))
	return o
}

// examplesIn are the Glance, GlanceBackend and ControlPlane documents of a
// file.
func examplesIn(t *testing.T, path string) []*unstructured.Unstructured {
	t.Helper()
	raw, err := os.ReadFile(path)
	require.NoError(t, err)
	dec := utilyaml.NewYAMLOrJSONDecoder(bytes.NewReader(raw), 4096)
	var out []*unstructured.Unstructured
	for {
		o := &unstructured.Unstructured{}
		err := dec.Decode(&o.Object)
		if errors.Is(err, io.EOF) {
			return out
		}
		require.NoError(t, err, path)
		if k := o.GetKind(); k == "Glance" || k == "GlanceBackend" || k == "ControlPlane" {
			out = append(out, o)
		}
	}
}
