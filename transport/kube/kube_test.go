package kube

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"k8s.io/client-go/rest"
)

const listPath = "/apis/glance.openstack.c5c3.io/v1alpha1/namespaces/openstack/glancebackends"

func item(name, glance string, isDefault bool, deleting bool) map[string]any {
	meta := map[string]any{"name": name, "namespace": "openstack", "uid": name + "-uid", "resourceVersion": "1"}
	if deleting {
		meta["deletionTimestamp"] = "2026-01-01T00:00:00Z"
		meta["finalizers"] = []string{"example.com/hold"}
	}
	return map[string]any{
		"apiVersion": "glance.openstack.c5c3.io/v1alpha1", "kind": "GlanceBackend", "metadata": meta,
		"spec": map[string]any{"glanceRef": map[string]any{"name": glance}, "type": "S3", "isDefault": isDefault, "storeId": "id-" + name,
			"s3": map[string]any{"host": "http://garage:3900", "bucket": "b", "credentialsSecretRef": map[string]any{"name": "s"}}},
	}
}

// fakeAPI answers the GlanceBackend list in pages of two, the way the API
// server pages with limit/continue.
type fakeAPI struct {
	mu       sync.Mutex
	items    []map[string]any
	requests []string
	status   int
	delay    time.Duration
}

func (f *fakeAPI) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	f.mu.Lock()
	f.requests = append(f.requests, r.URL.RequestURI())
	f.mu.Unlock()
	if f.delay > 0 {
		select {
		case <-time.After(f.delay):
		case <-r.Context().Done():
			return
		}
	}
	w.Header().Set("Content-Type", "application/json")
	if f.status != 0 {
		w.WriteHeader(f.status)
		_ = json.NewEncoder(w).Encode(map[string]any{"apiVersion": "v1", "kind": "Status", "status": "Failure", "code": f.status, "reason": "Forbidden",
			"message": `glancebackends.glance.openstack.c5c3.io is forbidden: User "system:serviceaccount:openstack:glance-hooks" cannot list resource "glancebackends"`})
		return
	}
	if r.URL.Path != listPath {
		http.NotFound(w, r)
		return
	}
	start := 0
	if c := r.URL.Query().Get("continue"); c != "" {
		start = int(c[0] - '0')
	}
	end := min(start+2, len(f.items))
	meta := map[string]any{"resourceVersion": "7"}
	if end < len(f.items) {
		meta["continue"] = string(rune('0' + end))
	}
	_ = json.NewEncoder(w).Encode(map[string]any{"apiVersion": "glance.openstack.c5c3.io/v1alpha1", "kind": "GlanceBackendList", "metadata": meta, "items": f.items[start:end]})
}

func newLister(t *testing.T, f *fakeAPI, timeout time.Duration) *Lister {
	t.Helper()
	ts := httptest.NewServer(f)
	t.Cleanup(ts.Close)
	l, err := NewLister(&rest.Config{Host: ts.URL}, timeout)
	require.NoError(t, err)
	return l
}

func TestListGlanceBackendsReadsEveryPage(t *testing.T) {
	f := &fakeAPI{items: []map[string]any{
		item("a", "glance", true, false), item("b", "glance", false, true), item("c", "other", true, false),
	}}
	l := newLister(t, f, time.Second)
	got, err := l.ListGlanceBackends(context.Background(), "openstack")
	require.NoError(t, err)
	require.Len(t, got, 3)
	assert.Equal(t, "a", got[0].Name)
	assert.True(t, got[0].Spec.IsDefault)
	assert.Equal(t, "glance", got[0].Spec.GlanceRef.Name)
	assert.Equal(t, "id-a", got[0].EffectiveStoreID())
	assert.Nil(t, got[0].DeletionTimestamp)
	assert.NotNil(t, got[1].DeletionTimestamp, "deletionTimestamp must survive the conversion")
	assert.Equal(t, "other", got[2].Spec.GlanceRef.Name)
	require.Len(t, f.requests, 2, "two pages")
	assert.Contains(t, f.requests[0], "limit=250")
	assert.Contains(t, f.requests[1], "continue=2")
}

func TestListGlanceBackendsErrors(t *testing.T) {
	t.Run("forbidden", func(t *testing.T) {
		l := newLister(t, &fakeAPI{status: http.StatusForbidden}, time.Second)
		_, err := l.ListGlanceBackends(context.Background(), "openstack")
		require.Error(t, err)
		assert.Contains(t, err.Error(), "cannot list resource")
	})
	t.Run("timeout", func(t *testing.T) {
		l := newLister(t, &fakeAPI{delay: 5 * time.Second}, 150*time.Millisecond)
		start := time.Now()
		_, err := l.ListGlanceBackends(context.Background(), "openstack")
		require.Error(t, err)
		assert.Less(t, time.Since(start), 3*time.Second, "the timeout must bound the call")
		assert.Contains(t, err.Error(), "did not answer within 150ms")
	})
	t.Run("unreachable", func(t *testing.T) {
		ts := httptest.NewServer(http.NotFoundHandler())
		ts.Close()
		l, err := NewLister(&rest.Config{Host: ts.URL}, time.Second)
		require.NoError(t, err)
		_, err = l.ListGlanceBackends(context.Background(), "openstack")
		require.Error(t, err)
	})
	t.Run("item of the wrong shape", func(t *testing.T) {
		bad := item("a", "glance", true, false)
		bad["spec"].(map[string]any)["isDefault"] = "AKIA-yes"
		l := newLister(t, &fakeAPI{items: []map[string]any{bad}}, time.Second)
		_, err := l.ListGlanceBackends(context.Background(), "openstack")
		require.Error(t, err)
		assert.Contains(t, err.Error(), `GlanceBackend "a" in the list does not match its schema`)
		assert.NotContains(t, err.Error(), "AKIA")
	})
}

const kubeconfig = `apiVersion: v1
kind: Config
clusters:
- name: c
  cluster: {server: "https://127.0.0.1:6443", insecure-skip-tls-verify: true}
users:
- name: u
  user: {token: t0k3n}
contexts:
- name: x
  context: {cluster: c, user: u}
current-context: x
`

func TestRESTConfig(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "kubeconfig")
	require.NoError(t, os.WriteFile(path, []byte(kubeconfig), 0o600))
	other := filepath.Join(dir, "other")
	require.NoError(t, os.WriteFile(other, []byte(strings.Replace(kubeconfig, "6443", "7443", 1)), 0o600))

	t.Setenv("KUBERNETES_SERVICE_HOST", "")
	t.Setenv("KUBERNETES_SERVICE_PORT", "")

	t.Run("flag wins over KUBECONFIG", func(t *testing.T) {
		t.Setenv("KUBECONFIG", other)
		cfg, src, err := RESTConfig(path)
		require.NoError(t, err)
		assert.Equal(t, SourceFlag, src)
		assert.Equal(t, "https://127.0.0.1:6443", cfg.Host)
		assert.Equal(t, "t0k3n", cfg.BearerToken)
	})
	t.Run("KUBECONFIG", func(t *testing.T) {
		t.Setenv("KUBECONFIG", other)
		cfg, src, err := RESTConfig("")
		require.NoError(t, err)
		assert.Equal(t, SourceEnv, src)
		assert.Equal(t, "https://127.0.0.1:7443", cfg.Host)
	})
	t.Run("nothing configured", func(t *testing.T) {
		t.Setenv("KUBECONFIG", "")
		_, _, err := RESTConfig("")
		assert.True(t, errors.Is(err, ErrNoConfig), "%v", err)
	})
	t.Run("a missing explicit file is an error", func(t *testing.T) {
		_, src, err := RESTConfig(filepath.Join(dir, "missing"))
		require.Error(t, err)
		assert.True(t, src.Explicit())
		assert.False(t, errors.Is(err, ErrNoConfig))
	})
	t.Run("in a pod without a token file", func(t *testing.T) {
		t.Setenv("KUBECONFIG", "")
		t.Setenv("KUBERNETES_SERVICE_HOST", "10.0.0.1")
		t.Setenv("KUBERNETES_SERVICE_PORT", "443")
		_, src, err := RESTConfig("")
		require.Error(t, err)
		assert.Equal(t, SourceInCluster, src)
		assert.False(t, src.Explicit())
	})
}
