//go:build integration

package webhook_test

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/c5c3/glance-hooks/test/refexamples"
)

// TestReferenceRefusedSuites: the reference's suites of refused CRs
// (test/refexamples/refused, the CRs unchanged), each applied in its order
// to a namespace of its own on the real API server, with the CRDs and
// /validate in front and kubectl's strict field validation: a refused step
// is refused with every word the suite waits for (or this project's, where
// its steps.yaml says why it answers otherwise), and an admitted step is
// stored, so the steps after it update it or meet it.
func TestReferenceRefusedSuites(t *testing.T) {
	s := setup(t)
	dir := filepath.Join("..", "refexamples", refexamples.RefusedDir)
	suites := refexamples.Suites(t, dir)
	require.Len(t, suites, 3)
	for name, steps := range suites {
		t.Run(name, func(t *testing.T) {
			ns := "refused-" + name
			s.env.Namespace(t, ns)
			for _, step := range steps {
				for _, o := range examplesIn(t, filepath.Join(dir, name, step.File)) {
					err := s.apply(t, ns, o)
					if step.APIServerWords() == nil {
						require.NoError(t, err, "%s is admitted", step.File)
						continue
					}
					if assert.Error(t, err, "%s is refused", step.File) {
						for _, w := range step.APIServerWords() {
							assert.Contains(t, err.Error(), w, "%s", step.File)
						}
						assert.False(t, strings.Contains(err.Error(), "unknown field"), "%s: every field is known to the schema: %v", step.File, err)
					}
				}
			}
		})
	}
}

// apply is kubectl apply's create or update of o in ns, with strict field
// validation: an update when an object of its name is stored.
func (s *suite) apply(t *testing.T, ns string, o *unstructured.Unstructured) error {
	t.Helper()
	gvr := map[string]schema.GroupVersionResource{"Glance": glances, "GlanceBackend": glanceBackends, "ControlPlane": controlPlanes}[o.GetKind()]
	require.NotEmpty(t, gvr.Resource, "a kind the suites apply: %s", o.GetKind())
	client := s.env.Dynamic.Resource(gvr).Namespace(ns)
	ctx, cancel := contextTimeout()
	defer cancel()
	if stored, err := client.Get(ctx, o.GetName(), metav1.GetOptions{}); err == nil {
		o.SetResourceVersion(stored.GetResourceVersion())
		_, err = client.Update(ctx, o, metav1.UpdateOptions{FieldValidation: metav1.FieldValidationStrict})
		return err
	}
	_, err := client.Create(ctx, o, metav1.CreateOptions{FieldValidation: metav1.FieldValidationStrict})
	return err
}
