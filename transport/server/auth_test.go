package server

import (
	"bytes"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/c5c3/glance-hooks/test/testlog"
)

func writeToken(t *testing.T, path, tok string) {
	t.Helper()
	require.NoError(t, os.WriteFile(path+".tmp", []byte(tok), 0o600))
	require.NoError(t, os.Rename(path+".tmp", path))
}

func TestTokenFile(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "token")
	writeToken(t, path, " first\n")
	var logs bytes.Buffer
	tok, err := NewTokenFile(path, slog.New(slog.NewJSONHandler(&logs, nil)))
	require.NoError(t, err)
	assert.True(t, tok.Matches("first"), "surrounding blanks are not part of the token, as Metacontroller trims them")
	assert.False(t, tok.Matches("firs"))
	assert.False(t, tok.Matches("first "))
	assert.False(t, tok.Matches(""))

	writeToken(t, path, "second")
	assert.True(t, tok.Matches("second"), "a changed file is read again")
	assert.False(t, tok.Matches("first"))

	// A file that stops holding a token keeps the last one in force.
	writeToken(t, path, "\n")
	assert.True(t, tok.Matches("second"))
	assert.Contains(t, logs.String(), "auth token reload failed; the previous token stays in force")
	assert.Equal(t, 1, strings.Count(logs.String(), "reload failed"), "logged once, not per request")
	tok.Matches("second")
	assert.Equal(t, 1, strings.Count(logs.String(), "reload failed"))
	writeToken(t, path, "third")
	assert.True(t, tok.Matches("third"))
	assert.Contains(t, logs.String(), "auth token reloaded")
	assert.NotContains(t, logs.String(), "third", "the token is never logged")

	for name, content := range map[string]string{"empty": "", "blank": " \t\n", "inner space": "a b", "control": "a\x01b"} {
		p := filepath.Join(dir, name)
		require.NoError(t, os.WriteFile(p, []byte(content), 0o600))
		_, err := NewTokenFile(p, nil)
		assert.Error(t, err, name)
	}
	_, err = NewTokenFile(filepath.Join(dir, "missing"), nil)
	assert.Error(t, err)
}

// readRecorder remembers whether anything read the body.
type readRecorder struct {
	r    *strings.Reader
	read bool
}

func (b *readRecorder) Read(p []byte) (int, error) { b.read = true; return b.r.Read(p) }

// A Metacontroller route wants the token before anything else: without it
// the answer is a 401 and the body is never read. /validate and the probes
// do not want it.
func TestBearerTokenGuardsMetacontrollerRoutes(t *testing.T) {
	path := filepath.Join(t.TempDir(), "token")
	writeToken(t, path, "s3cr3t")
	tok, err := NewTokenFile(path, nil)
	require.NoError(t, err)
	h := New(Config{Logger: slog.New(slog.DiscardHandler), Routes: DefaultRoutes(), HookToken: tok})

	call := func(method, target, auth string) (*httptest.ResponseRecorder, *readRecorder) {
		body := &readRecorder{r: strings.NewReader(`{"parent":{}}`)}
		req := httptest.NewRequest(method, target, body)
		if auth != "" {
			req.Header.Set("Authorization", auth)
		}
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		return rec, body
	}
	for _, auth := range []string{"", "Bearer", "Bearer wrong", "Basic czNjcjN0", "s3cr3t", "Bearer s3cr3t0"} {
		rec, body := call(http.MethodPost, "/sync/glance", auth)
		assert.Equal(t, http.StatusUnauthorized, rec.Code, "%q", auth)
		assert.Equal(t, `Bearer realm="glance-hooks"`, rec.Header().Get("WWW-Authenticate"))
		assert.False(t, body.read, "%q: the body of an unauthenticated request is not read", auth)
		assert.NotContains(t, rec.Body.String(), "s3cr3t")
	}
	for _, auth := range []string{"Bearer s3cr3t", "bearer  s3cr3t"} {
		rec, body := call(http.MethodPost, "/sync/glance", auth)
		assert.Equal(t, http.StatusUnprocessableEntity, rec.Code, "%q reaches the hook (which refuses an empty parent)", auth)
		assert.True(t, body.read)
	}
	rec, _ := call(http.MethodPost, "/validate", "")
	assert.Equal(t, http.StatusBadRequest, rec.Code, "the API server's route takes no token")
	rec, _ = call(http.MethodGet, "/healthz", "")
	assert.Equal(t, http.StatusOK, rec.Code)
}

// A token rewritten in place with one of the same length, the file's mtime
// set back to what it was, is picked up: what changed is the content.
func TestTokenFileChangeSeenByContent(t *testing.T) {
	path := filepath.Join(t.TempDir(), "token")
	require.NoError(t, os.WriteFile(path, []byte("first-token\n"), 0o600))
	old := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	require.NoError(t, os.Chtimes(path, old, old))
	before, err := os.Stat(path)
	require.NoError(t, err)
	tok, err := NewTokenFile(path, slog.New(slog.DiscardHandler))
	require.NoError(t, err)
	require.True(t, tok.Matches("first-token"))

	f, err := os.OpenFile(path, os.O_WRONLY, 0)
	require.NoError(t, err)
	_, err = f.WriteAt([]byte("other-token\n"), 0)
	require.NoError(t, err)
	require.NoError(t, f.Close())
	require.NoError(t, os.Chtimes(path, old, old))
	after, err := os.Stat(path)
	require.NoError(t, err)
	require.True(t, os.SameFile(before, after) && after.Size() == before.Size() && after.ModTime().Equal(before.ModTime()),
		"the rewrite left the inode, the size and the mtime as they were")

	assert.True(t, tok.Matches("other-token"), "the new token is in force")
	assert.False(t, tok.Matches("first-token"), "the old one is not")
}

// A file that cannot be read for a moment (a Secret volume's swap) keeps
// the token in force, and whatever it holds when it is back is loaded.
func TestTokenFileUnreadableThenBack(t *testing.T) {
	path := filepath.Join(t.TempDir(), "token")
	writeToken(t, path, "first")
	var logs testlog.Buffer
	tok, err := NewTokenFile(path, slog.New(slog.NewJSONHandler(&logs, nil)))
	require.NoError(t, err)
	require.NoError(t, os.Remove(path))
	assert.True(t, tok.Matches("first"), "the last good token stays in force")
	assert.True(t, tok.Matches("first"))
	assert.Equal(t, 1, strings.Count(logs.String(), "reload failed"), "logged once, not per request")
	writeToken(t, path, "first")
	assert.True(t, tok.Matches("first"))
	assert.Contains(t, logs.String(), "auth token reloaded", "the same token back is a recovery")
	writeToken(t, path, "second")
	assert.True(t, tok.Matches("second"))
}
