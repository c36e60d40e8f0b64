package test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/c5c3/glance-hooks/transport/server"
)

// duplicateStoresRequest is a /sync/glance request whose Glance (the
// faulted-non-default-skipped fixture's, with its running children) has n
// related GlanceBackends that all use store id "shared": the request whose
// answer grew with n² (each duplicate's message named every other one, in
// status.backends[] and again in BackendsReady).
func duplicateStoresRequest(t testing.TB, n int) []byte {
	t.Helper()
	raw, err := os.ReadFile("fixtures/sync-glance/faulted-non-default-skipped/request.json")
	require.NoError(t, err)
	var req map[string]any
	require.NoError(t, json.Unmarshal(raw, &req))
	backends := make(map[string]any, n)
	for i := range n {
		name := fmt.Sprintf("dup-%05d", i)
		backends[name] = map[string]any{
			"apiVersion": "glance.openstack.c5c3.io/v1alpha1", "kind": "GlanceBackend",
			"metadata": map[string]any{"name": name, "namespace": "openstack", "uid": fmt.Sprintf("00000000-0000-0000-0000-%012d", i)},
			"spec": map[string]any{"glanceRef": map[string]any{"name": "glance"}, "type": "S3", "isDefault": i == 0, "storeId": "shared",
				"s3": map[string]any{"host": "http://s3.example:3900", "bucket": "images", "credentialsSecretRef": map[string]any{"name": "s3"}}},
			"status": map[string]any{"conditions": []any{map[string]any{"type": "CredentialsReady", "status": "True", "reason": "CredentialsAvailable",
				"message": "ok", "lastTransitionTime": "2026-01-01T00:00:00Z"}}},
		}
	}
	req["related"].(map[string]any)["GlanceBackend.glance.openstack.c5c3.io/v1alpha1"] = backends
	out, err := json.Marshal(req)
	require.NoError(t, err)
	return out
}

// withRelatedBackends is the faulted-non-default-skipped fixture's request
// (a Glance with its running children) with the related GlanceBackends
// replaced.
func withRelatedBackends(t testing.TB, backends map[string]any) []byte {
	t.Helper()
	return editedRequest(t, func(req map[string]any) {
		req["related"].(map[string]any)["GlanceBackend.glance.openstack.c5c3.io/v1alpha1"] = backends
	})
}

func editedRequest(t testing.TB, edit func(req map[string]any)) []byte {
	t.Helper()
	raw, err := os.ReadFile("fixtures/sync-glance/faulted-non-default-skipped/request.json")
	require.NoError(t, err)
	var req map[string]any
	require.NoError(t, json.Unmarshal(raw, &req))
	edit(req)
	out, err := json.Marshal(req)
	require.NoError(t, err)
	return out
}

// heavyRequests are the /sync/glance bodies that need the most memory per
// byte found so far, each near the 8 MiB body limit: n GlanceBackends
// sharing one store id; hundreds of thousands of empty related objects;
// tens of thousands of attached backends with the least spec; and a running
// Deployment with every container and volume list at the array limit.
func heavyRequests(t testing.TB) map[string][]byte {
	t.Helper()
	tiny := make(map[string]any, 550000)
	for i := range 550000 {
		tiny[fmt.Sprintf("b%d", i)] = map[string]any{}
	}
	attached := make(map[string]any, 55000)
	for i := range 55000 {
		name := fmt.Sprintf("b%d", i)
		attached[name] = map[string]any{"metadata": map[string]any{"name": name, "namespace": "openstack"},
			"spec": map[string]any{"glanceRef": map[string]any{"name": "glance"}}}
	}
	empties := func(n int) []any { return make([]any, n) }
	return map[string][]byte{
		"8000 backends sharing a store id": duplicateStoresRequest(t, 8000),
		"550000 empty related objects":     withRelatedBackends(t, tiny),
		"55000 attached backends":          withRelatedBackends(t, attached),
		"Deployment lists at the limit": editedRequest(t, func(req map[string]any) {
			for _, dep := range req["children"].(map[string]any)["Deployment.apps/v1"].(map[string]any) {
				pod := dep.(map[string]any)["spec"].(map[string]any)["template"].(map[string]any)["spec"].(map[string]any)
				for _, list := range []string{"containers", "initContainers", "ephemeralContainers"} {
					pod[list] = empties(server.MaxArrayItems)
				}
				pod["volumes"] = append(pod["volumes"].([]any), empties(server.MaxArrayItems-len(pod["volumes"].([]any)))...)
			}
		}),
	}
}

// The answer to a request of B bytes is at most AnswerBound(B): linear, and
// with 2000 GlanceBackends sharing one store id no longer 40 times the
// request (each one's message named every other, in status.backends[] and
// again in BackendsReady). Each duplicate is named a bounded number of times
// whatever n is.
func TestAnswerSizeIsLinear(t *testing.T) {
	h := newTestServer(t, nil)
	var ratios []float64
	for _, n := range []int{250, 1000, 4000} {
		body := duplicateStoresRequest(t, n)
		rec := post(h, "/sync/glance", body)
		require.Equal(t, http.StatusOK, rec.Code)
		assert.LessOrEqual(t, rec.Body.Len(), AnswerBound(len(body)), "n=%d", n)
		assert.LessOrEqual(t, strings.Count(rec.Body.String(), `"dup-00001"`), 4, "n=%d: a duplicate is named a bounded number of times", n)
		ratios = append(ratios, float64(rec.Body.Len())/float64(len(body)))
		t.Logf("n=%d: request %d bytes, answer %d bytes (%.2fx)", n, len(body), rec.Body.Len(), ratios[len(ratios)-1])
	}
	// Linear: the answer per request byte does not grow with n (it grew
	// with n before: 4.9x at 250, 41x at 2000).
	assert.InDelta(t, ratios[0], ratios[len(ratios)-1], 0.05)

	for name, body := range heavyRequests(t) {
		rec := post(h, "/sync/glance", body)
		assert.Less(t, rec.Code, 500, name)
		assert.LessOrEqual(t, rec.Body.Len(), AnswerBound(len(body)), "%s: %d-byte request", name, len(body))
	}
	// Each ControlPlane entry becomes a GlanceBackend larger than the entry:
	// a list longer than the CRD allows is not projected.
	body := manyEntriesControlPlane(t, 5000)
	rec := post(h, "/sync/controlplane", body)
	assert.Equal(t, http.StatusOK, rec.Code)
	assert.Contains(t, rec.Body.String(), "spec.services.glance.backends: Too many: 5002: must have at most 32 items")
	assert.LessOrEqual(t, rec.Body.Len(), AnswerBound(len(body)))
	for _, dir := range fixtureCases(t) {
		body, err := os.ReadFile(filepath.Join(dir, "request.json"))
		require.NoError(t, err)
		rec := post(h, hookPath(filepath.Base(filepath.Dir(dir))), body)
		assert.LessOrEqual(t, rec.Body.Len(), AnswerBound(len(body)), dir)
	}
}

// manyEntriesControlPlane is the recorded ControlPlane request with n more
// services.glance.backends[] entries.
func manyEntriesControlPlane(t testing.TB, n int) []byte {
	t.Helper()
	raw, err := os.ReadFile("fixtures/sync-controlplane/recorded-metacontroller/request.json")
	require.NoError(t, err)
	var req map[string]any
	require.NoError(t, json.Unmarshal(raw, &req))
	glance := req["parent"].(map[string]any)["spec"].(map[string]any)["services"].(map[string]any)["glance"].(map[string]any)
	entries := glance["backends"].([]any)
	for i := range n {
		entries = append(entries, map[string]any{"name": fmt.Sprintf("s%d", i), "type": "S3",
			"s3": map[string]any{"endpoint": "http://s3:3900", "bucket": "b", "credentialsSecretRef": map[string]any{"name": "c"}}})
	}
	glance["backends"] = entries
	out, err := json.Marshal(req)
	require.NoError(t, err)
	return out
}

// AnswerBound is the documented bound on an answer's size for a request of
// n bytes (docs/hook-traffic.md, "Bounded cost per request"): twice the request and 64 KiB.
func AnswerBound(n int) int { return 2*n + 64<<10 }
