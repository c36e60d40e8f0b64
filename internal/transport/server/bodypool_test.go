package server

import (
	"bytes"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/c5c3/glance-hooks/hooks/contract/metacontroller"
	"github.com/c5c3/glance-hooks/internal/rawjson"
)

// A pooled body buffer goes back cleared: the pool never holds a request's
// bytes (a body carries the store Secrets' credentials).
func TestReleasedBodyBufferIsCleared(t *testing.T) {
	c := echo.New().NewContext(httptest.NewRequest(http.MethodPost, "/", nil), httptest.NewRecorder())
	buf := takeBodyBuffer(c, 64)
	copy(buf, "secret-access-key")
	p, ok := c.Get(bodyBufferKey).(*[]byte)
	if !ok {
		t.Fatal("the request does not hold its buffer")
	}
	releaseBodyBuffer(c)
	if !bytes.Equal(*p, make([]byte, 64)) {
		t.Fatalf("the released buffer still holds %q", *p)
	}
	if c.Get(bodyBufferKey) != nil {
		t.Fatal("the request still holds the released buffer")
	}
	releaseBodyBuffer(c) // a second release gives nothing back twice
}

// The buffer is released only after the answer and the log line: a hook's
// decoded strings share the body's memory (rawjson.Unmarshal), so an answer
// that carries one, encoded after the buffer were cleared, would carry
// zeros. The hook here answers with a string decoded from a body long
// enough to be read into a pooled buffer.
func TestAnswerAndLogOfPooledBody(t *testing.T) {
	var log bytes.Buffer
	echoName := Route{Path: "/sync/x", Sync: func(req *metacontroller.SyncRequest, _ time.Time) (*metacontroller.SyncResponse, error) {
		var p struct {
			Metadata struct {
				Name string `json:"name"`
			} `json:"metadata"`
		}
		if err := rawjson.Unmarshal(req.Parent, &p); err != nil {
			return nil, err
		}
		return &metacontroller.SyncResponse{Status: map[string]string{"name": p.Metadata.Name}}, nil
	}}
	h := New(Config{Logger: slog.New(slog.NewJSONHandler(&log, nil)), Routes: []Route{echoName}})
	// Longer than bodyHead, so its rest is read into a pooled buffer.
	body := `{"parent":{"kind":"Glance","metadata":{"name":"g1","namespace":"ns","annotations":{"pad":"` +
		strings.Repeat("x", 2*bodyHead) + `"}}}}`
	req := httptest.NewRequest(http.MethodPost, "/sync/x", strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	w := httptest.NewRecorder()
	h.ServeHTTP(w, req)
	if w.Code != http.StatusOK || !strings.Contains(w.Body.String(), `"status":{"name":"g1"}`) {
		t.Fatalf("answered %d without the parent's name: %s", w.Code, w.Body)
	}
	if !strings.Contains(log.String(), `"parent":"Glance ns/g1"`) {
		t.Fatalf("the log line does not name the parent: %s", log.String())
	}
}
