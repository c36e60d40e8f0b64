package test

import (
	"bytes"
	"context"
	"encoding/json"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	admissionv1 "k8s.io/api/admission/v1"

	"github.com/c5c3/glance-hooks/hooks/contract/api"
	"github.com/c5c3/glance-hooks/transport/server"
)

// review decodes the AdmissionReview answer of a 200.
func review(t *testing.T, body []byte) *admissionv1.AdmissionResponse {
	t.Helper()
	var rev admissionv1.AdmissionReview
	require.NoError(t, json.Unmarshal(body, &rev), "%s", body)
	require.Equal(t, "admission.k8s.io/v1", rev.APIVersion)
	require.Equal(t, "AdmissionReview", rev.Kind)
	require.NotNil(t, rev.Response)
	return rev.Response
}

func fixtureRequest(t *testing.T, name string) []byte {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join("fixtures", "validate", name, "request.json"))
	require.NoError(t, err)
	return raw
}

// TestValidateMalformed: a body that is not an AdmissionReview this hook can
// answer is a 400 with one line of JSON, never a panic and never an allow.
func TestValidateMalformed(t *testing.T) {
	h := newTestServer(t, nil)
	good := fixtureRequest(t, "glancebackend-second-default-denied")
	var asMap map[string]any
	require.NoError(t, json.Unmarshal(good, &asMap))
	mutate := func(f func(m map[string]any)) []byte {
		var m map[string]any
		require.NoError(t, json.Unmarshal(good, &m))
		f(m)
		b, err := json.Marshal(m)
		require.NoError(t, err)
		return b
	}
	req := func(m map[string]any) map[string]any { return m["request"].(map[string]any) }
	cases := []struct {
		name     string
		body     []byte
		contains string
	}{
		{"empty", nil, "request body is empty"},
		{"not JSON", []byte("hello"), "body is not an AdmissionReview: expected a JSON object"},
		{"truncated", good[:len(good)/2], "truncated JSON"},
		{"trailing data", append(append([]byte{}, good...), []byte(" {}")...), "unexpected data after the JSON object"},
		{"Metacontroller body", []byte(`{"parent":{},"children":{}}`), "got an object without apiVersion and kind"},
		{"wrong kind", mutate(func(m map[string]any) { m["kind"] = "ConfigMap" }), "got admission.k8s.io/v1 ConfigMap"},
		{"v1beta1", mutate(func(m map[string]any) { m["apiVersion"] = "admission.k8s.io/v1beta1" }), "this hook answers admission.k8s.io/v1 AdmissionReview"},
		{"missing request", mutate(func(m map[string]any) { delete(m, "request") }), "AdmissionReview has no request"},
		{"missing uid", mutate(func(m map[string]any) { delete(req(m), "uid") }), "AdmissionReview request has no uid"},
		{"missing object", mutate(func(m map[string]any) { delete(req(m), "object") }), "AdmissionReview CREATE request for GlanceBackend has no object"},
		{"request of the wrong shape", mutate(func(m map[string]any) { m["request"] = []any{1} }), "field request must be"},
		{"raw control character", []byte("{\"kind\":\"Admission\x01Review\"}"), "malformed JSON"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			rec := post(h, "/validate", tc.body)
			assert.Equal(t, 400, rec.Code, rec.Body.String())
			msg := errorOf(t, rec.Body.Bytes())
			assert.Contains(t, msg, tc.contains)
			assert.NotContains(t, msg, "garage-s3-credentials", "an error never quotes the body")
		})
	}
}

// TestValidateWithoutAPIAccess: a server without a Lister (no kubeconfig, not
// in a pod) refuses what needs the siblings, allows what does not, and keeps
// serving the sync hooks.
func TestValidateWithoutAPIAccess(t *testing.T) {
	var logs bytes.Buffer
	h := server.New(server.Config{Logger: slog.New(slog.NewJSONHandler(&logs, nil)), Routes: server.DefaultRoutes()})

	rec := post(h, "/validate", fixtureRequest(t, "glancebackend-second-default-denied"))
	require.Equal(t, 200, rec.Code)
	resp := review(t, rec.Body.Bytes())
	assert.False(t, resp.Allowed)
	assert.EqualValues(t, 503, resp.Result.Code)
	assert.Equal(t, `GlanceBackend "secondary" cannot be checked against the other backends of Glance "glance", so it is refused: listing GlanceBackends in namespace "openstack" failed: no Kubernetes API client is configured`, resp.Result.Message)

	// Releasing a default needs no read: allowed.
	resp = review(t, post(h, "/validate", fixtureRequest(t, "glancebackend-release-default-allowed")).Body.Bytes())
	assert.True(t, resp.Allowed)
	// The ControlPlane and Glance rules need none either.
	resp = review(t, post(h, "/validate", fixtureRequest(t, "controlplane-switch-default-allowed")).Body.Bytes())
	assert.True(t, resp.Allowed)

	assert.Equal(t, 200, post(h, "/sync/controlplane", recordedBody(t, "sync-controlplane")).Code)

	// One log line per review: what, the decision, why; never the body.
	var first map[string]any
	require.NoError(t, json.Unmarshal([]byte(strings.SplitN(logs.String(), "\n", 2)[0]), &first))
	assert.Equal(t, "/validate", first["path"])
	assert.Equal(t, "CREATE GlanceBackend openstack/secondary", first["parent"])
	assert.Equal(t, false, first["allowed"])
	assert.Contains(t, first["denied"], "cannot be checked against the other backends")
	assert.NotContains(t, logs.String(), "garage-s3-credentials")
	assert.NotContains(t, logs.String(), "glance-images")
}

// blockingLister answers only when its context ends, like an API server
// that does not answer; it keeps the deadline each call was given.
type blockingLister struct{ deadlines chan time.Time }

func (l blockingLister) wait(ctx context.Context) error {
	if d, ok := ctx.Deadline(); ok && l.deadlines != nil {
		select {
		case l.deadlines <- d:
		default:
		}
	}
	<-ctx.Done()
	return ctx.Err()
}

func (l blockingLister) ListGlanceBackends(ctx context.Context, _ string) ([]api.GlanceBackend, error) {
	return nil, l.wait(ctx)
}

func (l blockingLister) GlanceControlPlane(ctx context.Context, _, _ string) (string, error) {
	return "", l.wait(ctx)
}

// TestValidateHonoursTheWebhookTimeout: the API server sends ?timeout= (the
// webhook's timeoutSeconds); the hook refuses before it, so the user reads
// this hook's message rather than a webhook call timeout. What is checked
// is the deadline the hook gives its API read, counted from when the
// review was sent: half of 2 s, well before the API server's own. The
// answer's arrival is not timed; on a busy machine it may come late for
// reasons that are not the hook's.
func TestValidateHonoursTheWebhookTimeout(t *testing.T) {
	lister := blockingLister{deadlines: make(chan time.Time, 1)}
	h := newTestServerWith(t, nil, lister)
	sent := time.Now()
	rec := post(h, "/validate?timeout=2s", fixtureRequest(t, "glancebackend-second-default-denied"))
	require.Equal(t, 200, rec.Code)
	resp := review(t, rec.Body.Bytes())
	assert.False(t, resp.Allowed)
	assert.Contains(t, resp.Result.Message, "context deadline exceeded")
	select {
	case deadline := <-lister.deadlines:
		assert.GreaterOrEqual(t, deadline.Sub(sent), time.Second, "the API read may take half the webhook's timeout")
		assert.Less(t, deadline.Sub(sent), 2*time.Second, "the API read ends before the webhook's timeout")
	default:
		t.Fatal("the hook read the API without a deadline")
	}
}
