package test

import (
	"bytes"
	"encoding/json"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/c5c3/glance-hooks/hooks/contract/metacontroller"
	"github.com/c5c3/glance-hooks/transport/server"
)

func recordedBody(t *testing.T, name string) []byte {
	t.Helper()
	raw, err := os.ReadFile("../../shared/metacontroller-requests/" + name + ".json")
	if os.IsNotExist(err) {
		raw, err = os.ReadFile("fixtures/sync-controlplane/recorded-metacontroller/request.json")
		require.NoError(t, err)
		return raw
	}
	require.NoError(t, err)
	var rec struct {
		Body json.RawMessage `json:"body"`
	}
	require.NoError(t, json.Unmarshal(raw, &rec))
	return rec.Body
}

func errorOf(t *testing.T, body []byte) string {
	t.Helper()
	var e struct {
		Error string `json:"error"`
	}
	require.NoError(t, json.Unmarshal(body, &e), "error answers are JSON: %s", body)
	require.NotEmpty(t, e.Error)
	require.NotContains(t, e.Error, "\n", "error answers are one line")
	return e.Error
}

// TestBadInput covers every class of bad input: each gets a 4xx with a
// one-line JSON error naming the problem.
func TestBadInput(t *testing.T) {
	h := newTestServer(t, nil)
	parent := func(p string) []byte { return []byte(`{"parent":` + p + `,"children":{}}`) }
	cases := []struct {
		name, path string
		body       []byte
		code       int
		contains   string
	}{
		{"empty body", "/sync/controlplane", nil, 400, "empty"},
		{"malformed JSON", "/sync/controlplane", []byte(`{"parent": {`), 400, "truncated JSON"},
		{"syntax error", "/sync/controlplane", []byte(`{"parent": x}`), 400, "malformed JSON at byte"},
		{"trailing data", "/sync/controlplane", []byte(`{"parent":{}} {}`), 400, "unexpected data"},
		{"not an object", "/sync/controlplane", []byte(`[1,2]`), 400, "not a Metacontroller sync request"},
		{"children wrong shape", "/sync/controlplane", []byte(`{"parent":{},"children":[]}`), 400, "field children"},
		{"no parent", "/sync/controlplane", []byte(`{"children":{}}`), 422, "no parent"},
		{"null parent", "/sync/controlplane", parent(`null`), 422, "no parent"},
		{"wrong kind", "/sync/controlplane", parent(`{"apiVersion":"glance.openstack.c5c3.io/v1alpha1","kind":"Glance","metadata":{"name":"g","namespace":"n"}}`), 422, "this hook serves c5c3.io/v1alpha1 ControlPlane"},
		{"no apiVersion", "/sync/controlplane", parent(`{"metadata":{"name":"g","namespace":"n"}}`), 422, "without apiVersion and kind"},
		{"no name", "/sync/controlplane", parent(`{"apiVersion":"c5c3.io/v1alpha1","kind":"ControlPlane","metadata":{"namespace":"n"}}`), 422, "no metadata.name"},
		{"no namespace", "/sync/controlplane", parent(`{"apiVersion":"c5c3.io/v1alpha1","kind":"ControlPlane","metadata":{"name":"cp"}}`), 422, "no metadata.namespace"},
		{"control character in name", "/sync/controlplane", parent(`{"apiVersion":"c5c3.io/v1alpha1","kind":"ControlPlane","metadata":{"name":"cp\u0000x","namespace":"n"}}`), 422, "not a valid object name"},
		{"spec of wrong type", "/sync/controlplane", parent(`{"apiVersion":"c5c3.io/v1alpha1","kind":"ControlPlane","metadata":{"name":"cp","namespace":"n"},"spec":{"services":{"glance":{"backends":"x"}}}}`), 422, "does not match its schema"},
		{"raw control character", "/sync/controlplane", []byte("{\"parent\":{\"kind\":\"a\x01b\"}}"), 400, "malformed JSON"},
		{"unknown route", "/sync/nothing", []byte(`{}`), 404, "not found"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			rec := post(h, tc.path, tc.body)
			assert.Equal(t, tc.code, rec.Code, rec.Body.String())
			assert.Contains(t, errorOf(t, rec.Body.Bytes()), tc.contains)
		})
	}
}

func TestWrongMethod(t *testing.T) {
	h := newTestServer(t, nil)
	req, _ := http.NewRequest(http.MethodGet, "/sync/controlplane", nil)
	rec := serve(h, req)
	assert.Equal(t, http.StatusMethodNotAllowed, rec.Code)
	errorOf(t, rec.Body.Bytes())
}

func TestOversizedBody(t *testing.T) {
	h := server.New(server.Config{MaxBodyBytes: 1024, Logger: slog.New(slog.DiscardHandler), Routes: server.DefaultRoutes()})
	body := []byte(`{"parent":{"x":"` + strings.Repeat("a", 2048) + `"}}`)
	rec := post(h, "/sync/controlplane", body)
	assert.Equal(t, http.StatusRequestEntityTooLarge, rec.Code)
	assert.Contains(t, errorOf(t, rec.Body.Bytes()), "1024-byte limit")

	// Without a Content-Length the limit still holds while reading.
	req, _ := http.NewRequest(http.MethodPost, "/sync/controlplane", bytes.NewReader(body))
	req.ContentLength = -1
	rec = serve(h, req)
	assert.Equal(t, http.StatusRequestEntityTooLarge, rec.Code)
}

// TestPanicIsA500AndServerKeepsServing registers a hook that panics.
func TestPanicIsA500AndServerKeepsServing(t *testing.T) {
	var logs bytes.Buffer
	routes := append(server.DefaultRoutes(), server.Route{Path: "/sync/panics",
		Sync: func(*metacontroller.SyncRequest, time.Time) (*metacontroller.SyncResponse, error) { panic("boom") }})
	h := server.New(server.Config{Logger: slog.New(slog.NewJSONHandler(&logs, nil)), Routes: routes})
	rec := post(h, "/sync/panics", []byte(`{"parent":{}}`))
	assert.Equal(t, http.StatusInternalServerError, rec.Code)
	assert.Contains(t, errorOf(t, rec.Body.Bytes()), "internal error")
	assert.Contains(t, logs.String(), "panic in hook")

	rec = post(h, "/sync/controlplane", recordedBody(t, "sync-controlplane"))
	assert.Equal(t, http.StatusOK, rec.Code)
}

func TestHealthAndReady(t *testing.T) {
	h := newTestServer(t, nil)
	for _, p := range []string{"/healthz", "/readyz"} {
		req, _ := http.NewRequest(http.MethodGet, p, nil)
		assert.Equal(t, http.StatusOK, serve(h, req).Code, p)
	}
}

// TestLogsOneLinePerRequestWithoutBody checks the request log: one JSON line
// with hook path, parent, status and duration, and nothing from the body.
func TestLogsOneLinePerRequestWithoutBody(t *testing.T) {
	var logs bytes.Buffer
	h := newTestServer(t, &logs)
	body := recordedBody(t, "sync-controlplane")
	require.Equal(t, http.StatusOK, post(h, "/sync/controlplane", body).Code)
	lines := strings.Split(strings.TrimSpace(logs.String()), "\n")
	require.Len(t, lines, 1)
	var line map[string]any
	require.NoError(t, json.Unmarshal([]byte(lines[0]), &line))
	assert.Equal(t, "/sync/controlplane", line["path"])
	assert.Equal(t, "ControlPlane openstack/controlplane", line["parent"])
	assert.EqualValues(t, 200, line["status"])
	assert.Contains(t, line, "duration_ms")
	assert.NotContains(t, logs.String(), "glance-images", "the log carries request content")
}

func serve(h http.Handler, req *http.Request) *httptest.ResponseRecorder {
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	return rec
}
