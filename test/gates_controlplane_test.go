package test

import (
	"encoding/json"
	"net/http"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/c5c3/glance-hooks/hooks/contract/api"
	"github.com/c5c3/glance-hooks/test/refrules"
)

// The two gates a ControlPlane passes: /validate and /sync/controlplane.
// Both run controlplane.Problems, so what one refuses the other refuses,
// in the same words; the sync then keeps the Glance and GlanceBackends it
// projected before.

// controlPlaneGateBase is the sync request the gates are asked about: the
// guide's ControlPlane as a real Metacontroller sent it, its Glance and
// GlanceBackends projected.
const controlPlaneGateBase = "fixtures/sync-controlplane/recorded-metacontroller/request.json"

// controlPlaneAnswer is what /sync/controlplane said: GlanceProjected and
// the projected children, each as JSON by kind/name.
type controlPlaneAnswer struct {
	verdict
	projected map[string]string
}

func controlPlaneSync(t testing.TB, h http.Handler, req map[string]any) controlPlaneAnswer {
	t.Helper()
	out, v, ok := syncAt(t, h, "/sync/controlplane", req, "GlanceProjected")
	if !ok {
		return controlPlaneAnswer{verdict: v}
	}
	v.refused = v.status == "False"
	a := controlPlaneAnswer{verdict: v, projected: map[string]string{}}
	for i, c := range out.Children {
		if c.Kind == "Glance" || c.Kind == "GlanceBackend" {
			a.projected[c.Kind+"/"+c.Metadata.Name] = string(out.Raw[i])
		}
	}
	return a
}

func controlPlaneVerdict(t testing.TB, h http.Handler, req map[string]any) verdict {
	t.Helper()
	return admissionVerdict(t, h, map[string]any{"group": "c5c3.io", "version": "v1alpha1", "kind": "ControlPlane"}, req["parent"])
}

// TestControlPlaneGatesAgree: every case of the ControlPlane table goes to
// both gates. A refused one is refused by both in the same words, naming
// the field; the sync projects nothing new (its Glance and GlanceBackends
// are the request's, as last applied). An accepted one passes both and is projected.
func TestControlPlaneGatesAgree(t *testing.T) {
	h := newTestServer(t, nil)
	base := requestAt(t, controlPlaneGateBase)
	before := controlPlaneSync(t, h, base)
	require.False(t, before.refused, "the base is projected: %s", before.message)
	require.NotEmpty(t, before.projected)
	kept := lastApplied(t, base)
	require.Len(t, kept, len(before.projected))
	for _, r := range refrules.ControlPlaneRules {
		t.Run("refused/"+r.Name, func(t *testing.T) {
			req := gateSpec(t, base, r)
			a, s := controlPlaneVerdict(t, h, req), controlPlaneSync(t, h, req)
			bothRefuse(t, r, a, s.verdict, "/sync/controlplane")
			assert.Equal(t, kept, normalized(t, s.projected), "/sync/controlplane keeps the children as last applied")
		})
	}
	for _, r := range refrules.AcceptedControlPlaneRules {
		t.Run("accepted/"+r.Name, func(t *testing.T) {
			req := gateSpec(t, base, r)
			a, s := controlPlaneVerdict(t, h, req), controlPlaneSync(t, h, req)
			require.False(t, a.refused, "/validate refused it: %s", a.message)
			require.False(t, s.refused, "/sync/controlplane refused it: %s", s.message)
			assert.Equal(t, len(before.projected), len(s.projected), "/sync/controlplane projects the Glance and every GlanceBackend")
		})
	}
}

// lastApplied is what Metacontroller last applied of each observed Glance
// and GlanceBackend of a request, by kind/name, as normalized JSON.
func lastApplied(t testing.TB, req map[string]any) map[string]string {
	t.Helper()
	out := map[string]string{}
	for key, objs := range req["children"].(map[string]any) {
		kind, _, _ := strings.Cut(key, ".")
		if kind != "Glance" && kind != "GlanceBackend" {
			continue
		}
		for name, o := range objs.(map[string]any) {
			annotations, _ := o.(map[string]any)["metadata"].(map[string]any)["annotations"].(map[string]any)
			applied, ok := annotations["metacontroller.k8s.io/last-applied-configuration"].(string)
			require.True(t, ok, "%s %s carries what was last applied", kind, name)
			out[kind+"/"+name] = applied
		}
	}
	return normalized(t, out)
}

// normalized re-encodes each JSON document, so key order does not count.
func normalized(t testing.TB, docs map[string]string) map[string]string {
	t.Helper()
	out := make(map[string]string, len(docs))
	for k, doc := range docs {
		var v any
		require.NoError(t, json.Unmarshal([]byte(doc), &v), k)
		out[k] = string(mustJSON(v))
	}
	return out
}

// FuzzControlPlaneGatesAgree sets one field of the base ControlPlane's spec
// to a value (fuzzedSpec) and holds the
// two gates to one rule set: admission must not allow what the sync
// refuses, and the sync must not project anything new from what admission
// refuses.
func FuzzControlPlaneGatesAgree(f *testing.F) {
	addRuleSeeds(f, refrules.ControlPlaneRules, refrules.AcceptedControlPlaneRules)
	f.Add("services.glance.publicEndpoint", "https://images.example.com\n")
	f.Add("services.glance.backends[0].name", "default\u2028")
	h := newTestServer(f, nil)
	base := requestAt(f, controlPlaneGateBase)
	kept := lastApplied(f, base)
	f.Fuzz(func(t *testing.T, path, value string) {
		if prunedService(path) {
			return
		}
		req, ok := fuzzedSpec(t, base, path, value)
		if !ok {
			return
		}
		a, s := controlPlaneVerdict(t, h, req), controlPlaneSync(t, h, req)
		if !a.refused && s.refused {
			t.Errorf("spec.%s = %q: admission allows what the sync refuses: %s", path, value, s.message)
		}
		// What admission refuses, the sync projects nothing new from: it
		// refuses it too, or it keeps the children as last applied for
		// another reason (spec.services without glance, as a key the CRD
		// prunes leaves it). An answer that is not 200 changes nothing:
		// Metacontroller keeps every child until a sync answers.
		if a.refused && s.projected != nil && !reflect.DeepEqual(kept, normalized(t, s.projected)) {
			t.Errorf("spec.%s = %q: the sync projects what admission refuses: %s", path, value, a.message)
		}
	})
}

// prunedService says a path sets a key of spec.services the CRD does not
// list, or spec.services spelt in another case: the API server prunes it
// before any sync sees it (encoding/json would match the other case), so
// only admission, which reads the object as written, can refuse it.
func prunedService(path string) bool {
	top, rest, _ := strings.Cut(path, ".")
	if !strings.EqualFold(top, "services") {
		return false
	}
	service, _, _ := strings.Cut(rest, ".")
	return top != "services" || !slices.Contains(api.KnownServices, service)
}
