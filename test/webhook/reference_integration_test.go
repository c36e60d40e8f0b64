//go:build integration

package webhook_test

import (
	"encoding/json"
	"regexp"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/c5c3/glance-hooks/test/refrules"
)

// TestReferenceWebhookRules: the rules of the reference Glance API that
// only /validate can check (the CRD's own are refused before it is asked,
// see schemas) reach the webhook through the real API server, which
// refuses the change with the field named.
func TestReferenceWebhookRules(t *testing.T) {
	s := setup(t)
	const ns = "reference"
	s.env.Namespace(t, ns)
	glancesIn := s.env.Dynamic.Resource(glances).Namespace(ns)

	ctx, cancel := contextTimeout()
	defer cancel()
	base := object(t, inNamespace(refrules.ExampleGlance, ns))
	_, err := glancesIn.Create(ctx, base, metav1.CreateOptions{DryRun: []string{metav1.DryRunAll}})
	require.NoError(t, err, "the reference example is admitted")

	n := 0
	for _, r := range refrules.GlanceRules {
		if r.CEL {
			continue
		}
		n++
		t.Run(r.Name, func(t *testing.T) {
			o := object(t, inNamespace(refrules.ExampleGlance, ns))
			r.Apply(o.Object)
			js, err := json.Marshal(o.Object)
			require.NoError(t, err)
			o = &unstructured.Unstructured{}
			require.NoError(t, o.UnmarshalJSON(js))
			ctx, cancel := contextTimeout()
			defer cancel()
			_, err = glancesIn.Create(ctx, o, metav1.CreateOptions{DryRun: []string{metav1.DryRunAll}})
			require.Error(t, err, "the API server admitted it")
			assert.True(t, apierrors.IsInvalid(err), "the webhook answers 422: %v", err)
			msg := denial(err.Error())
			require.NotEmpty(t, msg, "refused by the webhook: %v", err)
			assert.Regexp(t, regexp.QuoteMeta(r.Field)+`[ :\[]`, msg)
		})
	}
	require.NotZero(t, n)
}
