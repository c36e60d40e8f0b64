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

// The log line is written before the buffer is released: the parent it
// names is read from the body (its strings share the body's memory), so a
// body read into a pooled buffer still logs its parent, not cleared bytes.
func TestLogNamesParentOfPooledBody(t *testing.T) {
	var log bytes.Buffer
	echoParent := Route{Path: "/sync/x", Sync: func(req *metacontroller.SyncRequest, _ time.Time) (*metacontroller.SyncResponse, error) {
		return &metacontroller.SyncResponse{}, nil
	}}
	h := New(Config{Logger: slog.New(slog.NewJSONHandler(&log, nil)), Routes: []Route{echoParent}})
	// Longer than bodyHead, so its rest is read into a pooled buffer.
	body := `{"parent":{"kind":"Glance","metadata":{"name":"g1","namespace":"ns","annotations":{"pad":"` +
		strings.Repeat("x", 2*bodyHead) + `"}}}}`
	req := httptest.NewRequest(http.MethodPost, "/sync/x", strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	w := httptest.NewRecorder()
	h.ServeHTTP(w, req)
	if w.Code != http.StatusOK {
		t.Fatalf("answered %d: %s", w.Code, w.Body)
	}
	if !strings.Contains(log.String(), `"parent":"Glance ns/g1"`) {
		t.Fatalf("the log line does not name the parent: %s", log.String())
	}
}
