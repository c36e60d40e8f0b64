package server

import (
	"context"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/c5c3/glance-hooks/hooks/contract/metacontroller"
)

// TestGracefulShutdownFinishesInFlightRequests cancels the server while a
// request is being answered: the request completes and Serve returns cleanly.
func TestGracefulShutdownFinishesInFlightRequests(t *testing.T) {
	started := make(chan struct{})
	slow := Route{Path: "/sync/slow", Sync: func(*metacontroller.SyncRequest, time.Time) (*metacontroller.SyncResponse, error) {
		close(started)
		time.Sleep(300 * time.Millisecond)
		return &metacontroller.SyncResponse{Status: map[string]string{"done": "yes"}, Children: []any{}}, nil
	}}
	e := New(Config{Logger: slog.New(slog.DiscardHandler), Routes: []Route{slow}})
	l, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	addr := l.Addr().String()
	require.NoError(t, l.Close())

	ctx, cancel := context.WithCancel(context.Background())
	served := make(chan error, 1)
	go func() { served <- Serve(ctx, e, addr, Stop{Grace: 5 * time.Second}, nil) }()
	require.Eventually(t, func() bool {
		c, err := net.Dial("tcp", addr)
		if err == nil {
			c.Close()
		}
		return err == nil
	}, 5*time.Second, 10*time.Millisecond)

	answered := make(chan string, 1)
	go func() {
		resp, err := http.Post("http://"+addr+"/sync/slow", "application/json", strings.NewReader(`{"parent":{}}`))
		if err != nil {
			answered <- "error: " + err.Error()
			return
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		answered <- resp.Status + " " + string(b)
	}()
	<-started
	cancel()
	select {
	case got := <-answered:
		assert.Contains(t, got, "200 OK")
		assert.Contains(t, got, `"done":"yes"`)
	case <-time.After(5 * time.Second):
		t.Fatal("the in-flight request did not finish")
	}
	select {
	case err := <-served:
		assert.NoError(t, err)
	case <-time.After(5 * time.Second):
		t.Fatal("Serve did not return after shutdown")
	}
	_, err = net.DialTimeout("tcp", addr, time.Second)
	assert.Error(t, err, "the server stopped listening")
}

// holdRoute is a sync hook that waits until release is closed; entered
// gets a value each time a request is inside, most is the peak.
type holdRoute struct {
	mu           sync.Mutex
	inside, most int
	entered      chan struct{}
	release      chan struct{}
}

func newHoldRoute() *holdRoute {
	return &holdRoute{entered: make(chan struct{}, 10), release: make(chan struct{})}
}

func (h *holdRoute) route() Route {
	return Route{Path: "/sync/hold", Sync: func(*metacontroller.SyncRequest, time.Time) (*metacontroller.SyncResponse, error) {
		h.mu.Lock()
		h.inside++
		h.most = max(h.most, h.inside)
		h.mu.Unlock()
		h.entered <- struct{}{}
		<-h.release
		h.mu.Lock()
		h.inside--
		h.mu.Unlock()
		return &metacontroller.SyncResponse{Status: map[string]string{}, Children: []any{}}, nil
	}}
}

func postHold(h http.Handler, ctx context.Context) int {
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest(http.MethodPost, "/sync/hold", strings.NewReader(`{"parent":{}}`)).WithContext(ctx))
	return rec.Code
}

// TestMaxInFlight lets only MaxInFlight requests into the hooks at once; the
// next waits its turn and is then answered, and health checks never wait.
func TestMaxInFlight(t *testing.T) {
	hold := newHoldRoute()
	h := New(Config{Logger: slog.New(slog.DiscardHandler), Routes: []Route{hold.route()}, MaxInFlight: 2})
	codes := make(chan int, 3)
	for range 3 {
		go func() { codes <- postHold(h, context.Background()) }()
	}
	<-hold.entered
	<-hold.entered
	select {
	case <-hold.entered:
		t.Fatal("a third request got in while two were in progress")
	case <-time.After(100 * time.Millisecond):
	}
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/healthz", nil))
	assert.Equal(t, http.StatusOK, rec.Code, "health checks do not wait for a slot")
	close(hold.release)
	for range 3 {
		assert.Equal(t, http.StatusOK, <-codes)
	}
	<-hold.entered // the third got in once a slot was free
	assert.Equal(t, 2, hold.most)
}

// TestMaxInFlightGivesUpWithTheClient does not run a request whose client
// went away while it waited for a slot.
func TestMaxInFlightGivesUpWithTheClient(t *testing.T) {
	hold := newHoldRoute()
	h := New(Config{Logger: slog.New(slog.DiscardHandler), Routes: []Route{hold.route()}, MaxInFlight: 1})
	done := make(chan int, 1)
	go func() { done <- postHold(h, context.Background()) }()
	<-hold.entered
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	assert.Equal(t, http.StatusServiceUnavailable, postHold(h, ctx))
	close(hold.release)
	assert.Equal(t, http.StatusOK, <-done)
	assert.Equal(t, 1, hold.most)
}
