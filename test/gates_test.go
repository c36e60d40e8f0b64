package test

import (
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/c5c3/glance-hooks/hooks/contract/inivalue"
	"github.com/c5c3/glance-hooks/test/refrules"
)

// The two gates a Glance passes: /validate, when the webhook is there, and
// /sync/glance, always. They run the same rules (hooks/contract/rules), so
// a spec one refuses the other refuses too, naming the same field.

// gateBase is the sync request the gates are asked about: two stores ready
// and a config running, so a spec that passes renders a new config.
const gateBase = "fixtures/sync-glance/two-stores-ready/request.json"

// verdict is what one gate said of an object.
type verdict struct {
	refused bool
	message string
	// status and reason of the sync's condition that judges the spec.
	status, reason string
	// renamed: the sync answered a config ConfigMap the request did not
	// observe (a new render).
	renamed bool
}

// gateRequest is the base sync request, decoded.
func gateRequest(t testing.TB) map[string]any {
	t.Helper()
	return requestAt(t, gateBase)
}

// requestAt is a fixture's request, decoded.
func requestAt(t testing.TB, path string) map[string]any {
	t.Helper()
	raw, err := os.ReadFile(filepath.FromSlash(path))
	require.NoError(t, err)
	var req map[string]any
	require.NoError(t, json.Unmarshal(raw, &req))
	return req
}

// gateSpec is a copy of the base request whose parent has a rule applied.
func gateSpec(t testing.TB, base map[string]any, r refrules.Rule) map[string]any {
	t.Helper()
	var req map[string]any
	require.NoError(t, json.Unmarshal(mustJSON(base), &req))
	r.Apply(req["parent"].(map[string]any))
	return req
}

// validateVerdict asks /validate about the request's Glance, as the API
// server would on CREATE.
func validateVerdict(t testing.TB, h http.Handler, req map[string]any) verdict {
	t.Helper()
	return admissionVerdict(t, h, map[string]any{"group": "glance.openstack.c5c3.io", "version": "v1alpha1", "kind": "Glance"}, req["parent"])
}

// admissionVerdict asks /validate about an object of a kind, as the API
// server would on CREATE.
func admissionVerdict(t testing.TB, h http.Handler, kind map[string]any, object any) verdict {
	t.Helper()
	review := map[string]any{"apiVersion": "admission.k8s.io/v1", "kind": "AdmissionReview", "request": map[string]any{
		"uid": "3c1b0f52-9d7e-4a49-8f3e-5b7c2a1d0e11", "operation": "CREATE", "namespace": "openstack",
		"kind": kind, "object": object,
	}}
	rec := post(h, "/validate", mustJSON(review))
	if rec.Code != http.StatusOK {
		return verdict{refused: true, message: rec.Body.String()}
	}
	var out struct {
		Response struct {
			Allowed bool `json:"allowed"`
			Status  struct {
				Message string `json:"message"`
			} `json:"status"`
		} `json:"response"`
	}
	require.NoError(t, json.Unmarshal(rec.Body.Bytes(), &out))
	return verdict{refused: !out.Response.Allowed, message: out.Response.Status.Message}
}

// syncVerdict asks /sync/glance: refused is ConfigRendered InvalidSpec (or
// an answer that is not 200), the message is ConfigRendered's.
func syncVerdict(t testing.TB, h http.Handler, req map[string]any) verdict {
	t.Helper()
	out, v, ok := syncAt(t, h, "/sync/glance", req, "ConfigRendered")
	if !ok {
		return v
	}
	v.refused = v.reason == "InvalidSpec"
	observed, _ := req["children"].(map[string]any)["ConfigMap.v1"].(map[string]any)
	for _, c := range out.Children {
		if _, seen := observed[c.Metadata.Name]; c.Kind == "ConfigMap" && !seen {
			v.renamed = true
		}
	}
	return v
}

// syncAnswer is what a gate test reads of a sync hook's answer.
type syncAnswer struct {
	Status struct {
		Conditions []struct{ Type, Status, Reason, Message string } `json:"conditions"`
	} `json:"status"`
	Children []struct {
		Kind     string `json:"kind"`
		Metadata struct {
			Name string `json:"name"`
		} `json:"metadata"`
	} `json:"children"`
	// Raw are the children as answered, in the same order.
	Raw []json.RawMessage `json:"-"`
}

// syncAt posts req to a sync hook and reads its answer; the verdict holds
// the condition typ's status, reason and message. ok is false when the
// hook did not answer 200: the verdict is then a refusal with the body.
func syncAt(t testing.TB, h http.Handler, path string, req map[string]any, typ string) (out syncAnswer, v verdict, ok bool) {
	t.Helper()
	rec := post(h, path, mustJSON(req))
	if rec.Code != http.StatusOK {
		return out, verdict{refused: true, message: rec.Body.String()}, false
	}
	require.NoError(t, json.Unmarshal(rec.Body.Bytes(), &out))
	var raw struct {
		Children []json.RawMessage `json:"children"`
	}
	require.NoError(t, json.Unmarshal(rec.Body.Bytes(), &raw))
	out.Raw = raw.Children
	for _, c := range out.Status.Conditions {
		if c.Type == typ {
			v.status, v.reason, v.message = c.Status, c.Reason, c.Message
		}
	}
	return out, v, true
}

// TestGatesAgree: every case of the shared table goes to both gates with
// the same Glance. A refused one is refused by both, each naming the
// field; the sync renders no new config. An accepted one passes both, and
// the sync renders it. A rule added to one gate only fails here.
func TestGatesAgree(t *testing.T) {
	h := newTestServer(t, nil)
	base := gateRequest(t)
	for _, r := range refrules.GlanceRules {
		t.Run("refused/"+r.Name, func(t *testing.T) {
			req := gateSpec(t, base, r)
			a, s := validateVerdict(t, h, req), syncVerdict(t, h, req)
			bothRefuse(t, r, a, s, "/sync/glance")
			assert.False(t, s.renamed, "/sync/glance renders no new config")
		})
	}
	for _, r := range refrules.AcceptedRules {
		t.Run("accepted/"+r.Name, func(t *testing.T) {
			req := gateSpec(t, base, r)
			a, s := validateVerdict(t, h, req), syncVerdict(t, h, req)
			require.False(t, a.refused, "/validate refused it: %s", a.message)
			require.False(t, s.refused, "/sync/glance refused it: %s", s.message)
			assert.True(t, strings.HasPrefix(s.message, "rendered ConfigMap"), "/sync/glance renders the change: %s", s.message)
		})
	}
}

// bothRefuse: admission (a) and the sync hook at syncPath (s) refused the
// rule's case, each naming its field, the sync in admission's words, and
// neither message carries a control character.
func bothRefuse(t *testing.T, r refrules.Rule, a, s verdict, syncPath string) {
	t.Helper()
	require.True(t, a.refused, "/validate admitted it")
	require.True(t, s.refused, "%s accepted it: %s", syncPath, s.message)
	assert.Contains(t, a.message, r.Field, "/validate names the field")
	assert.Contains(t, s.message, r.Field, "%s names the field", syncPath)
	if _, words, ok := strings.Cut(a.message, `": `); assert.True(t, ok, "/validate names the object: %s", a.message) {
		assert.Contains(t, s.message, words, "%s refuses in /validate's words", syncPath)
	}
	for _, msg := range []string{a.message, s.message} {
		assert.Empty(t, inivalue.CharacterProblem(msg), "a message carries no control character: %q", msg)
	}
}

// FuzzGatesAgree sets one field of the base Glance's spec to a value (JSON
// when it reads as JSON, else the string) and holds the two gates to one
// rule set: admission must not allow what the sync refuses, and the sync
// must not render a new config from what admission refuses.
func FuzzGatesAgree(f *testing.F) {
	addRuleSeeds(f, refrules.GlanceRules, refrules.AcceptedRules)
	f.Add("gateway.hostname", "a.example\nb")
	f.Add("policyOverrides.rules.get_images", "role:reader\u2029")
	h := newTestServer(f, nil)
	base := gateRequest(f)
	f.Fuzz(func(t *testing.T, path, value string) {
		req, ok := fuzzedSpec(t, base, path, value)
		if !ok {
			return
		}
		a, s := validateVerdict(t, h, req), syncVerdict(t, h, req)
		if !a.refused && s.refused {
			t.Errorf("spec.%s = %q: admission allows what the sync refuses: %s", path, value, s.message)
		}
		if a.refused && s.renamed {
			t.Errorf("spec.%s = %q: the sync renders what admission refuses: %s", path, value, a.message)
		}
	})
}

// addRuleSeeds seeds a fuzz target of the gates with every value the
// tables set, at its path.
func addRuleSeeds(f *testing.F, tables ...[]refrules.Rule) {
	for _, table := range tables {
		for _, r := range table {
			for path, v := range r.Set {
				f.Add(path, string(mustJSON(v)))
			}
		}
	}
}

// fuzzedSpec is gateSpec for a path and a value a fuzzer made up: the
// value as JSON when it reads as JSON, else the string. ok is false for a
// path no rule can set (an empty segment) or one naming a list entry the
// base does not have (refrules panics on one, since a table case must
// never name it).
func fuzzedSpec(t testing.TB, base map[string]any, path, value string) (req map[string]any, ok bool) {
	if path == "" || strings.HasPrefix(path, ".") || strings.HasSuffix(path, ".") || strings.Contains(path, "..") {
		return nil, false
	}
	var v any = value
	if json.Unmarshal([]byte(value), &v) != nil {
		v = value
	}
	defer func() {
		if recover() != nil {
			req, ok = nil, false
		}
	}()
	return gateSpec(t, base, refrules.Rule{Set: map[string]any{path: v}}), true
}
