package perf

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/c5c3/glance-hooks/hooks/contract/api"
	"github.com/c5c3/glance-hooks/hooks/controlplane"
	"github.com/c5c3/glance-hooks/test/floor"
	"github.com/c5c3/glance-hooks/transport/server"
)

// TestBenchRequestsAnswer keeps the benchmarks honest and cheap to trust:
// every request they send (the recorded ones and small generated ones) is
// answered 200 by the hooks, and the floor answers the request itself.
func TestBenchRequestsAnswer(t *testing.T) {
	root, err := Root()
	require.NoError(t, err)
	reqs, err := Recorded(root)
	require.NoError(t, err)
	for _, n := range []int{1, 3} {
		g, err := Glance(n)
		require.NoError(t, err)
		cp, err := ControlPlane(n)
		require.NoError(t, err)
		reqs = append(reqs, append(g, cp)...)
	}
	require.Len(t, reqs, 3*len(Hooks))
	hook, floor := newServer(server.DefaultRoutes()), newServer(floor.Routes())
	for _, r := range reqs {
		t.Run(r.Path+"/"+r.Case, func(t *testing.T) {
			rec := serve(hook, r)
			require.Equal(t, http.StatusOK, rec.Code, rec.Body.String())
			rec = serve(floor, r)
			require.Equal(t, http.StatusOK, rec.Code, rec.Body.String())
			var in, out map[string]any
			require.NoError(t, json.Unmarshal(r.Body, &in))
			require.NoError(t, json.Unmarshal(rec.Body.Bytes(), &out))
			delete(in, "finalizing") // the envelope always writes it
			delete(out, "finalizing")
			assert.Equal(t, in, out, "the floor answers the request it decoded")
		})
	}
}

func TestGeneratedShape(t *testing.T) {
	g, err := Glance(3)
	require.NoError(t, err)
	var req struct {
		Related map[string]map[string]json.RawMessage `json:"related"`
		Parent  struct {
			Status struct {
				Backends []struct {
					Projected bool `json:"projected"`
				} `json:"backends"`
			} `json:"status"`
		} `json:"parent"`
	}
	require.NoError(t, json.Unmarshal(g[0].Body, &req))
	assert.Len(t, req.Related["GlanceBackend.glance.openstack.c5c3.io/v1alpha1"], 3)
	require.Len(t, req.Parent.Status.Backends, 3, "the converged Glance reports every backend")
	for _, b := range req.Parent.Status.Backends {
		assert.True(t, b.Projected)
	}
}

// TestGeneratedControlPlaneProjects holds the generated ControlPlane to a
// real sync: its request carries the projected Glance and one GlanceBackend
// per entry as children, up to the most entries a ControlPlane may hold,
// and a ControlPlane holding more is refused by the hook, so generating one
// fails instead of yielding a request that only measures the refusal.
func TestGeneratedControlPlaneProjects(t *testing.T) {
	for _, n := range []int{1, api.MaxBackendEntries} {
		r, err := ControlPlane(n)
		require.NoError(t, err)
		var req struct {
			Children map[string]map[string]json.RawMessage `json:"children"`
			Parent   struct {
				Status api.ControlPlaneStatus `json:"status"`
			} `json:"parent"`
		}
		require.NoError(t, json.Unmarshal(r.Body, &req))
		assert.Len(t, req.Children["Glance."+api.GlanceAPIVersion], 1, "%d entries", n)
		assert.Len(t, req.Children["GlanceBackend."+api.GlanceAPIVersion], n, "%d entries", n)
		c := meta.FindStatusCondition(req.Parent.Status.Conditions, controlplane.CondGlanceProjected)
		require.NotNil(t, c, "%d entries", n)
		assert.Equal(t, metav1.ConditionTrue, c.Status, "%d entries: %s", n, c.Message)
	}
	_, err := ControlPlane(api.MaxBackendEntries + 1)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "InvalidBackends")
	assert.Contains(t, err.Error(), fmt.Sprintf("must have at most %d items", api.MaxBackendEntries))
}

// TestGeneratedCacheKey keeps the cache of generated requests apart per
// world: the same counts of Glance backends and of ControlPlane entries are
// different requests.
func TestGeneratedCacheKey(t *testing.T) {
	root, err := Root()
	require.NoError(t, err)
	glance := Sizes{Glance: []int{1, 10}}
	cp := Sizes{ControlPlane: []int{1, 10}}
	both := Sizes{Glance: []int{1}, ControlPlane: []int{10}}
	assert.NotEqual(t, glance.key(), cp.key())
	assert.NotEqual(t, both.key(), Sizes{Glance: []int{1, 10}}.key())
	a, err := sourceHash(root, glance)
	require.NoError(t, err)
	b, err := sourceHash(root, cp)
	require.NoError(t, err)
	assert.NotEqual(t, a, b)
}

func serve(h http.Handler, r Request) *httptest.ResponseRecorder {
	req := httptest.NewRequest(http.MethodPost, r.Path, bytes.NewReader(r.Body))
	req.Header.Set("Content-Type", "application/json")
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	return rec
}

// TestGeneratedEveryBlock: the Glance with every feature block is answered
// 200 and its answer renders each block (the cache's volume and the purge
// CronJob); its cache file is apart from the plain worlds'.
func TestGeneratedEveryBlock(t *testing.T) {
	reqs, err := GlanceEveryBlock(3)
	require.NoError(t, err)
	require.Len(t, reqs, 1)
	assert.Equal(t, "/sync/glance", reqs[0].Path)
	assert.Equal(t, "every-3", reqs[0].Case)
	rec := serve(newServer(server.DefaultRoutes()), reqs[0])
	require.Equal(t, http.StatusOK, rec.Code, rec.Body.String())
	assert.Contains(t, rec.Body.String(), `"name":"glance-db-purge"`)
	assert.Contains(t, rec.Body.String(), `"name":"image-cache"`)
	assert.NotEqual(t, Sizes{Glance: []int{1}}.key(), Sizes{Glance: []int{1}, EveryBlock: []int{1}}.key())
}

// TestGeneratedFull: the guide's Glance with every optional feature on is
// answered 200 on both routes, and its request carries what the features
// render (GlanceFull fails otherwise); its cache file is apart from the
// other worlds'.
func TestGeneratedFull(t *testing.T) {
	reqs, err := GlanceFull(3)
	require.NoError(t, err)
	require.Len(t, reqs, 2)
	assert.Equal(t, []string{"/sync/glance", "/customize/glance"}, []string{reqs[0].Path, reqs[1].Path})
	assert.Equal(t, "full-3", reqs[0].Case)
	hook := newServer(server.DefaultRoutes())
	for _, r := range reqs {
		rec := serve(hook, r)
		require.Equal(t, http.StatusOK, rec.Code, rec.Body.String())
	}
	assert.NotEqual(t, Sizes{Glance: []int{3}}.key(), Sizes{Full: []int{3}}.key())
}
