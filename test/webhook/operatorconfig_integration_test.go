//go:build integration

package webhook_test

import (
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
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
	createWarnings(t, "extra-config", glances, refrules.ExampleGlance, map[string]warningCase{
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
	})
}

// TestControlPlaneExtraConfigWarnings: the reference ControlPlane's
// warnings of its Glance's extraConfig reach a kubectl user through the
// real API server: a key the hooks own that a block overrides, each block
// named, and a release without an option catalog, once for the merge.
func TestControlPlaneExtraConfigWarnings(t *testing.T) {
	createWarnings(t, "controlplane-warnings", controlPlanes, guide.ControlPlane, map[string]warningCase{
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
	})
}

// warningCase is a change to an admitted object (paths under its spec)
// and the warnings its creation must raise, in order.
type warningCase struct {
	set  map[string]any
	want []string
}

// createWarnings creates (dry run) base, in namespace ns, changed by each
// case, and asserts the warnings the API server hands back.
func createWarnings(t *testing.T, ns string, gvr schema.GroupVersionResource, base string, cases map[string]warningCase) {
	s := setup(t)
	s.env.Namespace(t, ns)
	w := &warnings{}
	cfg := rest.CopyConfig(s.env.Config)
	cfg.WarningHandler = w
	client, err := dynamic.NewForConfig(cfg)
	require.NoError(t, err)
	in := client.Resource(gvr).Namespace(ns)
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			o := object(t, inNamespace(base, ns))
			refrules.Rule{Set: tc.set}.Apply(o.Object)
			w.take()
			ctx, cancel := contextTimeout()
			defer cancel()
			_, err := in.Create(ctx, &unstructured.Unstructured{Object: o.Object}, metav1.CreateOptions{DryRun: []string{metav1.DryRunAll}})
			require.NoError(t, err, "admitted")
			assert.Equal(t, tc.want, w.take())
		})
	}
}
