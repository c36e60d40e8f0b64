package test

import (
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/c5c3/glance-hooks/test/refrules"
)

// The two gates a GlanceBackend passes: /validate and /sync/glancebackend.
// Both run rules.GlanceBackend, so what one refuses the other refuses, in
// the same words; the sync then renders no store Secret.

// glanceBackendGateBase is the sync request the gates are asked about: a
// store with its credentials, rendered and in the running config.
const glanceBackendGateBase = "fixtures/sync-glancebackend/ready/request.json"

// glanceBackendSync asks /sync/glancebackend: refused is StoreRendered
// InvalidSpec (or an answer that is not 200), the message is
// StoreRendered's; secret says the answer holds a store Secret.
func glanceBackendSync(t testing.TB, h http.Handler, req map[string]any) (v verdict, secret bool) {
	t.Helper()
	out, v, ok := syncAt(t, h, "/sync/glancebackend", req, "StoreRendered")
	if !ok {
		return v, false
	}
	v.refused = v.reason == "InvalidSpec"
	for _, c := range out.Children {
		secret = secret || c.Kind == "Secret"
	}
	return v, secret
}

// TestGlanceBackendGatesAgree: every case of the GlanceBackend table goes
// to both gates. A refused one is refused by both in the same words,
// naming the field, and no store Secret is rendered; an accepted one
// passes both.
func TestGlanceBackendGatesAgree(t *testing.T) {
	h := newTestServer(t, nil)
	base := requestAt(t, glanceBackendGateBase)
	kind := map[string]any{"group": "glance.openstack.c5c3.io", "version": "v1alpha1", "kind": "GlanceBackend"}
	_, secret := glanceBackendSync(t, h, base)
	require.True(t, secret, "the base renders its store Secret")
	for _, r := range refrules.GlanceBackendRules {
		t.Run("refused/"+r.Name, func(t *testing.T) {
			req := gateSpec(t, base, r)
			a := admissionVerdict(t, h, kind, req["parent"])
			s, secret := glanceBackendSync(t, h, req)
			bothRefuse(t, r, a, s, "/sync/glancebackend")
			assert.False(t, secret, "/sync/glancebackend renders no store Secret")
		})
	}
	for _, r := range refrules.AcceptedGlanceBackendRules {
		t.Run("accepted/"+r.Name, func(t *testing.T) {
			req := gateSpec(t, base, r)
			a := admissionVerdict(t, h, kind, req["parent"])
			s, _ := glanceBackendSync(t, h, req)
			require.False(t, a.refused, "/validate refused it: %s", a.message)
			require.False(t, s.refused, "/sync/glancebackend refused it: %s", s.message)
		})
	}
}
