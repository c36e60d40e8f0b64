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
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/c5c3/glance-hooks/test/guide"
	"github.com/c5c3/glance-hooks/test/refrules"
)

// TestReferenceWebhookRules: the rules of the reference Glance API that
// only /validate can check (the CRD's own are refused before it is asked,
// see schemas) reach the webhook through the real API server, which
// refuses the change with the field named.
func TestReferenceWebhookRules(t *testing.T) {
	webhookRules(t, "reference", glances, refrules.ExampleGlance, refrules.GlanceRules)
}

// TestControlPlaneWebhookRules: the same of a ControlPlane's rules, on the
// guide's ControlPlane.
func TestControlPlaneWebhookRules(t *testing.T) {
	webhookRules(t, "controlplane-rules", controlPlanes, guide.ControlPlane, refrules.ControlPlaneRules)
}

func webhookRules(t *testing.T, ns string, gvr schema.GroupVersionResource, base string, rules []refrules.Rule) {
	s := setup(t)
	s.env.Namespace(t, ns)
	client := s.env.Dynamic.Resource(gvr).Namespace(ns)

	ctx, cancel := contextTimeout()
	defer cancel()
	_, err := client.Create(ctx, object(t, inNamespace(base, ns)), metav1.CreateOptions{DryRun: []string{metav1.DryRunAll}})
	require.NoError(t, err, "the base is admitted")

	n := 0
	for _, r := range rules {
		if r.CEL {
			continue
		}
		n++
		t.Run(r.Name, func(t *testing.T) {
			o := object(t, inNamespace(base, ns))
			r.Apply(o.Object)
			js, err := json.Marshal(o.Object)
			require.NoError(t, err)
			o = &unstructured.Unstructured{}
			require.NoError(t, o.UnmarshalJSON(js))
			ctx, cancel := contextTimeout()
			defer cancel()
			_, err = client.Create(ctx, o, metav1.CreateOptions{DryRun: []string{metav1.DryRunAll}})
			require.Error(t, err, "the API server admitted it")
			assert.True(t, apierrors.IsInvalid(err), "the webhook answers 422: %v", err)
			msg := denial(err.Error())
			require.NotEmpty(t, msg, "refused by the webhook: %v", err)
			assert.Regexp(t, regexp.QuoteMeta(r.Field)+`[ :\[]`, msg)
		})
	}
	require.NotZero(t, n)
}
