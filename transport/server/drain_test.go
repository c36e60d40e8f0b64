package server

import (
	"context"
	"log/slog"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/c5c3/glance-hooks/hooks/contract/metacontroller"
)

// On shutdown the server first fails readiness while it still answers every
// request, then closes its listener.
func TestShutdownDrainsBeforeClosing(t *testing.T) {
	answer := Route{Path: "/sync/x", Sync: func(*metacontroller.SyncRequest, time.Time) (*metacontroller.SyncResponse, error) {
		return &metacontroller.SyncResponse{Status: map[string]string{}, Children: []any{}}, nil
	}}
	ready := NewReadiness()
	e := New(Config{Logger: slog.New(slog.DiscardHandler), Routes: []Route{answer}, Readiness: ready})
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	base := "http://" + ln.Addr().String()
	ctx, cancel := context.WithCancel(context.Background())
	served := make(chan error, 1)
	// Long enough to look at the server while it drains; the test does not
	// wait for it to run out (see below).
	go func() {
		served <- ServeListener(ctx, e, ln, Stop{Drain: 3 * time.Second, Grace: time.Second, Readiness: ready}, nil)
	}()

	client := &http.Client{Transport: &http.Transport{DisableKeepAlives: true}, Timeout: 5 * time.Second}
	get := func(path string) int {
		resp, err := client.Get(base + path)
		require.NoError(t, err)
		resp.Body.Close()
		return resp.StatusCode
	}
	post := func() int {
		resp, err := client.Post(base+"/sync/x", "application/json", strings.NewReader(`{"parent":{}}`))
		require.NoError(t, err)
		resp.Body.Close()
		return resp.StatusCode
	}
	assert.Equal(t, 200, get("/readyz"))
	assert.Equal(t, 200, post())

	cancel()
	require.Eventually(t, ready.Draining, 5*time.Second, 5*time.Millisecond)
	assert.Equal(t, 503, get("/readyz"), "readiness fails first")
	assert.Equal(t, 200, get("/healthz"), "the server is alive, only leaving")
	assert.Equal(t, 200, post(), "requests that still arrive are answered")

	select {
	case err := <-served:
		require.NoError(t, err)
	case <-time.After(10 * time.Second):
		t.Fatal("the server did not stop after its drain")
	}
	_, err = net.DialTimeout("tcp", ln.Addr().String(), time.Second)
	assert.Error(t, err, "then the listener is closed")
}

// Without a drain the listener closes at once, as before.
func TestShutdownWithoutDrain(t *testing.T) {
	ready := NewReadiness()
	e := New(Config{Logger: slog.New(slog.DiscardHandler), Readiness: ready})
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	require.NoError(t, ServeListener(ctx, e, ln, Stop{Grace: time.Second, Readiness: ready}, nil))
	assert.False(t, ready.Draining(), "no drain asked, none done")
}
