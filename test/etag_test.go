package test

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"maps"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/c5c3/glance-hooks/hooks/contract/metacontroller"
	"github.com/c5c3/glance-hooks/transport/server"
)

// etagClient calls a hook the way Metacontroller's webhook client does with
// a hook's webhook.etag enabled (v4.x): it keeps the last answer per parent,
// keyed by the parent's kind, namespace and name; it sends the kept ETag as
// If-None-Match; it accepts 200 always and 304 or 412 only when it sent
// If-None-Match, and then answers with the kept body (failing when it keeps
// none); it keeps a 200 answer and its ETag whenever the answer has one. A
// 429 and any other status are failures, whose bodies are not kept.
type etagClient struct {
	url, token string
	cache      map[etagKey]etagEntry
	// status is the status of the last call.
	status int
}

type etagKey struct{ kind, namespace, name string }

type etagEntry struct {
	etag string
	body []byte
}

func newETagClient(url, token string) *etagClient {
	return &etagClient{url: url, token: token, cache: map[etagKey]etagEntry{}}
}

func (c *etagClient) call(path string, body []byte) ([]byte, error) {
	var req struct {
		Parent struct {
			Kind     string `json:"kind"`
			Metadata struct {
				Name      string `json:"name"`
				Namespace string `json:"namespace"`
			} `json:"metadata"`
		} `json:"parent"`
	}
	if err := json.Unmarshal(body, &req); err != nil {
		return nil, err
	}
	key := etagKey{req.Parent.Kind, req.Parent.Metadata.Namespace, req.Parent.Metadata.Name}
	hreq, err := http.NewRequest(http.MethodPost, c.url+path, bytes.NewReader(body))
	if err != nil {
		return nil, err
	}
	hreq.Header.Set("Content-Type", "application/json")
	if c.token != "" {
		hreq.Header.Set("Authorization", "Bearer "+c.token)
	}
	if e, ok := c.cache[key]; ok {
		hreq.Header.Set("If-None-Match", e.etag)
	}
	resp, err := http.DefaultClient.Do(hreq)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	c.status = resp.StatusCode
	if resp.StatusCode == http.StatusTooManyRequests {
		return nil, errors.New("too many requests")
	}
	answer, err := io.ReadAll(resp.Body)
	if err != nil {
		return nil, err
	}
	sentTag := hreq.Header.Get("If-None-Match") != ""
	switch resp.StatusCode {
	case http.StatusOK:
	case http.StatusNotModified, http.StatusPreconditionFailed:
		if !sentTag {
			return nil, fmt.Errorf("unsupported status code: %d", resp.StatusCode)
		}
		e, ok := c.cache[key]
		if !ok {
			return nil, fmt.Errorf("no cached answer for %v", key)
		}
		return e.body, nil
	default:
		return nil, fmt.Errorf("unsupported status code: %d body: %s", resp.StatusCode, answer)
	}
	if tag := resp.Header.Get("ETag"); tag != "" {
		c.cache[key] = etagEntry{etag: tag, body: answer}
	}
	return answer, nil
}

// countingRoutes are the service's routes, each counting the hook calls it
// makes.
func countingRoutes(calls *atomic.Int64) []server.Route {
	routes := server.DefaultRoutes()
	for i, r := range routes {
		switch {
		case r.Sync != nil:
			sync := r.Sync
			routes[i].Sync = func(req *metacontroller.SyncRequest, now time.Time) (*metacontroller.SyncResponse, error) {
				calls.Add(1)
				return sync(req, now)
			}
		case r.Customize != nil:
			customize := r.Customize
			routes[i].Customize = func(req *metacontroller.CustomizeRequest) (*metacontroller.CustomizeResponse, error) {
				calls.Add(1)
				return customize(req)
			}
		}
	}
	return routes
}

func etagServer(t *testing.T, build string, calls *atomic.Int64, token string) *httptest.Server {
	t.Helper()
	cfg := server.Config{
		Logger: slog.New(slog.DiscardHandler),
		Now:    func() time.Time { return FixtureNow },
		Routes: countingRoutes(calls),
		Build:  build,
	}
	if token != "" {
		path := filepath.Join(t.TempDir(), "token")
		require.NoError(t, os.WriteFile(path, []byte(token), 0o600))
		tok, err := server.NewTokenFile(path, nil)
		require.NoError(t, err)
		cfg.HookToken = tok
	}
	s := httptest.NewServer(server.New(cfg))
	t.Cleanup(s.Close)
	return s
}

// TestETagContractAsMetacontrollerApplies runs every hook's recorded
// request through Metacontroller's ETag client twice: the second call is
// answered 304 without running the hook, and the client's answer is the
// first, which is what the hook answers anew.
func TestETagContractAsMetacontrollerApplies(t *testing.T) {
	var calls atomic.Int64
	srv := etagServer(t, "build-1", &calls, "t0ken")
	fresh := newTestServer(t, nil)
	for _, dir := range []string{"sync-glance", "customize-glance", "sync-glancebackend", "customize-glancebackend", "sync-controlplane"} {
		t.Run(dir, func(t *testing.T) {
			body, err := os.ReadFile(filepath.Join("fixtures", dir, "recorded-metacontroller", "request.json"))
			require.NoError(t, err)
			mc := newETagClient(srv.URL, "t0ken")
			first, err := mc.call(hookPath(dir), body)
			require.NoError(t, err)
			require.Equal(t, http.StatusOK, mc.status)
			require.Len(t, mc.cache, 1, "a 200 answer carries an ETag the client keeps")
			before := calls.Load()

			second, err := mc.call(hookPath(dir), body)
			require.NoError(t, err)
			assert.Equal(t, http.StatusNotModified, mc.status, "the same request again is not modified")
			assert.Equal(t, before, calls.Load(), "a 304 runs no hook")
			assert.Equal(t, string(first), string(second))
			assert.Equal(t, post(fresh, hookPath(dir), body).Body.String(), string(second),
				"the kept answer is the answer the hook gives now")
		})
	}
}

// TestETagFollowsTheRequestAndTheBuild: a changed parent is answered anew,
// each parent keeps its own answer, an error is never kept, a new build
// never reuses an old answer, and the token is checked before any 304.
func TestETagFollowsTheRequestAndTheBuild(t *testing.T) {
	var calls atomic.Int64
	srv := etagServer(t, "build-1", &calls, "t0ken")
	path := "/sync/glancebackend"
	body, err := os.ReadFile(filepath.Join("fixtures", "sync-glancebackend", "ready", "request.json"))
	require.NoError(t, err)
	other := editParent(t, body, func(p map[string]any) { p["metadata"].(map[string]any)["generation"] = 7 })

	mc := newETagClient(srv.URL, "t0ken")
	first, err := mc.call(path, body)
	require.NoError(t, err)
	tag := only(mc.cache).etag

	changed, err := mc.call(path, other)
	require.NoError(t, err)
	assert.Equal(t, http.StatusOK, mc.status, "a changed request is answered anew although the client sent a tag")
	assert.NotEqual(t, tag, only(mc.cache).etag, "and the client keeps the new answer")
	assert.NotEqual(t, string(first), string(changed))
	_, err = mc.call(path, other)
	require.NoError(t, err)
	assert.Equal(t, http.StatusNotModified, mc.status)

	// Another parent of the same kind has its own entry.
	renamed := editParent(t, body, func(p map[string]any) { p["metadata"].(map[string]any)["name"] = "another" })
	_, err = mc.call(path, renamed)
	require.NoError(t, err)
	assert.Equal(t, http.StatusOK, mc.status, "no tag is sent for a parent the client has no answer for")
	assert.Len(t, mc.cache, 2)

	// An error answer carries no tag, and the client keeps what it had.
	broken := editParent(t, other, func(p map[string]any) { p["kind"] = "Glance" })
	kept := maps.Clone(mc.cache)
	_, err = mc.call(path, broken)
	require.Error(t, err)
	assert.Equal(t, http.StatusUnprocessableEntity, mc.status)
	assert.Equal(t, kept, mc.cache)

	// A new build answers a request the old build answered.
	next := etagServer(t, "build-2", &calls, "t0ken")
	mc.url = next.URL
	again, err := mc.call(path, other)
	require.NoError(t, err)
	assert.Equal(t, http.StatusOK, mc.status, "a tag of another build is not this build's answer")
	assert.Equal(t, string(changed), string(again))

	// Without the token, a request with the right tag is still refused.
	intruder := newETagClient(next.URL, "wrong")
	intruder.cache = mc.cache
	_, err = intruder.call(path, other)
	require.Error(t, err)
	assert.Equal(t, http.StatusUnauthorized, intruder.status)
}

// editParent is body with its parent changed by edit.
func editParent(t *testing.T, body []byte, edit func(parent map[string]any)) []byte {
	t.Helper()
	var req map[string]any
	require.NoError(t, json.Unmarshal(body, &req))
	edit(req["parent"].(map[string]any))
	out, err := json.Marshal(req)
	require.NoError(t, err)
	return out
}

func only(m map[etagKey]etagEntry) etagEntry {
	for _, e := range m {
		return e
	}
	return etagEntry{}
}

// The log line of a 304 says so and carries no parent: the body was not
// decoded.
func TestNotModifiedIsLogged(t *testing.T) {
	var logs strings.Builder
	h := server.New(server.Config{Logger: slog.New(slog.NewJSONHandler(&logs, nil)), Routes: server.DefaultRoutes(), Build: "b"})
	body, err := os.ReadFile(filepath.Join("fixtures", "customize-glance", "recorded-metacontroller", "request.json"))
	require.NoError(t, err)
	rec := post(h, "/customize/glance", body)
	require.Equal(t, http.StatusOK, rec.Code)
	req := httptest.NewRequest(http.MethodPost, "/customize/glance", bytes.NewReader(body))
	req.Header.Set("If-None-Match", rec.Header().Get("ETag"))
	rec = httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	require.Equal(t, http.StatusNotModified, rec.Code)
	lines := strings.Split(strings.TrimSpace(logs.String()), "\n")
	require.Len(t, lines, 2)
	assert.Contains(t, lines[1], `"status":304`)
	assert.NotContains(t, lines[1], `"parent"`)
}
