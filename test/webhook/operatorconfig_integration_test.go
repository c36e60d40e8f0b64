//go:build integration

package webhook_test

import (
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/rest"

	"github.com/c5c3/glance-hooks/test/guide"
	"github.com/c5c3/glance-hooks/test/refrules"
)

// warnings collects the admission warnings the API server sends back.
type warnings struct {
	mu   sync.Mutex
	seen []string
}

func (w *warnings) HandleWarningHeader(_ int, _ string, text string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.seen = append(w.seen, text)
}

func (w *warnings) take() []string {
	w.mu.Lock()
	defer w.mu.Unlock()
	out := w.seen
	w.seen = nil
	return out
}

// TestExtraConfigWarnings: what the option catalogs accept with a warning
// reaches a kubectl user through the real API server: a deprecated option
// name, with its replacement named, and a release without a catalog; and
// the longest of the reference's warnings, a widened import filter, whole
// (the API server may cut a long warning; it does not cut this one).
// Admitted options raise none. (The refusals are refrules.GlanceRules,
// run by TestReferenceWebhookRules.)
func TestExtraConfigWarnings(t *testing.T) {
	s := setup(t)
	const ns = "extra-config"
	s.env.Namespace(t, ns)
	w := &warnings{}
	cfg := rest.CopyConfig(s.env.Config)
	cfg.WarningHandler = w
	client, err := dynamic.NewForConfig(cfg)
	require.NoError(t, err)
	glancesIn := client.Resource(glances).Namespace(ns)

	cases := map[string]struct {
		set  map[string]any
		want []string
	}{
		"known option": {
			set: map[string]any{"extraConfig": map[string]any{"DEFAULT": map[string]any{"allow_anonymous_access": "true"}}},
		},
		"deprecated name": {
			set:  map[string]any{"extraConfig": map[string]any{"keystone_authtoken": map[string]any{"memcache_servers": "m:11211"}}},
			want: []string{"spec.extraConfig [keystone_authtoken] memcache_servers: deprecated option in glance 2025.2, replaced by [keystone_authtoken] memcached_servers"},
		},
		"widened allow list": {
			set: map[string]any{"importFiltering": map[string]any{"allowedPorts": []any{443, 8080}}},
			want: []string{"spec.importFiltering.allowedPorts is set to [443 8080], widening the operator default [443]. The scheme and port pin is the primary web-download control — " +
				"the link-local metadata endpoint answers on http/80 — and once widened only the host denylist remains, which matches literally: alternate spellings of the same address " +
				"(an integer or IPv4-mapped form, a raw ClusterIP, a trailing-dot FQDN) are not covered. Confine the reachable endpoints with spec.networkPolicy.additionalEgress, " +
				"or pin allowedHosts to the mirrors imports are supposed to use."},
		},
		"release without a catalog": {
			set: map[string]any{"openStackRelease": "2030.1", "image.tag": "2030.1",
				"extraConfig": map[string]any{"DEFAULT": map[string]any{"anything": "x"}}},
			want: []string{`spec.extraConfig was not validated against an option catalog: no catalog for release "2030.1" is embedded in this operator build`},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			o := object(t, inNamespace(refrules.ExampleGlance, ns))
			refrules.Rule{Set: tc.set}.Apply(o.Object)
			w.take()
			ctx, cancel := contextTimeout()
			defer cancel()
			_, err := glancesIn.Create(ctx, &unstructured.Unstructured{Object: o.Object}, metav1.CreateOptions{DryRun: []string{metav1.DryRunAll}})
			require.NoError(t, err, "admitted")
			assert.Equal(t, tc.want, w.take())
		})
	}
}

// TestControlPlaneExtraConfigWarnings: the reference ControlPlane's
// warnings of its Glance's extraConfig reach a kubectl user through the
// real API server: a key the hooks own that a block overrides, each block
// named, and a release without an option catalog, once for the merge.
func TestControlPlaneExtraConfigWarnings(t *testing.T) {
	s := setup(t)
	const ns = "controlplane-warnings"
	s.env.Namespace(t, ns)
	w := &warnings{}
	cfg := rest.CopyConfig(s.env.Config)
	cfg.WarningHandler = w
	client, err := dynamic.NewForConfig(cfg)
	require.NoError(t, err)
	controlPlanesIn := client.Resource(controlPlanes).Namespace(ns)

	cases := map[string]struct {
		set  map[string]any
		want []string
	}{
		"owned key in both blocks": {
			set: map[string]any{"globalExtraConfig": map[string]any{"glance_store": map[string]any{"default_backend": "default"}},
				"services.glance.extraConfig": map[string]any{"glance_store": map[string]any{"default_backend": "secondary"}}},
			want: []string{"[glance_store] default_backend overrides an operator-owned key (managed by operator-computed); the override is honored but reported " +
				"(set at spec.globalExtraConfig[glance_store][default_backend], spec.services.glance.extraConfig[glance_store][default_backend])"},
		},
		"release without a catalog": {
			set: map[string]any{"openStackRelease": "2030.1",
				"globalExtraConfig":           map[string]any{"DEFAULT": map[string]any{"anything": "x"}},
				"services.glance.extraConfig": map[string]any{"DEFAULT": map[string]any{"other": "y"}}},
			want: []string{`the merged glance extraConfig was not validated against an option catalog: no catalog for release "2030.1" is embedded in this operator build`},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			o := object(t, inNamespace(guide.ControlPlane, ns))
			refrules.Rule{Set: tc.set}.Apply(o.Object)
			w.take()
			ctx, cancel := contextTimeout()
			defer cancel()
			_, err := controlPlanesIn.Create(ctx, &unstructured.Unstructured{Object: o.Object}, metav1.CreateOptions{DryRun: []string{metav1.DryRunAll}})
			require.NoError(t, err, "admitted")
			assert.Equal(t, tc.want, w.take())
		})
	}
}
