package server

import (
	"bytes"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// fixtureRequest is one recorded or written hook request of test/fixtures.
type fixtureRequest struct {
	name, path string
	body       []byte
}

// hookFixtures are the requests of every hook fixture, each with the route
// its directory names (sync-glance: /sync/glance).
func hookFixtures(t *testing.T) []fixtureRequest {
	t.Helper()
	files, err := filepath.Glob(filepath.Join("..", "..", "test", "fixtures", "*", "*", "request.json"))
	require.NoError(t, err)
	var out []fixtureRequest
	for _, f := range files {
		hookDir := filepath.Base(filepath.Dir(filepath.Dir(f)))
		kind, parent, ok := strings.Cut(hookDir, "-")
		if !ok || (kind != "sync" && kind != "customize") {
			continue
		}
		body, err := os.ReadFile(f)
		require.NoError(t, err)
		out = append(out, fixtureRequest{name: hookDir + "/" + filepath.Base(filepath.Dir(f)), path: "/" + kind + "/" + parent, body: body})
	}
	require.Greater(t, len(out), 100, "the fixtures were found")
	return out
}

// clocks are the parts of a log line that differ between two servings of
// one request: when and how long.
var clocks = regexp.MustCompile(`"time":"[^"]*"|"duration_ms":[0-9.e+-]+`)

// serveAll serves every request in order and returns the answers (status,
// ETag, body) and the log lines.
func serveAll(t *testing.T, reqs []fixtureRequest) (answers []string, logs string) {
	t.Helper()
	var logBuf bytes.Buffer
	now := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	h := New(Config{Logger: slog.New(slog.NewJSONHandler(&logBuf, nil)), Routes: DefaultRoutes(), Now: func() time.Time { return now }})
	for _, r := range reqs {
		req := httptest.NewRequest(http.MethodPost, r.path, bytes.NewReader(r.body))
		req.Header.Set("Content-Type", "application/json")
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		answers = append(answers, r.name+" "+http.StatusText(rec.Code)+" "+rec.Header().Get(headerETag)+"\n"+rec.Body.String())
	}
	return answers, clocks.ReplaceAllString(logBuf.String(), "")
}

// TestPooledBodiesLeaveNothingBehind: with every body read into a kept
// buffer that is overwritten as soon as it comes back, every fixture is
// answered and logged exactly as with a buffer of its own, served twice in
// a row and after all the others. A string of a request that outlived its
// answer (in a cache, the log line, an error) would show the overwrite.
func TestPooledBodiesLeaveNothingBehind(t *testing.T) {
	reqs := hookFixtures(t)
	// Each request twice, and all of them again: later requests find the
	// buffers of earlier ones, of every size.
	var order []fixtureRequest
	for _, r := range reqs {
		order = append(order, r, r)
	}
	order = append(order, reqs...)
	want, wantLogs := serveAll(t, order)

	oldMin, oldScribble := pooledBodyMin, scribbleOnPut
	pooledBodyMin, scribbleOnPut = 1, true
	t.Cleanup(func() { pooledBodyMin, scribbleOnPut = oldMin, oldScribble })
	got, gotLogs := serveAll(t, order)

	require.Equal(t, len(want), len(got))
	for i := range want {
		assert.Equal(t, want[i], got[i], "answer %d", i)
	}
	wantLines, gotLines := strings.Split(wantLogs, "\n"), strings.Split(gotLogs, "\n")
	require.Equal(t, len(wantLines), len(gotLines))
	for i := range wantLines {
		if !assert.Equal(t, wantLines[i], gotLines[i], "log line %d", i) {
			break
		}
	}
}

// TestBodyBuffers: a kept buffer goes to the next body it holds, the
// smallest that does; small bodies and buffers beyond the limit are not
// kept.
func TestBodyBuffers(t *testing.T) {
	const mib = 1 << 20
	cases := []struct {
		name   string
		limit  int64
		put    []int
		get    int64
		reused int // cap of the buffer get returns when it is a kept one, else 0
		kept   int64
	}{
		{name: "a kept buffer holds the body", limit: 8 * mib, put: []int{5 * mib}, get: 4 * mib, reused: 5 * mib, kept: 0},
		{name: "the smallest kept buffer that holds the body", limit: 8 * mib, put: []int{5 * mib, 2 * mib}, get: mib, reused: 2 * mib, kept: 5 * mib},
		{name: "no kept buffer holds it: a new one", limit: 8 * mib, put: []int{mib}, get: 2 * mib, reused: 0, kept: mib},
		{name: "beyond the limit a buffer is not kept", limit: 8 * mib, put: []int{5 * mib, 5 * mib}, get: 6 * mib, reused: 0, kept: 5 * mib},
		{name: "a larger buffer takes the room of smaller ones: it holds every body they do", limit: 8 * mib, put: []int{2 * mib, 4 * mib, 5 * mib}, get: 5 * mib, reused: 5 * mib, kept: 0},
		{name: "the smallest makes room first", limit: 8 * mib, put: []int{3 * mib, 2 * mib, 5 * mib}, get: 3 * mib, reused: 3 * mib, kept: 5 * mib},
		{name: "small bodies are not pooled: they fit the pages the last ones freed", limit: 8 * mib, put: []int{int(pooledBodyMin) / 2, mib}, get: pooledBodyMin / 4, reused: 0, kept: mib},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			p := newBodyBuffers(tc.limit)
			for _, n := range tc.put {
				p.put(make([]byte, n))
			}
			buf := p.get(tc.get)
			assert.EqualValues(t, tc.get, len(buf))
			if tc.reused > 0 {
				assert.Equal(t, tc.reused, cap(buf))
			} else {
				assert.EqualValues(t, tc.get, cap(buf))
			}
			assert.Equal(t, tc.kept, p.kept)
		})
	}
	var none *bodyBuffers
	assert.Len(t, none.get(pooledBodyMin), int(pooledBodyMin), "without buffers every body gets new memory")
	none.put(make([]byte, pooledBodyMin))
}
