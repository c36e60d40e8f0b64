package server

import (
	"bytes"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/c5c3/glance-hooks/hooks/contract/metacontroller"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestNotModified(t *testing.T) {
	const tag = `"abc"`
	cases := map[string]struct {
		reason string
		header []string
		want   bool
	}{
		"Exact":    {"the tag as it was given", []string{`"abc"`}, true},
		"Weak":     {"If-None-Match compares weakly: W/ does not matter", []string{`W/"abc"`}, true},
		"List":     {"one of a list", []string{`"x", "abc" ,"y"`}, true},
		"Headers":  {"one of several header lines", []string{`"x"`, `"abc"`}, true},
		"Other":    {"another tag", []string{`"abd"`}, false},
		"Unquoted": {"an entity tag is quoted", []string{`abc`}, false},
		"Star":     {"* would skip answers this build never gave", []string{`*`}, false},
		"None":     {"no header", nil, false},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			h := http.Header{}
			for _, v := range tc.header {
				h.Add("If-None-Match", v)
			}
			assert.Equal(t, tc.want, notModified(h, tag), tc.reason)
		})
	}
}

func TestAnswerTagNamesBuildURIAndBody(t *testing.T) {
	base := answerTag("b", "/sync/glance", []byte(`{}`))
	assert.Regexp(t, `^"[0-9a-f]{64}"$`, base, "a strong entity tag")
	assert.Equal(t, base, answerTag("b", "/sync/glance", []byte(`{}`)), "the same request to the same build")
	for name, other := range map[string]string{
		"build":   answerTag("c", "/sync/glance", []byte(`{}`)),
		"uri":     answerTag("b", "/sync/glance?pretty", []byte(`{}`)),
		"body":    answerTag("b", "/sync/glance", []byte(`{ }`)),
		"shifted": answerTag("b/sync/glance", "", []byte(`{}`)),
	} {
		assert.NotEqual(t, base, other, "a different %s is a different answer", name)
	}
}

// TestNotModifiedRunsNoHook: a request its caller already has the answer
// to is answered 304 from its hash, without running the hook; the answers
// that are computed carry the tag.
func TestNotModifiedRunsNoHook(t *testing.T) {
	hold := newHoldRoute()
	close(hold.release)
	h := New(Config{Logger: slog.New(slog.DiscardHandler), Routes: []Route{hold.route()}, Build: "test"})
	body := `{"parent":{}}`
	tag := answerTag("test", "/sync/hold", []byte(body))

	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest(http.MethodPost, "/sync/hold", strings.NewReader(body)))
	require.Equal(t, http.StatusOK, rec.Code)
	assert.Equal(t, tag, rec.Header().Get("ETag"), "a computed answer carries its tag")
	<-hold.entered

	req := httptest.NewRequest(http.MethodPost, "/sync/hold", strings.NewReader(body))
	req.Header.Set("If-None-Match", tag)
	rec = httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	assert.Equal(t, http.StatusNotModified, rec.Code)
	assert.Equal(t, tag, rec.Header().Get("ETag"), "a 304 names the answer it stands for")
	assert.Empty(t, rec.Body.Bytes())
	select {
	case <-hold.entered:
		t.Fatal("the hook ran for a request answered 304")
	default:
	}

	req = httptest.NewRequest(http.MethodPost, "/sync/hold", strings.NewReader(`{"parent":{"x":1}}`))
	req.Header.Set("If-None-Match", tag)
	rec = httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	assert.Equal(t, http.StatusOK, rec.Code, "another body is answered anew")
	assert.NotEqual(t, tag, rec.Header().Get("ETag"))
}

// TestOnlyMetacontrollerRoutesAnswerNotModified: /validate is the API
// server's, which caches nothing; its answers carry no tag and an
// If-None-Match changes nothing.
func TestOnlyMetacontrollerRoutesAnswerNotModified(t *testing.T) {
	h := New(Config{Logger: slog.New(slog.DiscardHandler), Routes: DefaultRoutes(), Build: "test"})
	body := `{"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","request":{"uid":"u","kind":{"group":"c5c3.io","version":"v1alpha1","kind":"ControlPlane"},"operation":"DELETE"}}`
	req := httptest.NewRequest(http.MethodPost, "/validate", strings.NewReader(body))
	req.Header.Set("If-None-Match", answerTag("test", "/validate", []byte(body)))
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	assert.Equal(t, http.StatusOK, rec.Code, rec.Body.String())
	assert.Empty(t, rec.Header().Get("ETag"))
}

// TestAnswerTagStaysOnItsGoroutine: hashing a large body allocates nothing
// per block. A BLAKE3 library that hands the blocks of a large input to
// goroutines of their own (lukechampine.com/blake3 from v1.4) allocates for
// each, and a 304 then costs more CPU and waits for a second core.
func TestAnswerTagStaysOnItsGoroutine(t *testing.T) {
	body := []byte(strings.Repeat("x", 4<<20))
	allocs := testing.AllocsPerRun(5, func() { answerTag("b", "/sync/glance", body) })
	assert.LessOrEqual(t, allocs, 8.0, "a 4 MiB body is hashed in place, not in %d-byte pieces handed out", 16<<10)
}

// TestTagHashedAsTheBodyArrives: the tag a body is hashed into while it is
// read, piece by piece, is answerTag of the whole body, for bodies that end
// inside the head, right at it, inside the first piece after it and at a
// piece's end, sent with a Content-Length and without one (chunked), over
// a real connection where the body arrives in parts.
func TestTagHashedAsTheBodyArrives(t *testing.T) {
	srv := taggedServer()
	defer srv.Close()
	envelope := len(`{"parent":{"pad":""}}`)
	for _, size := range []int{envelope, bodyHead - 1, bodyHead, bodyHead + 1, bodyHead + tailChunk, bodyHead + 3*tailChunk + 7, 1<<20 + 3} {
		body := `{"parent":{"pad":"` + strings.Repeat("x", size-envelope) + `"}}`
		require.Len(t, body, size)
		want := answerTag("test", "/sync/tagged", []byte(body))
		for name, reader := range map[string]io.Reader{
			"Content-Length": strings.NewReader(body),
			"chunked":        struct{ io.Reader }{strings.NewReader(body)},
		} {
			resp, err := http.Post(srv.URL+"/sync/tagged", "application/json", reader)
			require.NoError(t, err)
			_, _ = io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
			require.Equal(t, http.StatusOK, resp.StatusCode, "%d bytes, %s", size, name)
			assert.Equal(t, want, resp.Header.Get("ETag"), "%d bytes, %s: the tag of the whole body", size, name)
		}
	}
}

// BenchmarkNotModifiedOverLoopback is a 304 of a large body over a real
// connection, as Metacontroller's resync of an unchanged parent reaches
// the service: the body's transfer, its read and its hash. (make bench's
// resync serves the body from memory, where no transfer can overlap.)
func BenchmarkNotModifiedOverLoopback(b *testing.B) {
	srv := taggedServer()
	defer srv.Close()
	for _, size := range []int{1 << 20, 5 << 20} {
		body := []byte(`{"parent":{"pad":"` + strings.Repeat("x", size) + `"}}`)
		tag := answerTag("test", "/sync/tagged", body)
		b.Run(fmt.Sprintf("%dMiB", size>>20), func(b *testing.B) {
			b.SetBytes(int64(len(body)))
			for b.Loop() {
				req, err := http.NewRequest(http.MethodPost, srv.URL+"/sync/tagged", bytes.NewReader(body))
				if err != nil {
					b.Fatal(err)
				}
				req.Header.Set("If-None-Match", tag)
				resp, err := http.DefaultClient.Do(req)
				if err != nil {
					b.Fatal(err)
				}
				_, _ = io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
				if resp.StatusCode != http.StatusNotModified {
					b.Fatalf("answered %d", resp.StatusCode)
				}
			}
		})
	}
}

// taggedServer serves /sync/tagged, a Metacontroller route whose hook
// answers every request alike, on a real listener.
func taggedServer() *httptest.Server {
	route := Route{Path: "/sync/tagged", Sync: func(*metacontroller.SyncRequest, time.Time) (*metacontroller.SyncResponse, error) {
		return &metacontroller.SyncResponse{Status: map[string]string{}, Children: []any{}}, nil
	}}
	return httptest.NewServer(New(Config{Logger: slog.New(slog.DiscardHandler), Routes: []Route{route}, Build: "test"}))
}
