package server

import (
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	dto "github.com/prometheus/client_model/go"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/c5c3/glance-hooks/internal/buildinfo"
)

func fixture(t *testing.T, dir string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "..", "test", "fixtures", dir, "request.json"))
	require.NoError(t, err)
	return string(b)
}

// series is one sample of a gathered family: its labels and value.
type series struct {
	labels map[string]string
	value  float64
}

func gather(t *testing.T, m *Metrics) map[string][]series {
	t.Helper()
	families, err := m.Gatherer().Gather()
	require.NoError(t, err)
	out := map[string][]series{}
	for _, f := range families {
		for _, mt := range f.GetMetric() {
			s := series{labels: map[string]string{}}
			for _, l := range mt.GetLabel() {
				s.labels[l.GetName()] = l.GetValue()
			}
			switch f.GetType() {
			case dto.MetricType_COUNTER:
				s.value = mt.GetCounter().GetValue()
			case dto.MetricType_GAUGE:
				s.value = mt.GetGauge().GetValue()
			case dto.MetricType_HISTOGRAM:
				s.value = float64(mt.GetHistogram().GetSampleCount())
			}
			out[f.GetName()] = append(out[f.GetName()], s)
		}
	}
	return out
}

// value is the sample of name whose labels include want, 0 if none.
func value(all map[string][]series, name string, want map[string]string) float64 {
	for _, s := range all[name] {
		match := true
		for k, v := range want {
			if s.labels[k] != v {
				match = false
			}
		}
		if match {
			return s.value
		}
	}
	return 0
}

func TestMetrics(t *testing.T) {
	m := NewMetrics(buildinfo.Get())
	e := New(Config{Logger: slog.New(slog.DiscardHandler), Routes: DefaultRoutes(), Metrics: m})
	do := func(method, path, body string) int {
		req := httptest.NewRequest(method, path, strings.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		rec := httptest.NewRecorder()
		e.ServeHTTP(rec, req)
		return rec.Code
	}
	require.Equal(t, 200, do(http.MethodPost, "/sync/controlplane", fixture(t, "sync-controlplane/recorded-metacontroller")))
	require.Equal(t, 200, do(http.MethodPost, "/sync/controlplane", fixture(t, "sync-controlplane/recorded-metacontroller")))
	require.Equal(t, 400, do(http.MethodPost, "/sync/glance", `{"parent": `))
	require.Equal(t, 200, do(http.MethodPost, "/validate", fixture(t, "validate/controlplane-two-defaults-denied")))
	require.Equal(t, 200, do(http.MethodPost, "/validate", fixture(t, "validate/glance-standalone-allowed")))
	// What a request carries never becomes a label: an unknown path, or a
	// kind the webhook does not know.
	require.Equal(t, 404, do(http.MethodGet, "/garage-s3-credentials/secret-access-key", ""))
	strange := strings.Replace(fixture(t, "validate/glance-standalone-allowed"), `"kind": "Glance"`, `"kind": "SecretKind-AKIAEXAMPLE"`, 1)
	require.Equal(t, 200, do(http.MethodPost, "/validate", strange))
	require.Equal(t, 200, do(http.MethodGet, "/readyz", ""))

	all := gather(t, m)
	assert.Equal(t, 2.0, value(all, MetricRequests, map[string]string{"route": "/sync/controlplane", "status_class": "2xx"}))
	assert.Equal(t, 1.0, value(all, MetricRequests, map[string]string{"route": "/sync/glance", "status_class": "4xx"}))
	assert.Equal(t, 1.0, value(all, MetricRequests, map[string]string{"route": "other", "status_class": "4xx"}))
	assert.Equal(t, 3.0, value(all, MetricRequests, map[string]string{"route": "/validate", "status_class": "2xx"}))
	assert.Equal(t, 2.0, value(all, MetricDuration, map[string]string{"route": "/sync/controlplane"}), "one observation per request")
	assert.Equal(t, 1.0, value(all, MetricHookInputError, map[string]string{"route": "/sync/glance", "reason": "malformed"}))
	assert.Equal(t, 1.0, value(all, MetricAdmission, map[string]string{"kind": "ControlPlane", "operation": "UPDATE", "outcome": "denied", "reason": "Invalid"}))
	assert.Equal(t, 1.0, value(all, MetricAdmission, map[string]string{"kind": "Glance", "outcome": "allowed", "reason": "none"}))
	assert.Equal(t, 0.0, value(all, MetricInFlight, nil), "nothing in flight once answered")
	info := buildinfo.Get()
	assert.Equal(t, 1.0, value(all, MetricBuildInfo, map[string]string{"version": info.Version, "commit": info.Commit, "goversion": info.GoVersion}))

	// Every label of every glance_hooks_ series takes a value from a closed
	// set, whatever the requests held.
	allowed := map[string]map[string]bool{
		"route":        set("/sync/controlplane", "/customize/glancebackend", "/sync/glancebackend", "/customize/glance", "/sync/glance", "/validate", "/healthz", "/readyz", "other"),
		"status_class": set("1xx", "2xx", "3xx", "4xx", "5xx"),
		"kind":         set("ControlPlane", "Glance", "GlanceBackend", "other"),
		"operation":    set("CREATE", "UPDATE", "DELETE", "CONNECT", "other"),
		"outcome":      set("allowed", "denied"),
		"reason":       set("none", "Invalid", "Forbidden", "ServiceUnavailable", "BadRequest", "other", "malformed", "body_timeout", "too_large", "unsupported_media_type", "invalid"),
		"version":      set(info.Version),
		"commit":       set(info.Commit),
		"goversion":    set(info.GoVersion),
		"class":        set(ServerErrorClasses()...),
		"action":       set(ConnsOverLimitActions...),
	}
	var names []string
	for name, ss := range all {
		if !strings.HasPrefix(name, "glance_hooks_") {
			continue
		}
		names = append(names, name)
		for _, s := range ss {
			for k, v := range s.labels {
				require.Contains(t, allowed, k, "%s has a label %q with no closed set of values", name, k)
				assert.True(t, allowed[k][v], "%s{%s=%q}: a value outside the closed set", name, k, v)
			}
		}
	}
	sort.Strings(names)
	assert.Equal(t, []string{MetricAdmission, MetricBuildInfo, MetricConnsOpen, MetricConnsOverLimit, MetricDecoderFallbacks, MetricDecoderPanics, MetricHookInputError, MetricDuration, MetricInFlight, MetricRequests, MetricServerErrors, MetricTLSHandshakeErrors}, names)
	assert.Equal(t, 1.0, value(all, MetricAdmission, map[string]string{"kind": "other"}), "an unknown kind is counted as other")
}

// The metrics listener serves /metrics in the text format, and nothing else.
func TestMetricsServer(t *testing.T) {
	m := NewMetrics(buildinfo.Info{Version: "v9.9.9", Commit: "abc", GoVersion: "go1"})
	srv := httptest.NewServer(MetricsServer(m, slog.New(slog.DiscardHandler)))
	defer srv.Close()
	resp, err := http.Get(srv.URL + "/metrics")
	require.NoError(t, err)
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	assert.Equal(t, 200, resp.StatusCode)
	assert.Contains(t, string(body), `glance_hooks_build_info{commit="abc",goversion="go1",version="v9.9.9"} 1`)
	assert.Contains(t, string(body), "go_goroutines ")
	resp, err = http.Post(srv.URL+"/sync/glance", "application/json", strings.NewReader("{}"))
	require.NoError(t, err)
	resp.Body.Close()
	assert.Equal(t, 404, resp.StatusCode, "the metrics listener serves no hook")
}
