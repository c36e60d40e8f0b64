package test

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/c5c3/glance-hooks/hooks/admission"
	"github.com/c5c3/glance-hooks/hooks/contract/api"
	"github.com/c5c3/glance-hooks/transport/server"
)

// update rewrites every response.json from what the service answers now:
// go test ./test -run TestFixtures -update (or UPDATE_FIXTURES=1).
var update = flag.Bool("update", os.Getenv("UPDATE_FIXTURES") != "", "rewrite fixture responses")

// FixtureNow is the clock every fixture runs at, so condition transition
// times in the expected responses are stable.
var FixtureNow = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

// fixtureResponse is what response.json holds.
type fixtureResponse struct {
	Code int             `json:"code"`
	Body json.RawMessage `json:"body"`
}

// hookPath maps a fixture directory name to its route: "sync-glance" ->
// "/sync/glance", "validate" -> "/validate".
func hookPath(dir string) string {
	return "/" + strings.Replace(dir, "-", "/", 1)
}

func newTestServer(t testing.TB, logs io.Writer) http.Handler {
	return newTestServerWith(t, logs, staticLister{})
}

func newTestServerWith(t testing.TB, logs io.Writer, l admission.Lister) http.Handler {
	t.Helper()
	if logs == nil {
		logs = io.Discard
	}
	return server.New(server.Config{
		Logger: slog.New(slog.NewJSONHandler(logs, nil)),
		Now:    func() time.Time { return FixtureNow },
		Routes: server.DefaultRoutes(),
		Lister: l,
	})
}

// staticLister is the API server of a fixture: the GlanceBackends it
// lists, and the Glances and ControlPlanes it gets by name.
type staticLister struct {
	backends      []api.GlanceBackend
	glances       []api.Glance
	controlPlanes []api.ControlPlane
}

func (s staticLister) ListGlanceBackends(_ context.Context, namespace string) ([]api.GlanceBackend, error) {
	var out []api.GlanceBackend
	for _, b := range s.backends {
		if b.Namespace == namespace {
			out = append(out, b)
		}
	}
	return out, nil
}

func (s staticLister) GlanceControlPlane(_ context.Context, namespace, glance string) (string, error) {
	for _, g := range s.glances {
		if g.Namespace == namespace && g.Name == glance {
			return admission.ControlPlaneOfGlance(&g, nil), nil
		}
	}
	for _, cp := range s.controlPlanes {
		if cp.Namespace == namespace && cp.Name == admission.CandidateControlPlane(glance) {
			return admission.ControlPlaneOfGlance(nil, &cp), nil
		}
	}
	return "", nil
}

// fixtureLister reads a case's siblings.json (the GlanceBackends, Glances
// and ControlPlanes the API server holds for a validate case); without one
// the namespace is empty.
func fixtureLister(t testing.TB, dir string) admission.Lister {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join(dir, "siblings.json"))
	if os.IsNotExist(err) {
		return staticLister{}
	}
	require.NoError(t, err)
	var items []json.RawMessage
	require.NoError(t, json.Unmarshal(raw, &items), "siblings.json is a list of objects")
	var l staticLister
	for _, item := range items {
		var tm metav1.TypeMeta
		require.NoError(t, json.Unmarshal(item, &tm))
		switch tm.Kind {
		case api.KindGlanceBackend:
			var b api.GlanceBackend
			require.NoError(t, json.Unmarshal(item, &b))
			l.backends = append(l.backends, b)
		case api.KindGlance:
			var g api.Glance
			require.NoError(t, json.Unmarshal(item, &g))
			l.glances = append(l.glances, g)
		case api.KindControlPlane:
			var cp api.ControlPlane
			require.NoError(t, json.Unmarshal(item, &cp))
			l.controlPlanes = append(l.controlPlanes, cp)
		default:
			t.Fatalf("%s/siblings.json: kind %q is none the webhook reads", dir, tm.Kind)
		}
	}
	return l
}

// post sends one body to the in-process server.
func post(h http.Handler, path string, body []byte) *httptest.ResponseRecorder {
	req := httptest.NewRequest(http.MethodPost, path, bytes.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	return rec
}

// fixtureCases lists fixtures/<hook>/<case> directories.
func fixtureCases(t testing.TB) []string {
	dirs, err := filepath.Glob(filepath.Join("fixtures", "*", "*", "request.json"))
	require.NoError(t, err)
	require.NotEmpty(t, dirs, "no fixtures found")
	for i := range dirs {
		dirs[i] = filepath.Dir(dirs[i])
	}
	return dirs
}

func TestFixtures(t *testing.T) {
	var logs bytes.Buffer
	for _, dir := range fixtureCases(t) {
		t.Run(filepath.ToSlash(strings.TrimPrefix(dir, "fixtures"+string(filepath.Separator))), func(t *testing.T) {
			h := newTestServerWith(t, &logs, fixtureLister(t, dir))
			body, err := os.ReadFile(filepath.Join(dir, "request.json"))
			require.NoError(t, err)
			rec := post(h, hookPath(filepath.Base(filepath.Dir(dir))), body)

			var got fixtureResponse
			got.Code = rec.Code
			got.Body = json.RawMessage(rec.Body.Bytes())
			gotBytes := marshalFixture(t, got)

			// Answering the same request again gives the same bytes.
			again := post(h, hookPath(filepath.Base(filepath.Dir(dir))), body)
			require.Equal(t, rec.Body.String(), again.Body.String(), "the answer is not deterministic")

			want := filepath.Join(dir, "response.json")
			if *update {
				require.NoError(t, os.WriteFile(want, gotBytes, 0o644))
				return
			}
			wantBytes, err := os.ReadFile(want)
			require.NoError(t, err, "missing response.json: run with -update to create it")
			require.Equal(t, string(wantBytes), string(gotBytes), "response differs from %s (run with -update to accept)", want)
		})
	}
}

// marshalFixture pretty-prints a response with sorted keys, so the file is
// readable and its bytes depend only on the content.
func marshalFixture(t testing.TB, r fixtureResponse) []byte {
	t.Helper()
	var body any
	require.NoError(t, json.Unmarshal(r.Body, &body), "the service answered something that is not JSON")
	out, err := json.MarshalIndent(map[string]any{"code": r.Code, "body": body}, "", "  ")
	require.NoError(t, err)
	return append(out, '\n')
}
